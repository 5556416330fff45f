"""Raise order and minimum bids of every preset (RULES.md "Raising", "Minimum legal bids")."""

from __future__ import annotations

import pytest
from rules_helpers import b, game

from voice_ref.rules import Face, IllegalBid, Raise, Reason


def after(preset: str, *bids: str, **kwargs):
    """A game where the given bids were made in turn (aces are not an opening: 1 tonto first)."""
    g = game(preset, 4, **kwargs)
    if bids and b(bids[0]).face is Face.AS:
        g.push(Raise(b("1 tontos")))
    for text in bids:
        g.push(Raise(b(text)))
    return g


# (preset, standing bid, new bid, legal?) -- RULES.md worked examples first.
RAISES = [
    ("chile", "5 quinas", "3 ases", True),  # floor(5/2)+1
    ("chile", "5 quinas", "2 ases", False),
    ("chile", "7 trenes", "4 ases", True),
    ("chile", "7 trenes", "3 ases", False),
    ("chile", "6 cuadras", "4 ases", True),
    ("chile", "6 cuadras", "3 ases", False),
    ("chile", "3 ases", "7 tontos", True),
    ("chile", "3 ases", "7 sextos", True),
    ("chile", "3 ases", "6 sextos", False),
    ("chile", "3 ases", "4 ases", True),
    ("chile", "3 ases", "3 ases", False),
    ("chile", "3 trenes", "3 tontos", False),  # 001
    ("chile", "3 trenes", "3 cuadras", True),
    ("chile", "3 trenes", "4 tontos", True),
    ("chile", "3 trenes", "3 trenes", False),
    ("dudo", "6 quinas", "3 ases", True),  # ceil(6/2)
    ("dudo", "6 quinas", "2 ases", False),
    ("dudo", "5 quinas", "3 ases", True),
    ("dudo", "3 ases", "7 quinas", True),
    ("dudo", "3 ases", "6 quinas", False),
    ("simple", "6 quinas", "3 ases", True),
    ("simple", "7 quinas", "3 ases", False),
    ("simple", "3 trenes", "3 tontos", False),
    ("simple", "3 trenes", "3 cuadras", True),
    # cachito: limpio / sucio
    ("cachito", "7 quinas", "5 quinas limpio", True),  # 7 sucios -> 5 limpios
    ("cachito", "7 quinas", "4 quinas limpio", False),
    ("cachito", "7 quinas", "5 tontos limpio", True),  # any face
    ("cachito", "7 quinas", "5 ases", True),  # aces are always limpio
    ("cachito", "7 quinas", "4 ases", False),
    ("cachito", "3 trenes limpio", "7 trenes", True),  # 3 limpios -> 7 sucios
    ("cachito", "3 trenes limpio", "6 sextos", False),
    ("cachito", "3 quinas limpio", "4 ases", True),  # plain order within limpio
    ("cachito", "3 quinas limpio", "3 ases", False),
    ("cachito", "3 quinas limpio", "3 sextos limpio", True),
    ("cachito", "3 ases", "3 trenes limpio", True),
    ("cachito", "3 ases", "3 trenes", False),  # sucio from limpio needs 7
    ("cachito", "3 ases", "7 trenes", True),
    ("cachito", "3 trenes", "3 cuadras", True),  # within sucio as usual
    ("cachito", "3 trenes", "3 tontos", False),
]


@pytest.mark.parametrize(("preset", "standing", "new", "legal"), RAISES)
def test_raise_table(preset: str, standing: str, new: str, legal: bool) -> None:
    g = after(preset, standing)
    assert g.is_legal(Raise(b(new))) is legal
    if legal:
        g.push(Raise(b(new)))
        assert g.bid.quantity == b(new).quantity and g.bid.face is b(new).face
    else:
        before = g.snapshot()
        with pytest.raises(IllegalBid) as err:
            g.push(Raise(b(new)))
        assert err.value.reason is Reason.TOO_LOW
        assert err.value.minimum_bids == g.minimum_bids()
        assert g.snapshot() == before


def bids(*texts: str):
    return tuple(b(t) for t in texts)


