"""Shared helpers for the rules tests: short names for bids and ready-to-bid games."""

from __future__ import annotations

from voice_ref.rules import Bid, Direction, Face, Game, make_rules

NAMES = ("Ana", "Beto", "Carla", "Dani", "Eli", "Fede")

FACE_BY_WORD = {
    "as": Face.AS,
    "ases": Face.AS,
    "tonto": Face.TONTO,
    "tontos": Face.TONTO,
    "don": Face.TONTO,
    "dones": Face.TONTO,
    "tren": Face.TREN,
    "trenes": Face.TREN,
    "cuadra": Face.CUADRA,
    "cuadras": Face.CUADRA,
    "quina": Face.QUINA,
    "quinas": Face.QUINA,
    "sexto": Face.SEXTO,
    "sextos": Face.SEXTO,
    "cenas": Face.SEXTO,
}


def b(text: str) -> Bid:
    """'5 quinas' -> Bid(5, QUINA); '3 trenes limpio' -> a limpio bid."""
    parts = text.split()
    return Bid(int(parts[0]), FACE_BY_WORD[parts[1]], clean=parts[-1].startswith("limpi"))


def game(
    preset: str = "chile",
    players: int = 3,
    *,
    dice: dict[str, int] | None = None,
    starter: str = "Ana",
    direction: Direction = Direction.LEFT,
    **overrides,
) -> Game:
    """A game waiting for `starter`'s opening bid (direction already known)."""
    return Game(
        NAMES[:players],
        make_rules(preset, overrides),
        starter=starter,
        direction=direction,
        dice=dice,
    )
