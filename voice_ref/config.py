"""Loading config.toml into typed settings; bad values are explained in plain words."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voice_ref.rules.variants import ConfigError, RuleSet, make_rules

DEFAULT_CONFIG = Path(__file__).resolve().parent.parent / "config.toml"


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
    whisper_model: Path = Path("models/whisper-base")
    threads: int = 2
    accept_score: float = 0.5
    confirm_margin: float = 0.15


@dataclass(frozen=True)
class AudioSettings:
    input_device: str | int = ""
    output_device: str | int = ""
    holdoff_s: float = 0.3
    reask_after_s: float = 12.0
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

    @property
    def rules(self) -> RuleSet:
        return make_rules(self.preset, self.rule_overrides)

    def path(self, p: Path | str) -> Path:
        """A path from the config, resolved against the config file's folder."""
        p = Path(p).expanduser()
        return p if p.is_absolute() else self.base_dir / p


def load_config(path: Path | str | None = None) -> Config:
    """Read config.toml (default: the project's own); a missing file gives the defaults."""
    path = Path(path) if path else DEFAULT_CONFIG
    if not path.exists():
        if path == DEFAULT_CONFIG:
            return Config(base_dir=path.parent)
        raise ConfigError(f"Config file {path} does not exist.")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None
    return config_from_dict(data, base_dir=path.resolve().parent)


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
            whisper_model=Path(asr.get("whisper_model", AsrSettings.whisper_model)),
            threads=int(asr.get("threads", 2)),
            accept_score=float(asr.get("accept_score", 0.5)),
            confirm_margin=float(asr.get("confirm_margin", 0.15)),
        ),
        audio=AudioSettings(
            input_device=audio.get("input_device", ""),
            output_device=audio.get("output_device", ""),
            holdoff_s=float(audio.get("holdoff_s", 0.3)),
            reask_after_s=float(audio.get("reask_after_s", 12.0)),
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
    _ = cfg.rules  # validates preset and overrides now, not mid-game
    return cfg
