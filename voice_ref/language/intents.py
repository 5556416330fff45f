"""Typed intents: what an utterance means, independent of the game state.

`to_json()` gives exactly the intent objects of the text-mode protocol
(README, "Protocol"); `intent_from_json` reads them back (labels, logs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

QueryWhat = Literal["dice", "turn", "minimum", "bid"]
ChoiceValue = Literal["abierta", "cerrada", "izquierda", "derecha"]


@dataclass(frozen=True, slots=True)
class Intent:
    """Base class. `player` is set when a player's name was spoken."""

    player: str | None = field(default=None, kw_only=True)
    type: str = field(default="", init=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        out.update(self._fields())
        if self.player is not None:
            out["player"] = self.player
        return out

    def _fields(self) -> dict[str, Any]:
        return {}



@dataclass(frozen=True, slots=True)
class BidIntent(Intent):
    quantity: int = 0
    face: int = 0  # 1..6
    clean: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "type", "bid")

    def _fields(self) -> dict[str, Any]:
        return {"quantity": self.quantity, "face": self.face, "clean": self.clean}


@dataclass(frozen=True, slots=True)
class SimpleIntent(Intent):
    """dudo, calzo, paso, yes, no, repeat, undo, new_game, none (a name alone)."""

    kind: str = "none"

    def __post_init__(self) -> None:
        object.__setattr__(self, "type", self.kind)


@dataclass(frozen=True, slots=True)
class NumberIntent(Intent):
    value: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "type", "number")

    def _fields(self) -> dict[str, Any]:
        return {"value": self.value}


@dataclass(frozen=True, slots=True)
class QueryIntent(Intent):
    """`player` is the name spoken: "¿cuántos dados tiene Ana?" -> what="dice", player="Ana"."""

    what: QueryWhat = "turn"

    def __post_init__(self) -> None:
        object.__setattr__(self, "type", "query")

    def _fields(self) -> dict[str, Any]:
        return {"what": self.what}


@dataclass(frozen=True, slots=True)
class ChoiceIntent(Intent):
    value: ChoiceValue = "izquierda"

    def __post_init__(self) -> None:
        object.__setattr__(self, "type", "choice")

    def _fields(self) -> dict[str, Any]:
        return {"value": self.value}


@dataclass(frozen=True, slots=True)
class HandIntent(Intent):
    """Five dice dictated for a pass check ("as, as, quina, sexto, sexto")."""

    faces: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "type", "hand")

    def _fields(self) -> dict[str, Any]:
        return {"faces": list(self.faces)}


@dataclass(frozen=True, slots=True)
class StarterIntent(Intent):
    """"parte Ana" / "empieza Beto": who opens the first round (uses `player`)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "type", "starter")


SIMPLE_KINDS = ("dudo", "calzo", "paso", "yes", "no", "repeat", "undo", "new_game", "none")


def intent_from_json(obj: dict[str, Any]) -> Intent:
    """Inverse of `Intent.to_json` (for labels.jsonl and game logs)."""
    kind = obj["type"]
    player = obj.get("player")
    if kind == "bid":
        return BidIntent(
            quantity=int(obj["quantity"]),
            face=int(obj["face"]),
            clean=bool(obj.get("clean", False)),
            player=player,
        )
    if kind == "number":
        return NumberIntent(value=int(obj["value"]), player=player)
    if kind == "query":
        return QueryIntent(what=obj["what"], player=player)
    if kind == "choice":
        return ChoiceIntent(value=obj["value"], player=player)
    if kind == "hand":
        return HandIntent(faces=tuple(obj["faces"]), player=player)
    if kind == "starter":
        return StarterIntent(player=player)
    if kind in SIMPLE_KINDS:
        return SimpleIntent(kind=kind, player=player)
    raise ValueError(f"unknown intent type {kind!r}")
