"""Typed intents: what an utterance means, independent of the game state.

A closed set of small frozen classes, one per meaning (as `rules.moves` does for
moves); `Intent` is their union, so `match intent:` can dispatch on the class.
`to_json()` gives exactly the intent objects of the text-mode protocol (README,
"Protocol"); `intent_from_json` reads them back (labels, logs). Each class keeps
its protocol tag as `.type` ("bid", "dudo", ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias

QueryWhat = Literal["dice", "turn", "minimum", "bid"]
ChoiceValue = Literal["abierta", "cerrada", "izquierda", "derecha"]
QUERY_WHATS: tuple[QueryWhat, ...] = ("dice", "turn", "minimum", "bid")
CHOICE_VALUES: tuple[ChoiceValue, ...] = ("abierta", "cerrada", "izquierda", "derecha")


@dataclass(frozen=True, slots=True)
class _IntentBase:
    """Shared by every intent. `player` is set when a player's name was spoken."""

    type: ClassVar[str] = ""
    player: str | None = field(default=None, kw_only=True)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        out.update(self._fields())
        if self.player is not None:
            out["player"] = self.player
        return out

    def _fields(self) -> dict[str, Any]:
        return {}


@dataclass(frozen=True, slots=True)
class BidIntent(_IntentBase):
    """ "cinco quinas": a raise (or, while counting, "había cuatro quinas")."""

    type: ClassVar[str] = "bid"
    quantity: int = 0
    face: int = 0  # 1..6
    clean: bool = False

    def _fields(self) -> dict[str, Any]:
        return {"quantity": self.quantity, "face": self.face, "clean": self.clean}


@dataclass(frozen=True, slots=True)
class CorrectionIntent(_IntentBase):
    """ "no, dije cinco quinas": the speaker's previous bid was misheard; this is what was said.

    The referee replaces the bid it just accepted from that speaker (undo + raise).
    Protocol: `{"type":"correction","quantity":int,"face":1-6,"clean":bool}`.
    """

    type: ClassVar[str] = "correction"
    quantity: int = 0
    face: int = 0
    clean: bool = False

    @property
    def bid(self) -> BidIntent:
        """The bid meant, as a plain bid intent (same speaker)."""
        return BidIntent(self.quantity, self.face, self.clean, player=self.player)

    def _fields(self) -> dict[str, Any]:
        return {"quantity": self.quantity, "face": self.face, "clean": self.clean}


@dataclass(frozen=True, slots=True)
class DudoIntent(_IntentBase):
    type: ClassVar[str] = "dudo"


@dataclass(frozen=True, slots=True)
class CalzoIntent(_IntentBase):
    type: ClassVar[str] = "calzo"


@dataclass(frozen=True, slots=True)
class PasoIntent(_IntentBase):
    type: ClassVar[str] = "paso"


@dataclass(frozen=True, slots=True)
class YesIntent(_IntentBase):
    type: ClassVar[str] = "yes"


@dataclass(frozen=True, slots=True)
class NoIntent(_IntentBase):
    type: ClassVar[str] = "no"


@dataclass(frozen=True, slots=True)
class RepeatIntent(_IntentBase):
    type: ClassVar[str] = "repeat"


@dataclass(frozen=True, slots=True)
class UndoIntent(_IntentBase):
    type: ClassVar[str] = "undo"


@dataclass(frozen=True, slots=True)
class NewGameIntent(_IntentBase):
    type: ClassVar[str] = "new_game"


@dataclass(frozen=True, slots=True)
class NameOnlyIntent(_IntentBase):
    """A player's name said alone ("Ana"): protocol type "none"."""

    type: ClassVar[str] = "none"


@dataclass(frozen=True, slots=True)
class NumberIntent(_IntentBase):
    """A bare count ("cuatro", "no hay"): answers "¿cuántas quinas hay?"."""

    type: ClassVar[str] = "number"
    value: int = 0

    def _fields(self) -> dict[str, Any]:
        return {"value": self.value}


