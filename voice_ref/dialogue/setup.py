"""The table: who plays, which rules, who starts — checked once, when the game is set up.

`TableSetup` is the game log's header. Everything a config file or a command line
can get wrong (two players with one name, an unknown preset, a starter nobody is
called) is refused here with a plain-words `ConfigError`, so the referee never
checks it again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from voice_ref.language.vocabulary import dialect_faces
from voice_ref.rules.moves import Direction
from voice_ref.rules.variants import ConfigError, RuleSet, make_rules


class StarterPolicy(StrEnum):
    """How the first round's opener is found when no player is named."""

    ASK = "ask"
    ROLL = "roll"
    RANDOM = "random"


STARTER_POLICIES = tuple(p.value for p in StarterPolicy)


@dataclass(frozen=True)
class TableSetup:
    """Everything needed to start (or replay) a game; it is the game log's header."""

    players: tuple[str, ...]
    preset: str = "chile"
    overrides: dict[str, Any] = field(default_factory=dict)
    starter: str = "ask"  # a player's name, "ask", "roll" or "random"
    direction: str | None = None  # "izquierda", "derecha", or None to ask
    seed: int | None = None
    dialect: str = "chile"
    dialect_faces: dict[int, str] = field(default_factory=dict)
    rules: RuleSet = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        players = tuple(p.strip() for p in self.players)
        if len(players) < 2 or any(not p for p in players):
            raise ConfigError("A game needs at least two players with non-empty names.")
        if len({p.casefold() for p in players}) != len(players):
            raise ConfigError("Two players have the same name; every name must differ.")
        object.__setattr__(self, "players", players)
        if self.starter not in STARTER_POLICIES:
            seated = self.seat(self.starter)
            if seated is None:
                raise ConfigError(
                    f"Starter {self.starter!r} is not one of the players "
                    f"({', '.join(players)}) nor 'ask', 'roll' or 'random'."
                )
            object.__setattr__(self, "starter", seated)
        if self.direction in ("ask", ""):
            object.__setattr__(self, "direction", None)
        if self.direction is not None and self.direction not in {d.value for d in Direction}:
            raise ConfigError(f"Direction must be izquierda or derecha, not {self.direction!r}.")
        # Unknown presets and overrides are refused now, not mid-game.
        object.__setattr__(self, "rules", make_rules(self.preset, self.overrides))
        faces = {int(k): str(v) for k, v in self.dialect_faces.items()}
        object.__setattr__(self, "dialect_faces", faces)
        try:
            dialect_faces(self.dialect, faces)
        except ValueError as exc:
            raise ConfigError(f"[dialect]: {exc}.") from None

    def seat(self, name: str) -> str | None:
        """The seated player's own spelling of a name ("ana" -> "Ana"), or None."""
        folded = name.strip().casefold()
        for player in self.players:
            if player.casefold() == folded:
                return player
        return None

    @property
    def fixed_starter(self) -> str | None:
        """The player named as starter in the setup, if one was."""
        return None if self.starter in STARTER_POLICIES else self.starter

    @property
    def fixed_direction(self) -> Direction | None:
        return Direction(self.direction) if self.direction else None

    def to_json(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "rules": {"preset": self.preset, "overrides": dict(self.overrides)},
            "starter": self.starter,
            "direction": self.direction,
            "seed": self.seed,
            "dialect": self.dialect,
            "dialect_faces": {str(k): v for k, v in self.dialect_faces.items()},
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> TableSetup:
        rules = obj.get("rules", {})
        return cls(
            players=tuple(obj["players"]),
            preset=rules.get("preset", "chile"),
            overrides=dict(rules.get("overrides", {})),
            starter=obj.get("starter", "ask"),
            direction=obj.get("direction"),
            seed=obj.get("seed"),
            dialect=obj.get("dialect", "chile"),
            dialect_faces=dict(obj.get("dialect_faces", {})),
        )
