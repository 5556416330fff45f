"""Die faces as values: 1 (As) to 6 (Sexto), ordered As lowest."""

from __future__ import annotations

from enum import IntEnum


class Face(IntEnum):
    """A die face. The integer value is the pip count; the plain order As < ... < Sexto."""

    AS = 1
    TONTO = 2
    TREN = 3
    CUADRA = 4
    QUINA = 5
    SEXTO = 6

    @property
    def is_ace(self) -> bool:
        return self is Face.AS


ACE = Face.AS
NON_ACE_FACES: tuple[Face, ...] = tuple(f for f in Face if f is not Face.AS)
