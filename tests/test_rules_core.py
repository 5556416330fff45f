"""The basic flow every preset shares: starter, direction, bids, dudo, count, new round."""

from __future__ import annotations

import pytest
from rules_helpers import b, game

from voice_ref.rules import (
    Awaiting,
    BadAnswer,
    Calzo,
    ChooseDirection,
    ChooseStarter,
    ConfigError,
    Direction,
    Dudo,
    Game,
    IllegalMove,
    NotAwaited,
    NotYourTurn,
    Paso,
    Raise,
    Reason,
    RevealCount,
    make_rules,
)


def test_start_flow_chile_asks_starter_then_direction() -> None:
    g = Game(["Ana", "Beto", "Carla"], make_rules("chile"))
    assert g.awaiting is Awaiting.STARTER and g.turn is None
    g.push(ChooseStarter("Beto"))
    assert g.awaiting is Awaiting.DIRECTION and g.turn == "Beto"
    g.push(ChooseDirection(Direction.RIGHT))
    assert g.awaiting is Awaiting.BID and g.turn == "Beto"
    g.push(Raise(b("2 quinas")))
    assert g.turn == "Ana"  # a la derecha: counter-clockwise from Beto


@pytest.mark.parametrize("preset", ["dudo", "simple"])
def test_clockwise_presets_never_ask_direction(preset: str) -> None:
    g = Game(["Ana", "Beto"], make_rules(preset))
    g.push(ChooseStarter("Ana"))
    assert g.awaiting is Awaiting.BID and g.direction is Direction.LEFT
    with pytest.raises(NotAwaited) as err:
        g.push(ChooseDirection(Direction.RIGHT))
    assert err.value.reason is Reason.DIRECTION_NOT_AWAITED
    with pytest.raises(ConfigError):
        Game(["Ana", "Beto"], make_rules(preset), direction=Direction.RIGHT)


def test_given_starter_and_direction_go_straight_to_bidding() -> None:
    g = game("chile")
    assert g.awaiting is Awaiting.BID and g.turn == "Ana" and g.bid is None


@pytest.mark.parametrize(
    "players",
    [["Ana"], ["Ana", "Ana"], ["Ana", ""], []],
)
def test_bad_player_lists_are_config_errors(players: list[str]) -> None:
    with pytest.raises(ConfigError):
        Game(players, make_rules("chile"))


def test_unknown_starter_is_rejected_and_changes_nothing() -> None:
    g = Game(["Ana", "Beto"], make_rules("chile"))
    before = g.snapshot()
    with pytest.raises(BadAnswer) as err:
        g.push(ChooseStarter("Zoe"))
    assert err.value.reason is Reason.INVALID_STARTER
    assert g.snapshot() == before and g.move_stack == ()


def test_dudo_right_bidder_loses_and_starts() -> None:
    g = game("chile")
    g.push(Raise(b("5 quinas")))
    out = g.push(Dudo())
    assert g.awaiting is Awaiting.COUNT and out.challenge.challenger == "Beto"
    assert out.challenge.wild_aces
    out = g.push(RevealCount(4))
    assert out.resolved and out.challenge_succeeded
    assert out.dice_changes == (("Ana", -1),)
    assert out.new_round and out.starter == "Ana"
    assert g.dice("Ana") == 4 and g.dice_on_table == 14
    assert g.awaiting is Awaiting.BID and g.turn == "Ana" and g.bid is None


def test_dudo_wrong_challenger_loses_and_starts() -> None:
    g = game("chile")
    g.push(Raise(b("5 quinas")))
    g.push(Raise(b("6 quinas")))
    g.push(Dudo())  # Carla doubts Beto
    out = g.push(RevealCount(6))
    assert not out.challenge_succeeded
    assert out.dice_changes == (("Carla", -1),) and g.turn == "Carla"


def test_turn_order_and_wrong_speaker() -> None:
    g = game("chile", 4)
    g.push(Raise(b("2 trenes")))
    assert g.turn == "Beto"
    with pytest.raises(NotYourTurn) as err:
        g.push(Raise(b("3 trenes"), by="Carla"))
    assert err.value.reason is Reason.NOT_YOUR_TURN and err.value.details["expected"] == "Beto"
    with pytest.raises(NotYourTurn) as err:
        g.push(Raise(b("3 trenes"), by="Zoe"))
    assert err.value.reason is Reason.UNKNOWN_PLAYER
    g.push(Raise(b("3 trenes"), by="Beto"))
    assert g.turn == "Carla" and g.bidder == "Beto"


