"""Paso (pass): who may pass, doubting a pass, everyone passed (RULES.md "Paso", 4-8)."""

from __future__ import annotations

import pytest
from rules_helpers import b, game

from voice_ref.rules import (
    Awaiting,
    BadAnswer,
    CannotChallenge,
    ChallengeKind,
    Dudo,
    Face,
    NotAwaited,
    Paso,
    PassCheck,
    Raise,
    Reason,
    RevealCount,
)


def refused_why(g, move) -> str:
    before = g.snapshot()
    with pytest.raises(CannotChallenge) as err:
        g.push(move)
    assert g.snapshot() == before
    assert err.value.reason is Reason.PASO_NOT_ALLOWED
    return err.value.details["why"]


def test_simple_has_no_paso() -> None:
    g = game("simple", 3)
    g.push(Raise(b("2 quinas")))
    assert refused_why(g, Paso()) == "preset"


# (preset, Beto's dice, may pass?)
DICE = [
    ("chile", 5, True),
    ("chile", 4, False),
    ("chile", 6, False),  # a chile player with 6 dice cannot pass
    ("dudo", 5, True),
    ("dudo", 3, False),
    ("cachito", 5, True),
    ("cachito", 7, True),  # 7 lives: plays 5 and may pass
    ("cachito", 4, False),
]


@pytest.mark.parametrize(("preset", "dice", "allowed"), DICE)
def test_paso_needs_five_dice_in_the_cup(preset: str, dice: int, allowed: bool) -> None:
    g = game(preset, 3, dice={"Beto": dice})
    g.push(Raise(b("2 quinas")))
    if allowed:
        g.push(Paso())
        assert g.last_pass_by == "Beto" and g.passed_this_round == {"Beto"}
        assert g.bid == b("2 quinas") and g.bidder == "Ana" and g.turn == "Carla"
    else:
        assert refused_why(g, Paso()) == "dice"


@pytest.mark.parametrize(("preset", "consecutive"), [("chile", True), ("cachito", True),
                                                     ("dudo", False)])  # fmt: skip
def test_consecutive_passes(preset: str, consecutive: bool) -> None:
    g = game(preset, 3)
    g.push(Raise(b("2 quinas")))
    g.push(Paso())
    if consecutive:
        g.push(Paso())
        assert g.passed_this_round == {"Beto", "Carla"}
    else:
        assert refused_why(g, Paso()) == "after_pass"
        g.push(Raise(b("3 quinas")))  # a raise in between makes passing possible again
        g.push(Paso())
        assert g.last_pass_by == "Ana"


def test_once_per_player_per_round_and_reset_next_round() -> None:
    g = game("chile", 3)
    g.push(Raise(b("2 quinas")))  # Ana
    g.push(Paso())  # Beto
    g.push(Raise(b("3 quinas")))  # Carla
    g.push(Raise(b("4 quinas")))  # Ana
    assert g.turn == "Beto"
    assert refused_why(g, Paso()) == "already"
    g.push(Dudo())
    g.push(RevealCount(9))  # Beto loses: 4 dice, cannot pass anyway
    assert g.passed_this_round == frozenset() and g.last_pass_by is None
    g.push(Raise(b("2 sextos")))  # Beto
    g.push(Paso())  # Carla may pass again in the new round
    assert g.passed_this_round == {"Carla"}


def test_dudo_after_a_pass_doubts_the_pass() -> None:
    g = game("chile", 3)
    g.push(Raise(b("2 quinas")))
    g.push(Paso())
    out = g.push(Dudo())
    assert out.challenge.kind is ChallengeKind.PASS_DOUBT
    assert out.challenge.bidder == "Beto" and out.challenge.challenger == "Carla"
    assert g.awaiting is Awaiting.PASS_CHECK and g.turn is None


def test_dudo_doubts_the_most_recent_pass() -> None:
    g = game("chile", 4)
    g.push(Raise(b("2 quinas")))
    g.push(Paso())
    g.push(Paso())
    out = g.push(Dudo())
    assert out.challenge.bidder == "Carla" and out.challenge.challenger == "Dani"


