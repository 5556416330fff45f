"""Rule sets as data: the four presets of RULES.md plus per-rule overrides.

A `RuleSet` is a frozen bundle of choices; the engine reads it and never
branches on a preset's name. Overrides from `config.toml` replace fields.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from enum import Enum
from typing import Any


class ConfigError(ValueError):
    """A rule setting that makes no sense, explained in plain words for whoever set it up."""


class AceConversion(Enum):
    """How many aces are needed after a non-ace bid of quantity q."""

    FLOOR_HALF_PLUS_ONE = "floor_half_plus_one"  # chile: q//2 + 1
    CEIL_HALF = "ceil_half"  # dudo, simple: ceil(q/2)
    CEIL_HALF_PLUS_ONE = "ceil_half_plus_one"  # cachito (sucio -> limpio): ceil(q/2) + 1

    def minimum_aces(self, quantity: int) -> int:
        if self is AceConversion.FLOOR_HALF_PLUS_ONE:
            return quantity // 2 + 1
        if self is AceConversion.CEIL_HALF:
            return math.ceil(quantity / 2)
        return math.ceil(quantity / 2) + 1


class OpenWithAces(Enum):
    """Whether a normal round may be opened with aces (one-die rounds always may)."""

    NEVER = "never"
    ONE_DIE_OPENER = "one_die_opener"  # dudo (003): an opener holding a single die may


class CalzoRule(Enum):
    """When calzo may be called (by the player whose turn it is)."""

    HALF_TABLE_OR_ONE_DIE = "half_table_or_one_die"  # chile: table*2 >= original or 1 die
    MORE_THAN_HALF_TABLE = "more_than_half_table"  # dudo: table*2 > original
    FEWER_THAN_START_DICE = "fewer_than_start_dice"  # simple: caller has < start_dice
    ALWAYS = "always"  # cachito
    NEVER = "never"


class CalzoReward(Enum):
    """What a successful calzo gives."""

    UNCAPPED = "uncapped"  # chile: +1 die, may exceed start_dice
    CAPPED = "capped"  # dudo, simple: +1 die, at most start_dice
    LIVES = "lives"  # cachito: +1 life; dice above start_dice are set aside, not played


class PassHands(Enum):
    """Which five-dice hands make a valid pass (aces are never wild here)."""

    CLASSIC = "classic"  # five of a kind, five distinct faces, full house
    CACHITO = "cachito"  # four or five of a kind, 1-2-3-4-5, 2-3-4-5-6, full house


class OneDieRound(Enum):
    """The special round when a player is down to one die."""

    NONE = "none"  # simple
    OBLIGAR = "obligar"  # chile: optional, asked once per player per game
    OBLIGA = "obliga"  # dudo: automatic, the first time a player reaches one die
    PALO_FIJO = "palo_fijo"  # cachito: every time a player goes from 2 dice to 1


class DirectionPolicy(Enum):
    """Who decides the direction of play."""

    FIRST_STARTER_CHOOSES = "first_starter_chooses"  # chile: once, for the whole game
    CLOCKWISE = "clockwise"  # dudo, simple: always a la izquierda
    EACH_ROUND_OPENER = "each_round_opener"  # cachito: every round's opener says it


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every rule choice the engine needs. See RULES.md for the meaning of each."""

    name: str
    start_dice: int = 5
    to_aces: AceConversion = AceConversion.FLOOR_HALF_PLUS_ONE
    open_with_aces: OpenWithAces = OpenWithAces.NEVER
    calzo: CalzoRule = CalzoRule.HALF_TABLE_OR_ONE_DIE
    calzo_reward: CalzoReward = CalzoReward.UNCAPPED
    paso: bool = True
    pass_hands: PassHands = PassHands.CLASSIC
    pass_not_after_pass: bool = False
    one_die_round: OneDieRound = OneDieRound.OBLIGAR
    direction: DirectionPolicy = DirectionPolicy.FIRST_STARTER_CHOOSES
    clean_bids: bool = False  # limpio / sucio (cachito only)
    # Optional variants, off by default.
    lose_difference: bool = False
    cross_dudo: bool = False
    hidden_counts: bool = False

    def with_overrides(self, overrides: dict[str, Any]) -> RuleSet:
        """Return a copy with config overrides applied; unknown keys or values raise ConfigError."""
        known = {f.name: f for f in fields(self)}
        changes: dict[str, Any] = {}
        for key, raw in overrides.items():
            if key not in known or key == "name":
                raise ConfigError(
                    f"Unknown rule '{key}' in [rules.overrides]. "
                    f"Known rules: {', '.join(sorted(k for k in known if k != 'name'))}."
                )
            current = getattr(self, key)
            changes[key] = _coerce(key, current, raw)
        return replace(self, **changes)


def _coerce(key: str, current: Any, raw: Any) -> Any:
    if isinstance(current, bool):
        if not isinstance(raw, bool):
            raise ConfigError(f"Rule '{key}' must be true or false, not {raw!r}.")
        return raw
    if isinstance(current, int):
        if not isinstance(raw, int) or isinstance(raw, bool) or not 1 <= raw <= 20:
            raise ConfigError(f"Rule '{key}' must be a whole number from 1 to 20, not {raw!r}.")
        return raw
    enum_type = type(current)
    try:
        return enum_type(raw)
    except ValueError:
        allowed = ", ".join(repr(m.value) for m in enum_type)
        raise ConfigError(f"Rule '{key}' cannot be {raw!r}; choose one of {allowed}.") from None


PRESETS: dict[str, RuleSet] = {
    "chile": RuleSet(name="chile"),
    "dudo": RuleSet(
        name="dudo",
        to_aces=AceConversion.CEIL_HALF,
        open_with_aces=OpenWithAces.ONE_DIE_OPENER,
        calzo=CalzoRule.MORE_THAN_HALF_TABLE,
        calzo_reward=CalzoReward.CAPPED,
        pass_not_after_pass=True,
        one_die_round=OneDieRound.OBLIGA,
        direction=DirectionPolicy.CLOCKWISE,
    ),
    "simple": RuleSet(
        name="simple",
        to_aces=AceConversion.CEIL_HALF,
        calzo=CalzoRule.FEWER_THAN_START_DICE,
        calzo_reward=CalzoReward.CAPPED,
        paso=False,
        one_die_round=OneDieRound.NONE,
        direction=DirectionPolicy.CLOCKWISE,
    ),
    "cachito": RuleSet(
        name="cachito",
        to_aces=AceConversion.CEIL_HALF_PLUS_ONE,
        calzo=CalzoRule.ALWAYS,
        calzo_reward=CalzoReward.LIVES,
        pass_hands=PassHands.CACHITO,
        one_die_round=OneDieRound.PALO_FIJO,
        direction=DirectionPolicy.EACH_ROUND_OPENER,
        clean_bids=True,
    ),
}


def make_rules(preset: str = "chile", overrides: dict[str, Any] | None = None) -> RuleSet:
    """The preset named in config.toml with its overrides applied."""
    try:
        base = PRESETS[preset]
    except KeyError:
        raise ConfigError(
            f"Unknown rule preset '{preset}'. Choose one of: {', '.join(PRESETS)}."
        ) from None
    return base.with_overrides(overrides or {})