@dataclass(frozen=True, slots=True)
class QueryIntent(_IntentBase):
    """`player` is the name spoken: "¿cuántos dados tiene Ana?" -> what="dice", player="Ana"."""

    type: ClassVar[str] = "query"
    what: QueryWhat = "turn"

    def _fields(self) -> dict[str, Any]:
        return {"what": self.what}


@dataclass(frozen=True, slots=True)
class ChoiceIntent(_IntentBase):
    type: ClassVar[str] = "choice"
    value: ChoiceValue = "izquierda"

    def _fields(self) -> dict[str, Any]:
        return {"value": self.value}


@dataclass(frozen=True, slots=True)
class HandIntent(_IntentBase):
    """Dice dictated for a pass check ("as, as, quina, sexto, sexto")."""

    type: ClassVar[str] = "hand"
    faces: tuple[int, ...] = ()

    def _fields(self) -> dict[str, Any]:
        return {"faces": list(self.faces)}


@dataclass(frozen=True, slots=True)
class StarterIntent(_IntentBase):
    """ "parte Ana" / "empieza Beto": who opens the first round (uses `player`)."""

    type: ClassVar[str] = "starter"


Intent: TypeAlias = (
    BidIntent
    | CorrectionIntent
    | DudoIntent
    | CalzoIntent
    | PasoIntent
    | YesIntent
    | NoIntent
    | RepeatIntent
    | UndoIntent
    | NewGameIntent
    | NameOnlyIntent
    | NumberIntent
    | QueryIntent
    | ChoiceIntent
    | HandIntent
    | StarterIntent
)


def names_its_speaker(intent: Intent) -> bool:
    """Whether the intent's `player` is who spoke ("Ana, dudo") rather than whom it is
    about ("parte Ana", "¿cuántos dados tiene Ana?") or the name said alone."""
    return intent.player is not None and not isinstance(
        intent, (StarterIntent, QueryIntent, NameOnlyIntent)
    )


# Intents without fields other than `player`, by protocol tag.
_PLAIN: dict[str, type[Intent]] = {
    cls.type: cls
    for cls in (
        DudoIntent,
        CalzoIntent,
        PasoIntent,
        YesIntent,
        NoIntent,
        RepeatIntent,
        UndoIntent,
        NewGameIntent,
        NameOnlyIntent,
        StarterIntent,
    )
}
INTENT_TYPES: tuple[str, ...] = (
    "bid",
    "correction",
    "number",
    "query",
    "choice",
    "hand",
    *_PLAIN,
)


def plain_intent(kind: str, player: str | None = None) -> Intent:
    """The field-less intent with protocol tag `kind` ("dudo", "yes", "none", ...)."""
    try:
        return _PLAIN[kind](player=player)
    except KeyError:
        raise ValueError(f"{kind!r} is not a field-less intent type") from None


def intent_from_json(obj: dict[str, Any]) -> Intent:
    """Inverse of `to_json` (for labels.jsonl and game logs); ValueError if it is not one."""
    kind = obj["type"]
    player = obj.get("player")
    match kind:
        case "bid":
            return BidIntent(
                int(obj["quantity"]), int(obj["face"]), bool(obj.get("clean", False)), player=player
            )
        case "correction":
            return CorrectionIntent(
                int(obj["quantity"]), int(obj["face"]), bool(obj.get("clean", False)), player=player
            )
        case "number":
            return NumberIntent(int(obj["value"]), player=player)
        case "query":
            what = obj["what"]
            if what not in QUERY_WHATS:
                raise ValueError(f"unknown query {what!r}")
            return QueryIntent(what, player=player)
        case "choice":
            value = obj["value"]
            if value not in CHOICE_VALUES:
                raise ValueError(f"unknown choice {value!r}")
            return ChoiceIntent(value, player=player)
        case "hand":
            return HandIntent(tuple(int(f) for f in obj["faces"]), player=player)
        case _ if kind in _PLAIN:
            return plain_intent(kind, player)
    raise ValueError(f"unknown intent type {kind!r}")
