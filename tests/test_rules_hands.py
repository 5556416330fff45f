"""Judging a doubted pass's five dice (RULES.md fine point 7), for both hand sets."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voice_ref.rules import Face, HandKind, classify_pass_hand, is_valid_pass_hand
from voice_ref.rules.variants import PassHands

CLASSIC, CACHITO = PassHands.CLASSIC, PassHands.CACHITO

# (hand, classic verdict, cachito verdict)
HANDS = [
    ("11111", HandKind.FIVE_OF_A_KIND, HandKind.FIVE_OF_A_KIND),
    ("66666", HandKind.FIVE_OF_A_KIND, HandKind.FIVE_OF_A_KIND),
    ("22333", HandKind.FULL_HOUSE, HandKind.FULL_HOUSE),
    ("61616", HandKind.FULL_HOUSE, HandKind.FULL_HOUSE),
    ("12345", HandKind.FIVE_DISTINCT, HandKind.STRAIGHT),
    ("65432", HandKind.FIVE_DISTINCT, HandKind.STRAIGHT),
    ("12346", HandKind.FIVE_DISTINCT, None),  # not a straight in cachito
    ("13456", HandKind.FIVE_DISTINCT, None),
    ("44441", None, HandKind.FOUR_OF_A_KIND),
    ("55552", None, HandKind.FOUR_OF_A_KIND),
    ("11234", None, None),  # aces are never wild in a pass hand
    ("11223", None, None),
    ("11122", HandKind.FULL_HOUSE, HandKind.FULL_HOUSE),
    ("34456", None, None),
    ("66612", None, None),
]


@pytest.mark.parametrize(("hand", "classic", "cachito"), HANDS)
def test_pass_hand_table(hand: str, classic, cachito) -> None:
    faces = tuple(Face(int(c)) for c in hand)
    assert classify_pass_hand(faces, CLASSIC) is classic
    assert classify_pass_hand(faces, CACHITO) is cachito
    assert is_valid_pass_hand(faces, CLASSIC) is (classic is not None)


@pytest.mark.parametrize("hand", [(), (1, 2, 3, 4), (1, 2, 3, 4, 5, 6), (1, 2, 3, 4, 7)])
def test_not_five_dice_is_an_error(hand) -> None:
    with pytest.raises(ValueError):
        classify_pass_hand(hand, CLASSIC)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(list(Face)), min_size=5, max_size=5), st.permutations(range(5)))
def test_verdict_ignores_dice_order(hand: list[Face], order: list[int]) -> None:
    shuffled = [hand[i] for i in order]
    for hands in PassHands:
        assert classify_pass_hand(hand, hands) is classify_pass_hand(shuffled, hands)
