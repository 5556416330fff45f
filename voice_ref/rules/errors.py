"""Typed rule errors: each carries a machine-readable reason and what would be legal.

The dialogue layer turns `reason` + `details` into Spanish; the engine never
speaks. Every illegal move leaves the game unchanged.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from voice_ref.rules.bid import Bid


class Reason(Enum):
    """Why a move was refused. One prompt template per reason in prompts/es.toml."""

    NOT_YOUR_TURN = "not_your_turn"  # details: expected (player name)
    UNKNOWN_PLAYER = "unknown_player"  # details: player
    ELIMINATED_PLAYER = "eliminated_player"  # details: player
    NOT_AWAITED = "not_awaited"  # this kind of move is not what the game waits for
    GAME_OVER = "game_over"
    ZERO_QUANTITY = "zero_quantity"
    TOO_LOW = "too_low"  # details: previous (Bid); minimum_bids set
    OPEN_WITH_ACES = "open_with_aces"
    CLEAN_NOT_ALLOWED = "clean_not_allowed"  # limpio outside cachito
    FIXED_FACE = "fixed_face"  # one-die round: only a one-die player may change the face
    NO_BID_TO_CHALLENGE = "no_bid_to_challenge"  # opener tries dudo / calzo / paso
    CALZO_NOT_ALLOWED = "calzo_not_allowed"  # details: why ("table" | "dice" | "never")
    PASO_NOT_ALLOWED = "paso_not_allowed"  # details: why ("preset" | "dice" | "already" |
    #   "after_pass" | "palo_fijo")
    MUST_RAISE = "must_raise"  # everyone passed back to the bidder
    COUNT_OUT_OF_RANGE = "count_out_of_range"  # details: count, maximum
    BAD_PASS_HAND = "bad_pass_hand"  # dictated hand is not exactly five dice
    DIRECTION_NOT_AWAITED = "direction_not_awaited"
    INVALID_STARTER = "invalid_starter"  # details: player


class IllegalMove(Exception):
    """A refused move. `minimum_bids` lists the lowest legal bids when a bid was refused."""

    def __init__(
        self,
        reason: Reason,
        *,
        minimum_bids: tuple[Bid, ...] = (),
        **details: Any,
    ) -> None:
        self.reason = reason
        self.minimum_bids = minimum_bids
        self.details = details
        super().__init__(f"{reason.value}: {details}" if details else reason.value)


class IllegalBid(IllegalMove):
    """A bid that is too low, or of a kind this round or preset does not allow."""


class NotYourTurn(IllegalMove):
    """Someone other than the addressed player spoke (or an unknown / eliminated name)."""


class NotAwaited(IllegalMove):
    """The move does not answer what the game is waiting for (a pending question, game over)."""


class CannotChallenge(IllegalMove):
    """Dudo / calzo / paso refused (no standing bid, calzo or paso conditions unmet)."""


class BadAnswer(IllegalMove):
    """An answer of the right kind but an impossible value (count above the table, a 4-die hand)."""
