"""Counting the dice that match a bid, for when the dice are known (tests, simulations).

The referee itself never sees the dice: the table tells it the count. This is the
rule the table follows, written once so tests and simulated tables agree with
`Challenge.wild_aces`.
"""

from __future__ import annotations

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