# (preset, standing bids, expected minimum bids in order: by face, sucio before limpio)
MINIMUMS = [
    ("chile", (), bids("1 tontos", "1 trenes", "1 cuadras", "1 quinas", "1 sextos")),
    (
        "chile",
        ("5 quinas",),
        bids("3 ases", "6 tontos", "6 trenes", "6 cuadras", "6 quinas", "5 sextos"),
    ),
    (
        "chile",
        ("3 ases",),
        bids("4 ases", "7 tontos", "7 trenes", "7 cuadras", "7 quinas", "7 sextos"),
    ),
    (
        "dudo",
        ("5 trenes",),
        bids("3 ases", "6 tontos", "6 trenes", "5 cuadras", "5 quinas", "5 sextos"),
    ),
    (
        "simple",
        ("6 sextos",),
        bids("3 ases", "7 tontos", "7 trenes", "7 cuadras", "7 quinas", "7 sextos"),
    ),
    (
        "cachito",
        (),
        bids(
            "1 tontos", "1 tontos limpio", "1 trenes", "1 trenes limpio", "1 cuadras",
            "1 cuadras limpio", "1 quinas", "1 quinas limpio", "1 sextos", "1 sextos limpio",
        ),
    ),
    (
        "cachito",
        ("7 quinas",),
        bids(
            "5 ases limpio", "8 tontos", "5 tontos limpio", "8 trenes", "5 trenes limpio",
            "8 cuadras", "5 cuadras limpio", "8 quinas", "5 quinas limpio", "7 sextos",
            "5 sextos limpio",
        ),
    ),
    (
        "cachito",
        ("3 quinas limpio",),
        bids(
            "4 ases limpio", "7 tontos", "4 tontos limpio", "7 trenes", "4 trenes limpio",
            "7 cuadras", "4 cuadras limpio", "7 quinas", "4 quinas limpio", "7 sextos",
            "3 sextos limpio",
        ),
    ),
]  # fmt: skip


@pytest.mark.parametrize(("preset", "standing", "expected"), MINIMUMS)
def test_minimum_bids_table(preset: str, standing: tuple[str, ...], expected) -> None:
    g = after(preset, *standing)
    assert g.minimum_bids() == expected
    for bid in expected:  # each minimum is legal, one less is not
        assert g.is_legal(Raise(bid))
        if bid.quantity > 1:
            lower = type(bid)(bid.quantity - 1, bid.face, bid.clean)
            assert not g.is_legal(Raise(lower))


@pytest.mark.parametrize("preset", ["chile", "dudo", "simple", "cachito"])
def test_no_opening_with_aces_in_a_normal_round(preset: str) -> None:
    g = game(preset, 3)
    with pytest.raises(IllegalBid) as err:
        g.push(Raise(b("2 ases")))
    assert err.value.reason is Reason.OPEN_WITH_ACES
    assert all(m.face is not Face.AS for m in err.value.minimum_bids)


def test_dudo_opener_with_one_die_may_open_with_aces() -> None:
    g = game("dudo", 3, dice={"Ana": 1})
    assert g.minimum_bids()[0] == b("1 ases")
    g.push(Raise(b("1 ases")))
    assert g.bid == b("1 ases")
    chile = game("chile", 3, dice={"Ana": 1})  # chile: only in an obligar round
    assert not chile.is_legal(Raise(b("1 ases")))


@pytest.mark.parametrize("preset", ["chile", "dudo", "simple"])
def test_limpio_outside_cachito_is_illegal(preset: str) -> None:
    g = game(preset, 3)
    with pytest.raises(IllegalBid) as err:
        g.push(Raise(b("2 quinas limpio")))
    assert err.value.reason is Reason.CLEAN_NOT_ALLOWED


def test_cachito_aces_are_always_limpio_and_limpio_openings_are_legal() -> None:
    g = game("cachito", 3)
    g.push(Raise(b("2 quinas limpio")))
    assert g.bid.clean
    g.push(Raise(b("3 ases")))  # said without "limpio"
    assert g.bid == b("3 ases limpio")
