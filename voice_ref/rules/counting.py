"""Counting the dice that match a bid, for when the dice are known (tests, simulations).

The referee itself never sees the dice: the table tells it the count. This is the
rule the table follows, written once so tests and simulated tables agree with
`Challenge.wild_aces`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from voice_ref.rules.faces import ACE, Face


def count_matching(dice: Iterable[Face | int], face: Face, *, wild_aces: bool) -> int:
    """Dice showing `face`, plus aces when aces are wild (never twice for a bid on aces)."""
    total = 0
    for die in dice:
        die = Face(die)
        if die is face or (wild_aces and die is ACE):
            total += 1
    return total


def _matching_chance(wild_aces: bool) -> float:
    """The chance that one unseen die counts for a face: 1/3 with aces wild, else 1/6."""
    return 1 / 3 if wild_aces else 1 / 6


def plausible_count(dice: int, *, wild_aces: bool) -> float:
    """The most dice of one face that `dice` unseen dice plausibly show: the mean plus two
    standard deviations. At 15 dice, 8.7 of a wild face: nobody expects 13 sixes."""
    p = _matching_chance(wild_aces)
    return dice * p + 2 * math.sqrt(dice * p * (1 - p))


def count_logp(count: int, dice: int, *, wild_aces: bool) -> float:
    """log P(exactly `count` of `dice` unseen dice count for a face): binomial."""
    if not 0 <= count <= dice:
        return -math.inf
    p = _matching_chance(wild_aces)
    ways = math.lgamma(dice + 1) - math.lgamma(count + 1) - math.lgamma(dice - count + 1)
    return ways + count * math.log(p) + (dice - count) * math.log(1 - p)