def test_eliminated_player_cannot_speak_and_is_skipped() -> None:
    g = game("chile", 3, dice={"Beto": 0})
    assert g.active_players == ("Ana", "Carla")
    g.push(Raise(b("2 trenes")))
    assert g.turn == "Carla"
    with pytest.raises(NotYourTurn) as err:
        g.push(Dudo(by="Beto"))
    assert err.value.reason is Reason.ELIMINATED_PLAYER


@pytest.mark.parametrize("count", [-1, 16, 100])
def test_count_out_of_range_is_rejected_and_question_stands(count: int) -> None:
    g = game("chile")
    g.push(Raise(b("5 quinas")))
    g.push(Dudo())
    before = g.snapshot()
    with pytest.raises(BadAnswer) as err:
        g.push(RevealCount(count))
    assert err.value.reason is Reason.COUNT_OUT_OF_RANGE
    assert err.value.details["maximum"] == 15
    assert g.snapshot() == before and g.awaiting is Awaiting.COUNT


def test_pending_count_accepts_only_a_count() -> None:
    g = game("chile")
    g.push(Raise(b("5 quinas")))
    g.push(Dudo())
    for move in (Raise(b("9 quinas")), Dudo(), Calzo(), Paso(), ChooseStarter("Ana")):
        with pytest.raises(NotAwaited) as err:
            g.push(move)
        assert err.value.reason is Reason.NOT_AWAITED
    g.push(RevealCount(0))
    assert g.awaiting is Awaiting.BID


@pytest.mark.parametrize("move", [Dudo(), Calzo(), Paso()])
def test_opener_cannot_challenge_or_pass(move) -> None:
    g = game("chile")
    with pytest.raises(IllegalMove) as err:
        g.push(move)
    assert err.value.reason is Reason.NO_BID_TO_CHALLENGE


def test_bid_of_zero_is_illegal() -> None:
    g = game("chile")
    with pytest.raises(IllegalMove) as err:
        g.push(Raise(b("0 quinas")))
    assert err.value.reason is Reason.ZERO_QUANTITY


def test_bid_above_the_table_is_legal() -> None:
    g = game("chile")
    g.push(Raise(b("40 sextos")))
    assert g.bid == b("40 sextos")


def test_push_pop_is_exact_undo() -> None:
    g = game("chile")
    start = g.snapshot()
    moves = [Raise(b("5 quinas")), Dudo(), RevealCount(5), Raise(b("2 tontos"))]
    states = []
    for move in moves:
        states.append(g.snapshot())
        g.push(move)
    assert g.move_stack == tuple(moves)
    for move, state in zip(reversed(moves), reversed(states), strict=True):
        assert g.pop() == move
        assert g.snapshot() == state
    assert g.snapshot() == start
    with pytest.raises(IndexError):
        g.pop()


def test_replay_rebuilds_the_same_state() -> None:
    players = ["Ana", "Beto", "Carla"]
    rules = make_rules("chile")
    moves = [
        ChooseStarter("Carla"),
        ChooseDirection(Direction.LEFT),
        Raise(b("3 sextos")),
        Dudo(),
        RevealCount(1),
    ]
    g = Game(players, rules)
    for move in moves:
        g.push(move)
    assert Game.replay(players, rules, moves).snapshot() == g.snapshot()
    assert hash(g.snapshot()) == hash(Game.replay(players, rules, moves).snapshot())


def test_two_player_game_to_the_end() -> None:
    g = game("chile", 2, dice={"Ana": 1, "Beto": 1})
    g.push(Raise(b("1 quina")))
    g.push(Dudo())
    out = g.push(RevealCount(0))
    assert out.eliminated == ("Ana",) and out.winner == "Beto"
    assert g.winner == "Beto" and g.awaiting is Awaiting.GAME_OVER and g.turn is None
    for move in (Raise(b("1 quina")), ChooseStarter("Ana"), RevealCount(0)):
        with pytest.raises(NotAwaited) as err:
            g.push(move)
        assert err.value.reason is Reason.GAME_OVER
