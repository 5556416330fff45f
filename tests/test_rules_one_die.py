"""One-die rounds: chile obligar, dudo obliga, cachito palo fijo (fine points 9-13)."""

from __future__ import annotations

import pytest
from rules_helpers import b, game

from voice_ref.rules import (
    Awaiting,
    Calzo,
    CannotChallenge,
    ChooseDirection,
    ChooseModality,
    Direction,
    Dudo,
    IllegalBid,
    Modality,
    NotAwaited,
    NotYourTurn,
    ObligarAnswer,
    Paso,
    Raise,
    Reason,
    RevealCount,
    RoundType,
)


def ana_drops_to_one(preset: str, players: int = 3, **kwargs):
    """Ana (2 dice) opens, Beto doubts, nothing matches: Ana is down to one die."""
    g = game(preset, players, dice={"Ana": 2} | kwargs.pop("dice", {}), **kwargs)
    g.push(Raise(b("4 quinas")))
    g.push(Dudo())
    out = g.push(RevealCount(0))
    assert g.dice("Ana") == 1 and out.starter == "Ana"
    return g, out


def test_chile_obligar_yes_flow() -> None:
    g, out = ana_drops_to_one("chile")
    assert g.awaiting is Awaiting.OBLIGAR and g.addressed == "Ana"
    with pytest.raises(NotYourTurn):
        g.push(ObligarAnswer(True, by="Beto"))
    with pytest.raises(NotAwaited):
        g.push(Raise(b("1 quinas")))
    g.push(ObligarAnswer(True))
    assert g.awaiting is Awaiting.MODALITY and g.round_type is RoundType.OBLIGAR
    g.push(ChooseModality(Modality.OPEN))
    assert g.awaiting is Awaiting.BID and g.modality is Modality.OPEN and g.turn == "Ana"
    g.push(Raise(b("2 ases")))  # aces may open a one-die round
    assert not g.aces_count_for(b("3 quinas"))
    out = g.push(Dudo())
    assert not out.challenge.wild_aces  # nothing is wild in an obligar round
    out = g.push(RevealCount(2))
    assert out.round_type is RoundType.NORMAL and g.round_type is RoundType.NORMAL
    assert g.modality is None


def test_chile_obligar_no_uses_up_the_chance() -> None:
    g, _ = ana_drops_to_one("chile")
    g.push(ObligarAnswer(False))
    assert g.awaiting is Awaiting.BID and g.round_type is RoundType.NORMAL
    assert "Ana" in g.obligar_used
    assert not g.is_legal(Raise(b("1 ases")))  # normal round: no aces opening
    # Ana wins a die back with a calzo (one die: allowed), then drops to one again.
    g.push(Raise(b("1 quinas")))
    g.push(Raise(b("2 quinas")))
    g.push(Raise(b("3 quinas")))
    g.push(Calzo())
    g.push(RevealCount(3))
    assert g.dice("Ana") == 2 and g.starter == "Ana"
    g.push(Raise(b("4 quinas")))
    g.push(Dudo())
    out = g.push(RevealCount(0))
    assert g.dice("Ana") == 1 and out.round_type is RoundType.NORMAL
    assert g.awaiting is Awaiting.BID  # no second "¿Obligas?"


def test_chile_obligar_asked_only_once_per_player() -> None:
    g, _ = ana_drops_to_one("chile", dice={"Beto": 2})
    g.push(ObligarAnswer(True))
    g.push(ChooseModality(Modality.CLOSED))
    g.push(Raise(b("1 quinas")))
    g.push(Dudo())  # Beto doubts and is wrong: Beto 2 -> 1, his own first time
    out = g.push(RevealCount(1))
    assert out.starter == "Beto" and g.awaiting is Awaiting.OBLIGAR and g.addressed == "Beto"
    g.push(ObligarAnswer(False))
    g.push(Raise(b("1 quinas")))  # Beto
    g.push(Raise(b("2 quinas")))  # Carla
    g.push(Raise(b("2 sextos")))  # Ana
    g.push(Dudo())  # Beto doubts Ana, wrong: Beto is out
    out = g.push(RevealCount(3))
    assert out.eliminated == ("Beto",) and out.starter == "Carla"
    assert g.awaiting is Awaiting.BID


def test_one_die_round_face_is_fixed_for_players_with_more_dice() -> None:
    g, _ = ana_drops_to_one("chile")
    g.push(ObligarAnswer(True))
    g.push(ChooseModality(Modality.CLOSED))
    g.push(Raise(b("2 quinas")))
    assert g.minimum_bids() == (b("3 quinas"),)  # Beto has 5 dice
    with pytest.raises(IllegalBid) as err:
        g.push(Raise(b("3 sextos")))
    assert err.value.reason is Reason.FIXED_FACE and err.value.minimum_bids == (b("3 quinas"),)
    with pytest.raises(IllegalBid) as err:
        g.push(Raise(b("2 quinas")))
    assert err.value.reason is Reason.TOO_LOW
    g.push(Raise(b("3 quinas")))


def test_one_die_player_may_change_face_in_plain_order() -> None:
    g, _ = ana_drops_to_one("chile", dice={"Beto": 1})
    g.push(ObligarAnswer(True))
    g.push(ChooseModality(Modality.CLOSED))
    g.push(Raise(b("2 trenes")))
    # Beto has one die: plain order, As lowest, no halving.
    assert g.minimum_bids() == (
        b("3 ases"), b("3 tontos"), b("3 trenes"), b("2 cuadras"), b("2 quinas"), b("2 sextos"),
    )  # fmt: skip
    assert not g.is_legal(Raise(b("2 ases")))
    assert not g.is_legal(Raise(b("2 tontos")))
    g.push(Raise(b("2 sextos")))
    assert g.bid.face.name == "SEXTO"
    assert g.minimum_bids() == (b("3 sextos"),)  # Carla: the new face is the fixed one