def test_dudo_after_a_raise_that_followed_a_pass_doubts_the_bid() -> None:
    g = game("chile", 3)
    g.push(Raise(b("2 quinas")))
    g.push(Paso())
    g.push(Raise(b("3 quinas")))
    out = g.push(Dudo())
    assert out.challenge.kind is ChallengeKind.DUDO and out.challenge.bidder == "Carla"


# (answer, passer loses?)
CHECKS = [
    (PassCheck(valid=True), False),
    (PassCheck(valid=False), True),
    (PassCheck(hand=(Face.TREN,) * 5), False),
    (PassCheck(hand=(Face.AS, Face.TONTO, Face.TREN, Face.CUADRA, Face.SEXTO)), False),
    (PassCheck(hand=(Face.AS, Face.AS, Face.TREN, Face.CUADRA, Face.SEXTO)), True),
]


@pytest.mark.parametrize(("answer", "passer_loses"), CHECKS)
def test_pass_check_outcomes(answer: PassCheck, passer_loses: bool) -> None:
    g = game("chile", 3)
    g.push(Raise(b("2 quinas")))
    g.push(Paso())
    g.push(Dudo())
    out = g.push(answer)
    loser = "Beto" if passer_loses else "Carla"
    assert out.challenge_succeeded is passer_loses
    assert out.dice_changes == ((loser, -1),) and out.starter == loser
    assert g.dice("Ana") == 5  # the bidder is not involved


def test_cachito_judges_dictated_hands_with_its_own_hand_set() -> None:
    g = game("cachito", 3)
    g.push(Raise(b("2 quinas")))
    g.push(Paso())
    g.push(Dudo())
    out = g.push(PassCheck(hand=(Face.AS, Face.TONTO, Face.TREN, Face.CUADRA, Face.SEXTO)))
    assert out.dice_changes == (("Beto", -1),)  # 1-2-3-4-6 is not valid in cachito


@pytest.mark.parametrize(
    "answer",
    [
        PassCheck(hand=(Face.TREN,) * 4),
        PassCheck(hand=(Face.TREN,) * 6),
        PassCheck(),
        PassCheck(valid=False, hand=(Face.TREN,) * 5),  # contradicts itself
    ],
)
def test_bad_pass_check_answers_are_rejected(answer: PassCheck) -> None:
    g = game("chile", 3)
    g.push(Raise(b("2 quinas")))
    g.push(Paso())
    g.push(Dudo())
    before = g.snapshot()
    with pytest.raises(BadAnswer) as err:
        g.push(answer)
    assert err.value.reason is Reason.BAD_PASS_HAND
    assert g.snapshot() == before


def test_pending_pass_check_accepts_only_its_answers() -> None:
    g = game("chile", 3)
    g.push(Raise(b("2 quinas")))
    g.push(Paso())
    g.push(Dudo())
    for move in (RevealCount(2), Dudo(), Raise(b("3 quinas"))):
        with pytest.raises(NotAwaited):
            g.push(move)


def test_everyone_passed_back_to_the_bidder_must_raise() -> None:
    g = game("chile", 3)
    g.push(Raise(b("2 quinas")))
    g.push(Paso())
    g.push(Paso())
    assert g.turn == "Ana" and g.bidder == "Ana"
    for move in (Dudo(), Paso()):
        with pytest.raises(CannotChallenge) as err:
            g.push(move)
        assert err.value.reason is Reason.MUST_RAISE
    assert not g.is_legal(Raise(b("2 quinas")))
    g.push(Raise(b("3 quinas")))
    assert g.turn == "Beto" and g.last_pass_by is None


def test_two_player_pass_sends_the_turn_back_to_the_bidder() -> None:
    g = game("chile", 2)
    g.push(Raise(b("2 quinas")))
    g.push(Paso())
    assert g.turn == "Ana" and not g.is_legal(Dudo())
    assert g.legal_moves() and all(isinstance(m, Raise) for m in g.legal_moves())
