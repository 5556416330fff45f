"""Judging a pass (paso) hand: is this five-dice hand one that allows passing?

A doubted pass is settled by the table: either "yes / no", or the passer's five
dice, which the referee judges here. Aces are never wild in a pass hand
(RULES.md fine point 7).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from enum import Enum

from voice_ref.rules.faces import Face
from voice_ref.rules.variants import PassHands

PASS_HAND_SIZE = 5


class HandKind(Enum):
    """The name of a valid pass hand, so the referee can say why it was valid."""

    FIVE_OF_A_KIND = "five_of_a_kind"
    FOUR_OF_A_KIND = "four_of_a_kind"  # cachito only
    FULL_HOUSE = "full_house"
    FIVE_DISTINCT = "five_distinct"  # classic only: any five different faces
    STRAIGHT = "straight"  # cachito only: 1-2-3-4-5 or 2-3-4-5-6


_STRAIGHTS = (frozenset(range(1, 6)), frozenset(range(2, 7)))


def classify_pass_hand(hand: Sequence[Face | int], pass_hands: PassHands) -> HandKind | None:
    """The kind of valid pass hand this is under `pass_hands`, or None if it is not valid.

    Raises ValueError unless `hand` is exactly five faces 1..6.
    """
    faces = [Face(f) for f in hand]
    if len(faces) != PASS_HAND_SIZE:
        raise ValueError(f"a pass hand has exactly {PASS_HAND_SIZE} dice, not {len(faces)}")
    shape = sorted(Counter(faces).values(), reverse=True)
    if shape == [5]:
        return HandKind.FIVE_OF_A_KIND
    if shape == [3, 2]:
        return HandKind.FULL_HOUSE
    if pass_hands is PassHands.CLASSIC:
        return HandKind.FIVE_DISTINCT if shape == [1] * 5 else None
    if shape == [4, 1]:
        return HandKind.FOUR_OF_A_KIND
    if frozenset(int(f) for f in faces) in _STRAIGHTS:
        return HandKind.STRAIGHT
    return None


def is_valid_pass_hand(hand: Sequence[Face | int], pass_hands: PassHands) -> bool:
    """True when `hand` (exactly five dice) justifies a pass under `pass_hands`."""
    return classify_pass_hand(hand, pass_hands) is not None
