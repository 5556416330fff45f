"""Players' voices for end-to-end tests, generated from text with espeak-ng (nothing committed).

Each player has their own espeak-ng voice, different from the referee's (`es-419`), so the
tests hear a table of distinct speakers.
"""

from __future__ import annotations

import shutil
import subprocess
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
