"""The text-mode protocol: one JSON object per utterance (`voice-ref play --text --json`).

    {"heard": str|null, "intent": object|null, "accepted": bool, "say": str,
     "state": {"players": [{"name", "dice", "active"}], "turn", "bid", "dice_on_table",
               "round", "direction", "awaiting", "winner"}}

`direction` is null until a direction has been chosen (or fixed by the rules).

`Reply` is what the referee returns for every utterance; the voice layer reads the
same object (plus the `urgent` / `kind` hints) to decide how to announce it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from voice_ref.language.intents import Intent
from voice_ref.rules.game import Game


def state_json(game: Game, *, turn: str | None = None) -> dict[str, Any]:
    """The protocol's `state` object. `turn` overrides who is addressed (the dice roll)."""
    if turn is None:
        turn = game.turn if game.turn is not None else game.addressed
    bid = game.bid
    return {
        "players": [
            {"name": name, "dice": game.dice(name), "active": name in game.active_players}
            for name in game.players
        ],
        "turn": turn,
        "bid": None
        if bid is None
        else {
            "quantity": bid.quantity,
            "face": int(bid.face),
            "clean": bid.clean,
            "by": game.bidder,
        },
        "dice_on_table": game.dice_on_table,
        "round": game.round_type.value,
        "direction": game.direction.value if game.direction is not None else None,
        "awaiting": game.awaiting.value,
        "winner": game.winner,
    }


class LineKind(StrEnum):
    """What a reply is, for the announcer (a StrEnum: it still equals the plain strings)."""

    ROUTINE = "routine"  # a bid echo or a pass: short, said after every turn
    CHALLENGE = "challenge"  # dudo / calzo: urgent
    RESULT = "result"  # the outcome of a count or a pass check
    QUESTION = "question"
    REJECT = "reject"
    QUERY = "query"
    GAME_OVER = "game_over"


@dataclass(frozen=True)
class Reply:
    """The referee's answer to one utterance.

    `accepted` is False when the utterance was refused and nothing changed.
    `kind` tells the announcer what this is ("routine" bid echo, "challenge",
    "result", "question", "reject", "query", "game_over"); `urgent` lines should
    interrupt whatever is being said.
    """

    heard: str | None
    intent: Intent | None
    accepted: bool
    say: str
    state: dict[str, Any]
    kind: str = LineKind.ROUTINE
    urgent: bool = False

    @property
    def short(self) -> bool:
        """Routine lines are short; the announcer may speak them faster."""
        return self.kind == LineKind.ROUTINE

    def to_json(self) -> dict[str, Any]:
        return {
            "heard": self.heard,
            "intent": self.intent.to_json() if self.intent is not None else None,
            "accepted": self.accepted,
            "say": self.say,
            "state": self.state,
        }
