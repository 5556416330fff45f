"""The phrase inventory: the grammar's sampler, grouped by what the referee waits for.

Like hassil's sampler, this is the one list both sides agree on: the speech layer
builds recognizer grammars and candidate lists from it, and the round-trip tests
check that the parser reads every phrase back as exactly its intent. It adds no
sentence rule of its own: everything comes from `grammar.spanish_grammar`.

`canonical=True` lists the core phrases (`Level.CORE`: "cinco quinas" and "cinco
chinas", no decorations); `canonical=False` adds one decoration a phrase
(`Level.COMMON`: "hay cinco quinas", "Beto, dudo", "a la izquierda", "yo paso",
"cuatro cincos"); `level=Level.ALL` lists every expansion.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from voice_ref.language.expecting import Expecting
from voice_ref.language.grammar import SAMPLE_MAX_QUANTITY, Level, Phrase, spanish_grammar
from voice_ref.language.vocabulary import dialect_faces

MAX_QUANTITY = SAMPLE_MAX_QUANTITY  # bids and counts listed: 1..60 dice (12 players x 5)
EXPECTING: tuple[Expecting, ...] = tuple(Expecting)

__all__ = ["EXPECTING", "MAX_QUANTITY", "Phrase", "PhraseInventory"]


class PhraseInventory:
    """All phrases a table can say, grouped by what the referee is waiting for.

    `clean_bids` adds "limpio"/"sucio" bids (the `cachito` preset); `faces` are the table's
    own face names (config `[dialect] faces`), always offered.
    """

    def __init__(
        self,
        players: Sequence[str] = (),
        dialect: str = "chile",
        clean_bids: bool = False,
        max_quantity: int = MAX_QUANTITY,
        faces: Mapping[int, str] | None = None,
    ) -> None:
        self.players = tuple(players)
        self.dialect = dialect
        self.clean_bids = clean_bids
        self.max_quantity = max_quantity
        dialect_faces(dialect, faces)  # validates the dialect and the face names now
        self.grammar = spanish_grammar(self.players, dialect, clean_bids, max_quantity, faces)
        self._words: set[str] | None = None
        self._cache: dict[tuple[Expecting, Level], tuple[Phrase, ...]] = {}

    def phrases(
        self,
        expecting: Expecting | str = Expecting.ANY,
        canonical: bool = True,
        level: Level | None = None,
    ) -> list[Phrase]:
        """The phrases listened for while the referee expects `expecting` (see `Expecting`)."""
        try:
            context = Expecting(expecting)
        except ValueError:
            raise ValueError(
                f"expecting must be one of {', '.join(EXPECTING)}, not {expecting!r}"
            ) from None
        if level is None:
            level = Level.CORE if canonical else Level.COMMON
        key = (context, level)
        if key not in self._cache:
            self._cache[key] = tuple(self.grammar.sample(context, level))
        return list(self._cache[key])

    def words(self) -> set[str]:
        """Every word of every phrase, lower-case with accents (for a recognizer grammar)."""
        if self._words is None:
            self._words = {
                w.lower()
                for phrase in self.phrases(Expecting.ANY, canonical=False)
                for w in phrase.text.split()
            }
        return set(self._words)