@pytest.mark.parametrize("preset", ["chile", "dudo"])
def test_passing_is_allowed_in_obligar_rounds(preset: str) -> None:
    g, _ = ana_drops_to_one(preset)
    if preset == "chile":
        g.push(ObligarAnswer(True))
    g.push(ChooseModality(Modality.OPEN))
    g.push(Raise(b("2 quinas")))
    g.push(Paso())
    assert g.last_pass_by == "Beto"


def test_dudo_obliga_is_automatic_once() -> None:
    g, out = ana_drops_to_one("dudo")
    assert out.round_type is RoundType.OBLIGAR and "Ana" in g.obligar_used
    assert g.awaiting is Awaiting.MODALITY and g.addressed == "Ana"  # no "¿Obligas?"
    g.push(ChooseModality(Modality.OPEN))
    g.push(Raise(b("1 ases")))
    g.push(Raise(b("2 ases")))  # Beto keeps the face
    g.push(Raise(b("3 ases")))  # Carla
    g.push(Calzo())  # Ana, exact: back to two dice
    g.push(RevealCount(3))
    assert g.dice("Ana") == 2 and g.round_type is RoundType.NORMAL
    g.push(Raise(b("4 quinas")))
    g.push(Dudo())
    out = g.push(RevealCount(0))  # Ana reaches one die a second time
    assert out.round_type is RoundType.NORMAL and g.awaiting is Awaiting.BID
    assert g.is_legal(Raise(b("1 ases")))  # dudo: a one-die opener may open with aces
    assert g.minimum_bids()[0] == b("1 ases")


def test_cachito_palo_fijo_every_time_two_to_one() -> None:
    g, out = ana_drops_to_one("cachito")
    assert out.round_type is RoundType.PALO_FIJO
    assert g.awaiting is Awaiting.DIRECTION and g.addressed == "Ana"  # no modality question
    g.push(ChooseDirection(Direction.LEFT))
    assert g.awaiting is Awaiting.BID
    g.push(Raise(b("1 ases")))  # the opener may open with aces
    assert g.bid.clean
    g.push(Raise(b("2 ases")))
    with pytest.raises(CannotChallenge) as err:
        g.push(Paso())
    assert err.value.details["why"] == "palo_fijo"
    g.push(Raise(b("3 ases")))  # Carla
    g.push(Dudo())  # Ana (one die) doubts
    assert g.challenge.wild_aces is False
    g.push(RevealCount(4))  # Ana wrong: eliminated
    assert g.dice("Ana") == 0


def test_cachito_one_die_player_cannot_change_face_in_palo_fijo() -> None:
    g, _ = ana_drops_to_one("cachito", dice={"Beto": 1})
    g.push(ChooseDirection(Direction.LEFT))
    g.push(Raise(b("2 trenes")))
    assert g.bid == b("2 trenes limpio")  # palo fijo bids are all limpio
    assert g.minimum_bids() == (b("3 trenes limpio"),)
    with pytest.raises(IllegalBid) as err:
        g.push(Raise(b("2 sextos")))
    assert err.value.reason is Reason.FIXED_FACE


def test_cachito_palo_fijo_again_after_regaining_a_die() -> None:
    g, _ = ana_drops_to_one("cachito")
    g.push(ChooseDirection(Direction.LEFT))
    g.push(Raise(b("1 quinas")))
    g.push(Raise(b("2 quinas")))
    g.push(Raise(b("3 quinas")))
    g.push(Dudo())  # Ana doubts Carla and is right
    g.push(RevealCount(0))
    assert g.round_type is RoundType.NORMAL and g.starter == "Carla"
    g.push(ChooseDirection(Direction.RIGHT))  # Carla chooses a la derecha: next is Beto
    g.push(Raise(b("2 quinas")))
    assert g.turn == "Beto"
    g.push(Raise(b("3 quinas")))
    g.push(Calzo())  # Ana
    out = g.push(RevealCount(3))
    assert g.dice("Ana") == 2 and out.starter == "Ana" and out.round_type is RoundType.NORMAL
    g.push(ChooseDirection(Direction.LEFT))
    g.push(Raise(b("2 quinas")))
    g.push(Dudo())  # Beto doubts
    out = g.push(RevealCount(0))
    assert out.round_type is RoundType.PALO_FIJO  # 2 -> 1 again: palo fijo again


def test_cachito_no_palo_fijo_when_opening_only_because_of_an_elimination() -> None:
    g = game("cachito", 3, dice={"Ana": 1, "Beto": 1})
    g.push(Raise(b("2 quinas")))
    g.push(Dudo())
    out = g.push(RevealCount(0))  # Ana eliminated, Beto (one die) opens
    assert out.eliminated == ("Ana",) and out.starter == "Beto"
    assert out.round_type is RoundType.NORMAL


def test_simple_has_no_one_die_round() -> None:
    g, out = ana_drops_to_one("simple")
    assert out.round_type is RoundType.NORMAL and g.awaiting is Awaiting.BID
    assert not g.is_legal(Raise(b("1 ases")))
