"""What the referee is waiting for: picks the phrases a recognizer listens for."""

from __future__ import annotations

from enum import StrEnum


class Expecting(StrEnum):
    """A listening context. Members equal their strings ("turn" == Expecting.TURN)."""

    TURN = "turn"  # bids, calls, queries, commands
    COUNT = "count"  # "¿cuántas quinas hay?" -> a number
    YES_NO = "yes_no"  # obligar, "¿nueva partida?"
    CHOICE = "choice"  # direction, abierta / cerrada
    PASS_CHECK = "pass_check"  # a doubted pass: yes / no / the dice
    STARTER = "starter"  # who opens; the starter roll's faces
    ANY = "any"  # everything (game over, free listening)


# Contexts in which the referee has put a question to the table (re-asked on silence).
QUESTIONS: frozenset[Expecting] = frozenset(
    {Expecting.COUNT, Expecting.YES_NO, Expecting.CHOICE, Expecting.PASS_CHECK, Expecting.STARTER}
)
