"""Next starter, eliminations, winner, cachito direction and the optional variants."""

from __future__ import annotations

import math

import pytest
from rules_helpers import b, game

from voice_ref.rules import (
    Awaiting,
    Calzo,
    ChallengeKind,
    ChooseDirection,
    Direction,
    Dudo,
    Face,
    Game,
    NotAwaited,
    NotYourTurn,
    Paso,
    Raise,
    Reason,
    RevealCount,
    count_logp,
    count_matching,
    make_rules,
    plausible_count,
)

# (direction, loser, expected starter) with 4 players Ana Beto Carla Dani, loser has 1 die.
NEXT_STARTER = [
    (Direction.LEFT, "Beto", "Carla"),
    (Direction.RIGHT, "Beto", "Ana"),
    (Direction.LEFT, "Dani", "Ana"),  # wraps around
    (Direction.RIGHT, "Ana", "Dani"),
]


@pytest.mark.parametrize(("direction", "loser", "starter"), NEXT_STARTER)
def test_next_starter_after_an_elimination(direction, loser, starter) -> None:
    g = game("chile", 4, dice={loser: 1}, starter=loser, direction=direction)
    g.push(Raise(b("9 quinas")))
    g.push(Dudo())
    out = g.push(RevealCount(0))
    assert out.eliminated == (loser,) and out.starter == starter and g.turn == starter
    assert loser not in g.active_players


def test_next_starter_skips_already_eliminated_seats() -> None:
    g = game("chile", 4, dice={"Beto": 1, "Carla": 0})
    g.push(Raise(b("2 quinas")))  # Ana
    g.push(Raise(b("3 quinas")))  # Beto
    assert g.turn == "Dani"  # Carla skipped
    g.push(Raise(b("4 quinas")))
    g.push(Raise(b("5 quinas")))  # Ana
    g.push(Dudo())  # Beto doubts, is wrong: out
    out = g.push(RevealCount(5))
    assert out.eliminated == ("Beto",) and out.starter == "Dani"


def test_winner_and_game_over() -> None:
    g = game("dudo", 3, dice={"Beto": 0, "Carla": 1})
    g.push(Raise(b("2 quinas")))
    assert g.turn == "Carla"
    g.push(Dudo())
    out = g.push(RevealCount(2))
    assert out.eliminated == ("Carla",) and out.winner == "Ana" and not out.new_round
    assert g.winner == "Ana" and g.active_players == ("Ana",)
    assert g.awaiting is Awaiting.GAME_OVER and g.turn is None
    assert g.legal_moves() == () and g.minimum_bids() == ()
    with pytest.raises(NotAwaited) as err:
        g.push(Raise(b("3 quinas")))
    assert err.value.reason is Reason.GAME_OVER


def test_cachito_asks_the_direction_every_round() -> None:
    g = Game(["Ana", "Beto", "Carla"], make_rules("cachito"), starter="Ana")
    assert g.awaiting is Awaiting.DIRECTION
    with pytest.raises(NotYourTurn):
        g.push(ChooseDirection(Direction.RIGHT, by="Beto"))
    g.push(ChooseDirection(Direction.RIGHT))
    g.push(Raise(b("2 quinas")))
    assert g.turn == "Carla"
    with pytest.raises(NotAwaited) as err:
        g.push(ChooseDirection(Direction.LEFT))  # a direction word mid-round
    assert err.value.reason is Reason.DIRECTION_NOT_AWAITED
    g.push(Dudo())
    g.push(RevealCount(0))
    assert g.awaiting is Awaiting.DIRECTION and g.addressed == "Ana"
    g.push(ChooseDirection(Direction.LEFT))
    g.push(Raise(b("2 quinas")))
    assert g.turn == "Beto"


def test_cachito_first_round_direction_given_is_not_asked() -> None:
    g = game("cachito", 3, direction=Direction.RIGHT)
    assert g.awaiting is Awaiting.BID and g.direction is Direction.RIGHT


def test_chile_direction_is_chosen_once_for_the_game() -> None:
    g = Game(["Ana", "Beto", "Carla"], make_rules("chile"), starter="Ana")
    g.push(ChooseDirection(Direction.RIGHT))
    g.push(Raise(b("2 quinas")))
    g.push(Dudo())
    g.push(RevealCount(0))
    assert g.awaiting is Awaiting.BID and g.direction is Direction.RIGHT


# lose_difference: (count, bid quantity 5, loser, dice lost)
DIFFERENCE = [(2, "Ana", 3), (4, "Ana", 1), (5, "Beto", 1), (7, "Beto", 2)]


@pytest.mark.parametrize(("count", "loser", "lost"), DIFFERENCE)
def test_lose_difference(count: int, loser: str, lost: int) -> None:
    g = game("dudo", 3, lose_difference=True)
    g.push(Raise(b("5 quinas")))
    g.push(Dudo())
    out = g.push(RevealCount(count))
    assert out.dice_changes == ((loser, -lost),) and g.dice(loser) == 5 - lost


def test_lose_difference_never_goes_below_zero_and_spends_lives_first() -> None:
    g = game("dudo", 3, lose_difference=True, dice={"Ana": 2})
    g.push(Raise(b("9 quinas")))
    g.push(Dudo())
    out = g.push(RevealCount(0))
    assert out.dice_changes == (("Ana", -2),) and out.eliminated == ("Ana",)
    g = game("cachito", 3, lose_difference=True, dice={"Ana": 7})
    g.push(Raise(b("9 quinas")))
    g.push(Dudo())
    g.push(RevealCount(6))  # 3 lives lost: 7 -> 4
    assert g.dice("Ana") == 4 and g.dice_in_cup("Ana") == 4


