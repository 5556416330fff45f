"""Players' voices for end-to-end tests, generated from text with espeak-ng (nothing committed).

Each player has their own espeak-ng voice, different from the referee's (`es-419`), so the
tests hear a table of distinct speakers.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from voice_ref.voice.audio_in import read_wav, write_wav

RATE = 16000
PLAYER_VOICES = ("es+m3", "es+f2", "es+m1", "es+f4")


def espeak_available() -> bool:
    return shutil.which("espeak-ng") is not None


def speak(text: str, voice: str = "es+m3", rate: int = 150) -> np.ndarray:
    """One utterance as 16 kHz float32 samples."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "u.wav"
        subprocess.run(["espeak-ng", "-v", voice, "-s", str(rate), "-w", str(path), text],
                       check=True, capture_output=True)
        return read_wav(path, RATE)


def utterance_wav(text: str, path: Path, voice: str = "es+m3", lead_s: float = 0.3) -> Path:
    """A clip with a little silence around the speech, as a player's turn sounds."""
    silence = np.zeros(int(RATE * lead_s), np.float32)
    write_wav(path, np.concatenate([silence, speak(text, voice), silence]), RATE)
    return path


def session_wav(turns: list[tuple[str, str]], path: Path, pause_s: float = 1.5) -> Path:
    """A recorded table session: (voice, text) turns separated by pauses."""
    pause = np.zeros(int(RATE * pause_s), np.float32)
    parts = [pause]
    for voice, text in turns:
        parts += [speak(text, voice), pause]
    write_wav(path, np.concatenate(parts), RATE)
    return path


# A whole 3-player `chile` game with one die each, short enough for Whisper on 2 cores:
# Ana opens, Carla doubts, the table counts one quina, Beto is out; Carla opens, Ana
# doubts, there are no sextos: Ana wins.
#
# These end-to-end tests check the pipeline (audio -> VAD -> recognizer -> decision ->
# referee gives the typed game), not accuracy (that is `voice-ref bench`), so every line
# is said the way tables also say it *and* is decided far from any threshold on two CPU
# kernel settings (default and CT2_FORCE_CPU_ISA=AVX512: every share >= 0.74 against the
# 0.45 accept line). A bare espeak "dudo" is not: Whisper base hears it as "Cosa" or
# "Cumpa" at shares of 0.59-0.73, so on one machine it is asked about ("¿Dijiste
# dudo?"), which a recording cannot answer, and on another it is not (BENCHMARKS.md,
# session 8).
SHORT_GAME = [
    ("Ana", "dos quinas"),
    ("Beto", "tres quinas"),
    ("Carla", "yo dudo"),
    ("Beto", "hay una"),
    ("Carla", "dos sextos"),
    ("Ana", "yo dudo"),
    ("Carla", "no hay ninguno"),
]
SHORT_GAME_PLAYERS = ("Ana", "Beto", "Carla")


def short_game_config(path: Path, whisper_model: Path) -> Path:
    """A config.toml for SHORT_GAME (Whisper from the project's models/ folder)."""
    path.write_text(f"""
[game]
players = ["Ana", "Beto", "Carla"]
starter = "Ana"
direction = "izquierda"
[rules]
preset = "chile"
[rules.overrides]
start_dice = 1
[asr]
backend = "whisper"
whisper_model = "{whisper_model}"
[audio]
holdoff_s = 0.3
reask_after_s = 120.0
""", encoding="utf-8")
    return path


def voice_of(player: str) -> str:
    return PLAYER_VOICES[SHORT_GAME_PLAYERS.index(player) % len(PLAYER_VOICES)]


def typed_game(tmp: Path, config: Path) -> tuple[list[dict], list[dict]]:
    """The same words through text mode: the expected protocol objects and game log."""
    run = subprocess.run(
        [sys.executable, "-m", "voice_ref", "--config", str(config), "play", "--text", "--json",
         "--silent", "--state-dir", str(tmp)],
        input="".join(text + "\n" for _, text in SHORT_GAME), capture_output=True, text=True,
        timeout=120, check=True,
    )
    return [json.loads(x) for x in run.stdout.splitlines()], read_log(tmp)


def read_log(state_dir: Path) -> list[dict]:
    log = state_dir / "game.jsonl"
    return [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]


def without_heard(obj: dict) -> dict:
    """A protocol object minus what the recognizer heard (its spelling may differ)."""
    return {k: v for k, v in obj.items() if k != "heard"}
