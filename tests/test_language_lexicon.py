"""Ordinary Spanish words vs Whisper's pseudo-words (evidence for table talk)."""

from __future__ import annotations

import pytest

from voice_ref.language.lexicon import WORD_LIST, Lexicon

SMALL = Lexicon.of(["segundo", "mensaje", "último", "noviembre", "pausa", "para", "vez",
                    "mes", "cantar", "perder", "el", "y"])  # fmt: skip


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("Segundos", True),  # plural reduced
        ("¡Mensaje!", True),  # punctuation and case ignored
        ("ULTIMO", True),  # accents ignored
        ("Y el mes", True),
        ("veces", True),  # vez
        ("meses", True),
        ("canto", True),  # cantar
        ("perdí", True),  # perder
        ("Pazot", False),
        ("Pentemos mones", False),
        ("pausa 10", False),  # digits: Whisper's counts are no ordinary words
        ("", False),
        ("¿?", False),
    ],
)
def test_plain_spanish(text: str, plain: bool) -> None:
    assert SMALL.plain(text) is plain


def test_an_empty_lexicon_knows_no_word() -> None:
    empty = Lexicon.of([])
    assert not empty and not empty.plain("para")


def test_the_system_word_list_loads_when_installed() -> None:
    """Debian's wspanish (`apt-get install wspanish`); without it the evidence is absent."""
    lexicon = Lexicon.load()
    if not WORD_LIST.is_file():
        assert not lexicon
        return
    assert lexicon.plain("Noviembre") and lexicon.plain("¿Qué haces?")
    assert not lexicon.plain("Sincrocua")
