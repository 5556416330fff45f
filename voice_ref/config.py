"""Loading config.toml into typed settings; bad values are explained in plain words.

Which file: `--config FILE` when given; otherwise the first that exists of
`./config.toml` (the folder the command runs in), the user's config folder
(`~/.config/voice_ref/config.toml` on Linux) and the default that ships inside the
package. A file that exists but is invalid is an error, never skipped for the next one.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from voice_ref.rules.variants import ConfigError, RuleSet, make_rules

CONFIG_NAME = "config.toml"
# The packaged default: voice_ref/config.toml is a symbolic link to the project's config.toml
# (a wheel holds the file itself), so the two cannot drift apart.
DEFAULT_CONFIG = Path(__file__).resolve().parent / CONFIG_NAME
# The Whisper models `asr.whisper_model = "auto"` chooses between: the one adapted to the
# game (`voice-ref models adapt` builds it) once it is there, else the base model
# (`voice-ref models install whisper-base`).
BASE_WHISPER_MODEL = Path("models/whisper-base")
ADAPTED_WHISPER_MODEL = Path("models/whisper-base-table")


class ConfigOrigin(StrEnum):
    """Where the config that was read comes from (said in `voice-ref play`'s first line)."""

    OPTION = "--config"
    CURRENT_FOLDER = "current folder"
    USER = "user config folder"
    PACKAGED = "packaged default"


def user_config_file() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("voice_ref")) / CONFIG_NAME


def user_data_folder() -> Path:
    """Where the packaged default keeps models (its own folder is inside the install)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("voice_ref"))


@dataclass(frozen=True)
class GameSettings:
    players: tuple[str, ...] = ("Ana", "Beto", "Carla", "Diego")
    starter: str = "ask"
    direction: str = "ask"
    state_dir: str = ""


@dataclass(frozen=True)
class AsrSettings:
    backend: str = "auto"
    vosk_model: Path = Path("models/vosk-model-small-es-0.42")
    whisper_model: Path | None = None  # None: "auto" (`Config.whisper_model`)
    threads: int = 2
    accept_score: float = 0.5  # typed lines (`play --text`): the parser's score
    # Recognized speech: the best reading's share. Lower than the typed line's since the
    # Whisper recognizer answers from 32 ms of room audio after the speech (speculative
    # end-pointing), which spreads its shares (BENCHMARKS.md, session 6).
    speech_accept_score: float = 0.45
    confirm_margin: float = 0.15
    # Decision thresholds the speech model asks for (`Thresholds` field, value), read from
    # its folder's `decision.toml` (`asr.select.with_model_decision`), not from config.toml.
    decision: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class AudioSettings:
    input_device: str | int = ""
    output_device: str | int = ""
    holdoff_s: float = 0.3
    reask_after_s: float = 12.0
    # Counting aloud: asked "¿Cuántas quinas hay?", a table often counts the dice out loud
    # ("una, dos, tres") rather than saying the total. A count taken, and each count
    # above the count held, waits this long for the next number; the last one is the answer.
    # Counted out loud, numbers come 0.3-0.8 s apart; an answer is taken this much later
    # (so "eh … cuatro", whose "eh" is heard as "3", is four). The first "uno" is
    # sometimes heard as table talk ("Hugo."): a count of two that follows talk within the
    # same wait is counted aloud too (voice/session.py).
    count_hold_s: float = 1.0
    push_to_talk: str = ""


@dataclass(frozen=True)
class VoiceSettings:
    voice: str = "auto"  # the most natural Spanish voice installed (voice/voices.py)
    rate: int = 165
    volume: float = 1.0


@dataclass(frozen=True)
class Config:
    game: GameSettings = field(default_factory=GameSettings)
    preset: str = "chile"
    rule_overrides: dict[str, Any] = field(default_factory=dict)
    dialect: str = "chile"
    dialect_faces: dict[int, str] = field(default_factory=dict)
    asr: AsrSettings = field(default_factory=AsrSettings)
    audio: AudioSettings = field(default_factory=AudioSettings)
    voice: VoiceSettings = field(default_factory=VoiceSettings)
    base_dir: Path = field(default_factory=Path.cwd)
    source: Path | None = None  # the file that was read (None: built in code)
    origin: ConfigOrigin | None = None

    @property
    def rules(self) -> RuleSet:
        return make_rules(self.preset, self.rule_overrides)

    def describe_source(self) -> str:
        """For the operator: which file was read, and why that one."""
        if self.source is None:
            return "built-in defaults"
        return f"{self.source} ({self.origin})" if self.origin else str(self.source)

    def path(self, p: Path | str) -> Path:
        """A path from the config, resolved against the config file's folder."""
        p = Path(p).expanduser()
        return p if p.is_absolute() else self.base_dir / p

    @property
    def whisper_base(self) -> Path:
        """The Whisper model `models install` assembles and `models adapt` starts from: the
        configured folder, or with "auto" the base model's."""
        return self.path(self.asr.whisper_model or BASE_WHISPER_MODEL)

    @property
    def whisper_model(self) -> Path:
        """The Whisper model a table loads: the configured folder, or with "auto" the
        adapted model when it has been built (its folder appears only when complete), else
        the base model."""
        if self.asr.whisper_model is not None:
            return self.path(self.asr.whisper_model)
        adapted = self.path(ADAPTED_WHISPER_MODEL)
        return adapted if (adapted / "model.bin").is_file() else self.whisper_base


