"""Moves: everything the table can say that changes the game, as immutable values.

`by` names the player who spoke when a name was spoken ("Beto, dudo");
None means "the player being addressed" (whose turn it is, or the whole
table for a count or a pass check). RULES.md fine point 3.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from voice_ref.rules.bid import Bid
from voice_ref.rules.faces import Face


class Direction(Enum):
    """Direction of play. Seats are listed clockwise; izquierda = clockwise = list order."""

    LEFT = "izquierda"
    RIGHT = "derecha"


class Modality(Enum):
    """How an obligar / obliga round is played."""

    OPEN = "abierta"  # everyone sees the others' dice but not their own
    CLOSED = "cerrada"  # only the obligating player sees their own die


@dataclass(frozen=True, slots=True)
class Move:
    """Base of all moves; `by` is the speaker when a name was spoken."""

    by: str | None = field(default=None, kw_only=True)


@dataclass(frozen=True, slots=True)
class Raise(Move):
    """A bid (the opening bid of a round, or a raise)."""

    bid: Bid


@dataclass(frozen=True, slots=True)
class Dudo(Move):
    """Challenge the standing bid (or the most recent pass)."""


@dataclass(frozen=True, slots=True)
class Calzo(Move):
    """Claim the standing bid is exactly right."""


@dataclass(frozen=True, slots=True)
class Paso(Move):
    """Pass: claim a valid five-dice hand; the standing bid stays."""


@dataclass(frozen=True, slots=True)
class RevealCount(Move):
    """The table's answer after dudo / calzo: how many matching dice were revealed."""

    count: int


@dataclass(frozen=True, slots=True)
class PassCheck(Move):
    """The table's answer after a doubted pass: valid yes/no, or the passer's five dice."""

    valid: bool | None = None
    hand: tuple[Face, ...] | None = None


@dataclass(frozen=True, slots=True)
class ObligarAnswer(Move):
    """Answer to "¿Obligas?" (chile)."""

    obligate: bool


@dataclass(frozen=True, slots=True)
class ChooseModality(Move):
    """Answer to "¿Abierta o cerrada?"."""

    modality: Modality


@dataclass(frozen=True, slots=True)
class ChooseDirection(Move):
    """The direction, said by the player who decides it."""

    direction: Direction


@dataclass(frozen=True, slots=True)
class ChooseStarter(Move):
    """Who opens the first round ("parte Ana", or the result of the roll or draw)."""

    player: str
