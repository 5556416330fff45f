"""Random legal playouts of every preset: the state stays possible, and undo is exact."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rules_helpers import NAMES

from voice_ref.rules import (
    Awaiting,
    Bid,
    Calzo,
    ChooseDirection,
    ChooseStarter,
    Direction,
    Dudo,
    Face,
    Game,
    IllegalMove,
    ObligarAnswer,
    Paso,
    PassCheck,
    Raise,
    RevealCount,
    make_rules,
)
from voice_ref.rules.variants import CalzoReward

# Moves thrown at the game at random moments: most are illegal most of the time.
NOISE = [
    Dudo(),
    Calzo(),
    Paso(),
    RevealCount(-1),
    RevealCount(99),
    PassCheck(valid=True),
    ObligarAnswer(True),
    ChooseDirection(Direction.RIGHT),
    ChooseStarter("Nadie"),
    Raise(Bid(1, Face.AS)),
    Raise(Bid(0, Face.QUINA)),
    Raise(Bid(2, Face.TREN, clean=True)),
    Dudo(by="Zoe"),
    Dudo(by="Ana"),
]

games = st.builds(
    lambda preset, n, lose_difference, cross_dudo, start_dice: Game(
        NAMES[:n],
        make_rules(
            preset,
            {
                "lose_difference": lose_difference,
                "cross_dudo": cross_dudo,
                "start_dice": start_dice,
            },
        ),
    ),
    st.sampled_from(["chile", "dudo", "simple", "cachito"]),
    st.integers(2, 5),
    st.booleans(),
    st.booleans(),
    st.sampled_from([5, 5, 3]),
)


def check_invariants(g: Game) -> None:
    rules = g.rules
    dice = {p: g.dice(p) for p in g.players}
    assert all(n >= 0 for n in dice.values())
    assert g.active_players == tuple(p for p in g.players if dice[p] > 0)
    assert g.dice_on_table == sum(g.dice_in_cup(p) for p in g.active_players)
    assert all(g.dice_in_cup(p) <= dice[p] for p in g.players)
    if rules.calzo_reward is CalzoReward.CAPPED:
        assert all(n <= rules.start_dice for n in dice.values())
    if rules.calzo_reward is CalzoReward.LIVES:
        assert all(g.dice_in_cup(p) <= rules.start_dice for p in g.players)
    over = g.awaiting is Awaiting.GAME_OVER
    assert over == (g.winner is not None) == (len(g.active_players) == 1)
    assert len(g.active_players) >= 1
    if g.winner is not None:
        assert g.active_players == (g.winner,) and g.turn is None
        assert g.legal_moves() == ()
        return
    assert g.legal_moves(), "a running game always has a legal move"
    if g.turn is not None:
        assert g.turn in g.active_players
    if g.awaiting is Awaiting.BID:
        assert g.direction is not None
        assert all(g.is_legal(Raise(bid)) for bid in g.minimum_bids())
    if g.bid is not None:
        assert g.bidder in g.active_players and g.bid.quantity >= 1
    assert g.passed_this_round <= set(g.active_players)
    if g.last_pass_by is not None:
        assert g.last_pass_by in g.passed_this_round
    assert (g.challenge is not None) == (g.awaiting in (Awaiting.COUNT, Awaiting.PASS_CHECK))


def random_move(g: Game, data: st.DataObject):
    moves = list(g.legal_moves())
    if g.awaiting is Awaiting.BID and data.draw(st.booleans()):
        base = data.draw(st.sampled_from(g.minimum_bids()))
        extra = data.draw(st.integers(0, 3))
        return Raise(Bid(base.quantity + extra, base.face, base.clean))
    return data.draw(st.sampled_from(moves))


@settings(max_examples=60, deadline=None)
@given(games, st.data())
def test_random_playouts_stay_possible_and_undo_exactly(g: Game, data: st.DataObject) -> None:
    snapshots = [g.snapshot()]
    for _ in range(data.draw(st.integers(1, 120))):
        check_invariants(g)
        if g.awaiting is Awaiting.GAME_OVER:
            break
        noise = data.draw(st.sampled_from(NOISE))
        before = g.snapshot()
        try:
            g.push(noise)
        except IllegalMove:
            assert g.snapshot() == before  # a refused move changes nothing
        else:
            snapshots.append(g.snapshot())
            continue
        move = random_move(g, data)
        g.push(move)
        snapshots.append(g.snapshot())
    check_invariants(g)
    moves = g.move_stack
    replayed = Game.replay(g.players, g.rules, moves)
    assert replayed.snapshot() == g.snapshot()
    for expected in reversed(snapshots):
        assert g.snapshot() == expected
        if g.move_stack:
            g.pop()
    assert g.move_stack == () and g.snapshot() == snapshots[0]