def find_config(path: Path | str | None = None) -> tuple[Path, ConfigOrigin]:
    """The file to read: the given one, else the first that exists in the lookup order."""
    if path:
        return Path(path), ConfigOrigin.OPTION
    for candidate, origin in (
        (Path.cwd() / CONFIG_NAME, ConfigOrigin.CURRENT_FOLDER),
        (user_config_file(), ConfigOrigin.USER),
    ):
        if candidate.exists():
            return candidate, origin
    return DEFAULT_CONFIG, ConfigOrigin.PACKAGED


def load_config(path: Path | str | None = None) -> Config:
    """Read the config (see the module docstring for which file); bad content is an error."""
    path, origin = find_config(path)
    if not path.is_file():
        if origin is ConfigOrigin.PACKAGED:  # a broken install: the defaults still work
            return Config(base_dir=user_data_folder())
        raise ConfigError(f"Config file {path} does not exist.")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} cannot be read: {exc}") from None
    # Relative paths (models, game log) are relative to the file's folder; the packaged
    # default's folder is inside the installation, so its paths go to the user data folder.
    base_dir = user_data_folder() if origin is ConfigOrigin.PACKAGED else path.absolute().parent
    try:
        cfg = config_from_dict(data, base_dir=base_dir)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except (TypeError, ValueError, AttributeError) as exc:
        raise ConfigError(f"{path}: a value has the wrong type ({exc}).") from None
    return replace(cfg, source=path.absolute(), origin=origin)


def _whisper_model(value: object) -> Path | None:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError('[asr] whisper_model is "auto" or a model folder, '
                          f"not {value!r}.")
    return None if value.strip() == "auto" else Path(value)


def config_from_dict(data: dict[str, Any], base_dir: Path | None = None) -> Config:
    game = data.get("game", {})
    rules = data.get("rules", {})
    dialect = data.get("dialect", {})
    asr = data.get("asr", {})
    audio = data.get("audio", {})
    voice = data.get("voice", {})
    players = tuple(str(p).strip() for p in game.get("players", GameSettings.players))
    if len(players) < 2 or any(not p for p in players):
        raise ConfigError("[game] players needs at least two non-empty names.")
    if len({p.casefold() for p in players}) != len(players):
        raise ConfigError("[game] players has the same name twice; every name must differ.")
    faces = {int(k): str(v) for k, v in dialect.get("faces", {}).items()}
    if any(k not in range(1, 7) for k in faces):
        raise ConfigError("[dialect] faces keys must be 1 to 6.")
    cfg = Config(
        game=GameSettings(
            players=players,
            starter=str(game.get("starter", "ask")),
            direction=str(game.get("direction", "ask")),
            state_dir=str(game.get("state_dir", "")),
        ),
        preset=str(rules.get("preset", "chile")),
        rule_overrides=dict(rules.get("overrides", {})),
        dialect=str(dialect.get("name", "chile")),
        dialect_faces=faces,
        asr=AsrSettings(
            backend=str(asr.get("backend", "auto")),
            vosk_model=Path(asr.get("vosk_model", AsrSettings.vosk_model)),
            whisper_model=_whisper_model(asr.get("whisper_model", "auto")),
            threads=int(asr.get("threads", 2)),
            accept_score=float(asr.get("accept_score", 0.5)),
            speech_accept_score=float(asr.get("speech_accept_score", 0.45)),
            confirm_margin=float(asr.get("confirm_margin", 0.15)),
        ),
        audio=AudioSettings(
            input_device=audio.get("input_device", ""),
            output_device=audio.get("output_device", ""),
            holdoff_s=float(audio.get("holdoff_s", AudioSettings.holdoff_s)),
            reask_after_s=float(audio.get("reask_after_s", AudioSettings.reask_after_s)),
            count_hold_s=float(audio.get("count_hold_s", AudioSettings.count_hold_s)),
            push_to_talk=str(audio.get("push_to_talk", "")),
        ),
        voice=VoiceSettings(
            voice=str(voice.get("voice", "auto")),
            rate=int(voice.get("rate", 165)),
            volume=float(voice.get("volume", 1.0)),
        ),
        base_dir=base_dir or Path.cwd(),
    )
    if cfg.asr.backend not in ("auto", "vosk", "whisper"):
        raise ConfigError(f"[asr] backend must be auto, vosk or whisper, not {cfg.asr.backend!r}.")
    for key in ("accept_score", "speech_accept_score"):
        if not 0.0 < getattr(cfg.asr, key) <= 1.0:
            raise ConfigError(f"[asr] {key} is a share between 0 and 1 (0.45 or 0.5 are usual), "
                              f"not {getattr(cfg.asr, key)}.")
    if not 0.0 <= cfg.audio.count_hold_s <= 5.0:
        raise ConfigError("[audio] count_hold_s is seconds from 0 (off) to 5 (1.0 is usual), "
                          f"not {cfg.audio.count_hold_s}.")
    _ = cfg.rules  # validates preset and overrides now, not mid-game
    return cfg
