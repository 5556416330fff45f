"""Calzo: when it may be called (fine point 19) and what it gives (fine point 18)."""

from __future__ import annotations

import pytest
from rules_helpers import b, game

from voice_ref.rules import (
    Calzo,
    CannotChallenge,
    ChallengeKind,
    Dudo,
    NotYourTurn,
    Paso,
    Raise,
    Reason,
    RevealCount,
)


def table(total: int, beto: int) -> dict[str, int]:
    """Dice for Ana, Beto, Carla, Dani: Beto has `beto`, the others share the rest (<= 5 each)."""
    rest = total - beto
    others = [min(5, rest - 2 * (rest // 3)), rest // 3, rest // 3]
    assert sum(others) == rest and all(1 <= n <= 5 for n in others)
    return {"Ana": others[0], "Beto": beto, "Carla": others[1], "Dani": others[2]}


# 4 players, 20 dice at the start. (preset, dice on table, Beto's dice, allowed?, why)
THRESHOLDS = [
    ("chile", 20, 5, True, None),
    ("chile", 10, 2, True, None),  # table x 2 >= 20
    ("chile", 9, 2, False, "table"),
    ("chile", 9, 1, True, None),  # caller with one die
    ("chile", 4, 1, True, None),
    ("dudo", 11, 2, True, None),  # table x 2 > 20
    ("dudo", 10, 2, False, "table"),
    ("dudo", 10, 1, False, "table"),  # no one-die exception
    ("simple", 20, 5, False, "dice"),  # caller needs fewer than start_dice
    ("simple", 19, 4, True, None),
    ("simple", 4, 1, True, None),
    ("cachito", 20, 5, True, None),
    ("cachito", 4, 1, True, None),
]


@pytest.mark.parametrize(("preset", "total", "beto", "allowed", "why"), THRESHOLDS)
def test_calzo_conditions_four_players(preset, total, beto, allowed, why) -> None:
    g = game(preset, 4, dice=table(total, beto))
    assert g.original_dice == 20 and g.dice_on_table == total
    g.push(Raise(b("2 quinas")))
    assert g.is_legal(Calzo()) is allowed
    if not allowed:
        with pytest.raises(CannotChallenge) as err:
            g.push(Calzo())
        assert err.value.reason is Reason.CALZO_NOT_ALLOWED and err.value.details["why"] == why


def test_calzo_thresholds_use_the_start_of_the_game_with_start_dice_override() -> None:
    g = game("dudo", 2, start_dice=3, dice={"Ana": 2, "Beto": 2})  # 4 of 6 on the table
    g.push(Raise(b("2 quinas")))
    assert g.is_legal(Calzo())
    g = game("dudo", 2, start_dice=3, dice={"Ana": 2, "Beto": 1})  # 3 of 6: not more than half
    g.push(Raise(b("2 quinas")))
    assert not g.is_legal(Calzo())


# (preset, caller's dice, exact?, caller's dice after, in cup after, notes)
REWARDS = [
    ("chile", 5, True, 6, 6, ()),  # uncapped
    ("chile", 3, True, 4, 4, ()),
    ("chile", 5, False, 4, 4, ()),
    ("dudo", 5, True, 5, 5, ("calzo_at_cap",)),
    ("dudo", 4, True, 5, 5, ()),
    ("dudo", 4, False, 3, 3, ()),
    ("simple", 4, True, 5, 5, ()),
    ("simple", 3, False, 2, 2, ()),
    ("cachito", 5, True, 6, 5, ()),  # a life set aside, not played
    ("cachito", 1, True, 2, 2, ()),
    ("cachito", 6, False, 5, 5, ()),  # losing with lives above 5 removes a set-aside die
]


@pytest.mark.parametrize(("preset", "dice", "exact", "after", "cup", "notes"), REWARDS)
def test_calzo_rewards(preset, dice, exact, after, cup, notes) -> None:
    g = game(preset, 3, dice={"Beto": dice})
    g.push(Raise(b("3 quinas")))
    out = g.push(Calzo())
    assert out.challenge.kind is ChallengeKind.CALZO and out.challenge.challenger == "Beto"
    out = g.push(RevealCount(3 if exact else 2))
    assert out.challenge_succeeded is exact
    assert g.dice("Beto") == after and g.dice_in_cup("Beto") == cup
    assert g.dice("Ana") == 5  # the bidder never gains or loses
    assert out.notes == notes
    assert out.starter == "Beto"  # the caller starts, even at the cap (fine point 18)
    assert g.dice_on_table == sum(g.dice_in_cup(p) for p in g.players)


def test_only_the_player_on_turn_may_calzo() -> None:
    g = game("cachito", 3)
    g.push(Raise(b("3 quinas")))
    with pytest.raises(NotYourTurn):
        g.push(Calzo(by="Carla"))
    g.push(Calzo(by="Beto"))


def test_calzo_after_a_pass_is_on_the_standing_bid() -> None:
    g = game("chile", 3)
    g.push(Raise(b("3 quinas")))
    g.push(Paso())
    out = g.push(Calzo())
    assert out.challenge.kind is ChallengeKind.CALZO
    assert out.challenge.bidder == "Ana" and out.challenge.bid == b("3 quinas")


def test_bidder_cannot_calzo_own_bid_after_everyone_passed() -> None:
    g = game("chile", 2)
    g.push(Raise(b("3 quinas")))
    g.push(Paso())
    with pytest.raises(CannotChallenge) as err:
        g.push(Calzo())
    assert err.value.reason is Reason.MUST_RAISE
    with pytest.raises(CannotChallenge):
        g.push(Dudo())