def test_lose_difference_does_not_touch_calzo() -> None:
    g = game("cachito", 3, lose_difference=True)
    g.push(Raise(b("5 quinas")))
    g.push(Calzo())
    out = g.push(RevealCount(1))
    assert out.dice_changes == (("Beto", -1),)


def test_cross_dudo_any_player_any_time() -> None:
    g = game("dudo", 4, cross_dudo=True)
    g.push(Raise(b("3 quinas")))  # Ana; Beto on turn
    assert not g.is_legal(Dudo(by="Ana"))  # nobody doubts their own bid
    out = g.push(Dudo(by="Dani"))
    assert out.challenge.kind is ChallengeKind.DUDO
    assert out.challenge.challenger == "Dani" and out.challenge.bidder == "Ana"
    out = g.push(RevealCount(3))  # Dani was wrong, loses and starts
    assert out.dice_changes == (("Dani", -1),) and out.starter == "Dani"


def test_cross_dudo_after_a_pass_doubts_the_bid_not_the_pass() -> None:
    g = game("chile", 4, cross_dudo=True)
    g.push(Raise(b("3 quinas")))
    g.push(Paso())  # Beto
    out = g.push(Dudo(by="Dani"))  # out of turn: doubts Ana's bid
    assert out.challenge.kind is ChallengeKind.DUDO and out.challenge.bidder == "Ana"


def test_without_cross_dudo_only_the_player_on_turn_doubts() -> None:
    g = game("dudo", 4)
    g.push(Raise(b("3 quinas")))
    with pytest.raises(NotYourTurn):
        g.push(Dudo(by="Dani"))


def test_count_or_pass_check_may_be_answered_by_anyone_active() -> None:
    g = game("chile", 3)
    g.push(Raise(b("3 quinas")))
    g.push(Dudo())
    g.push(RevealCount(1, by="Carla"))
    assert g.dice("Ana") == 4


# RULES.md cachito example: hands 1-4-4-5-6 / 2-3-4-5-5 / 1-1-5-6-6.
CACHITO_TABLE = [1, 4, 4, 5, 6, 2, 3, 4, 5, 5, 1, 1, 5, 6, 6]


@pytest.mark.parametrize(
    ("bid", "count"),
    [("3 ases", 3), ("4 tontos", 4), ("6 cuadras", 6), ("7 quinas", 7), ("6 cenas", 6),
     ("4 trenes", 4), ("1 trenes limpio", 1)],
)  # fmt: skip
def test_cachito_worked_example_counts(bid: str, count: int) -> None:
    g = game("cachito", 3)
    if b(bid).face is Face.AS:
        g.push(Raise(b("1 tontos")))
    g.push(Raise(b(bid)))
    g.push(Dudo())
    ch = g.challenge
    assert count_matching(CACHITO_TABLE, ch.bid.face, wild_aces=ch.wild_aces) == count
    out = g.push(RevealCount(count))
    assert not out.challenge_succeeded  # each bid is exactly true: the doubter loses


@pytest.mark.parametrize(
    ("bid", "wild"),
    [("3 quinas", True), ("3 ases", False), ("3 quinas limpio", False), ("1 trenes", True)],
)  # fmt: skip
def test_aces_count_for_says_what_the_count_will_use(bid: str, wild: bool) -> None:
    g = game("cachito", 3)
    if b(bid).face is Face.AS:
        g.push(Raise(b("1 tontos")))
    assert g.aces_count_for(b(bid)) is wild
    g.push(Raise(b(bid)))
    assert g.push(Dudo()).challenge.wild_aces is wild


@pytest.mark.parametrize(
    ("dice", "wild", "low", "high"),
    [(15, True, 8.6, 8.7), (15, False, 5.3, 5.4), (5, True, 3.7, 3.8), (30, True, 15.1, 15.2),
     (1, False, 0.9, 1.0)],
)  # fmt: skip
def test_plausible_count_is_the_mean_plus_two_deviations(
    dice: int, wild: bool, low: float, high: float
) -> None:
    assert low <= plausible_count(dice, wild_aces=wild) <= high


def test_two_player_games_keep_calzo_paso_and_obligar() -> None:
    g = game("chile", 2, dice={"Ana": 2})  # 7 of 10 dice on the table
    g.push(Raise(b("2 quinas")))
    assert g.is_legal(Calzo()) and g.is_legal(Paso())
    g.push(Calzo())  # Beto, wrong
    g.push(RevealCount(1))
    g.push(Raise(b("2 quinas")))  # Beto opens
    g.push(Dudo())  # Ana doubts, wrong: 2 -> 1
    out = g.push(RevealCount(4))
    assert out.starter == "Ana" and g.awaiting is Awaiting.OBLIGAR


@pytest.mark.parametrize(("dice", "wild"), [(1, True), (5, False), (15, True), (30, False)])
def test_count_logp_is_a_distribution_over_the_dice(dice: int, wild: bool) -> None:
    total = sum(math.exp(count_logp(k, dice, wild_aces=wild)) for k in range(dice + 1))
    assert total == pytest.approx(1.0)
    assert count_logp(dice + 1, dice, wild_aces=wild) == -math.inf
    assert count_logp(-1, dice, wild_aces=wild) == -math.inf
