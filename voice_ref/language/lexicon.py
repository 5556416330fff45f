"""Is a transcript made of ordinary Spanish words? Evidence for table talk.

Whisper writes what it hears; on a clear real voice saying something else ("Segundos",
"Noviembre", "pausa") it writes real words, while on a call it cannot make out it
often writes pseudo-words ("Pazot", "Pentemos", "Sincrocua"). A free transcript whose
every word is in a Spanish word list is therefore more likely what was said.

The list is Debian's `wspanish` (`/usr/share/dict/spanish`, 86,000 words, lemmas
mostly). Plurals and a few verb endings are reduced to a listed form; accents are
ignored. Without the file, `Lexicon.load()` is empty and nothing counts as a word
(the evidence is then simply absent, never invented).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from voice_ref.language.text import fold, tokenize

WORD_LIST = Path("/usr/share/dict/spanish")
# (ending, replacement) tried in order when a word is not listed as it is.
_ENDINGS: tuple[tuple[str, str], ...] = (
    ("ces", "z"),  # veces → vez
    ("es", ""),  # meses → mes
    ("s", ""),  # segundos → segundo
    ("mos", "r"),  # vamos → var (rough, only to reach a listed verb)
    ("amos", "ar"),
    ("emos", "er"),
    ("imos", "ir"),
    ("o", "ar"),  # digo → (no), canto → cantar
    ("o", "er"),
    ("o", "ir"),
    ("e", "ar"),
    ("a", "ar"),
    ("an", "ar"),
    ("en", "er"),
    ("i", "er"),  # perdí → perder
    ("i", "ir"),
    ("e", "er"),
    ("o", "a"),
)


# Everyday forms the lemma list lacks and the endings above do not reach: irregular
# verbs, and a few words said at any table.
_COMMON_TEXT = """
    soy eres es somos son estoy estás está estamos están fui fue fuimos fueron era eran
    voy vas va vamos van iba iban tengo tienes tiene tenemos tienen tuve tuvo hago haces
    hace hacemos hacen hice hizo digo dices dice decimos dicen dije dijo dijeron puedo
    puedes puede podemos pueden pude pudo quiero quieres quiere queremos quieren sé sabes
    sabe sabemos saben vengo viene vienen vino pongo pone salgo sale veo ves ve vi vio
    doy da dan di dio hay había habrá he has ha hemos han oye oigan mira mire ojalá
    oye hola chao adiós gracias perdón bueno buena buenos buenas vale okey ok sí
"""
COMMON: frozenset[str] = frozenset(_COMMON_TEXT.split())


@dataclass(frozen=True, slots=True)
class Lexicon:
    words: frozenset[str]

    @classmethod
    def of(cls, words: Iterable[str]) -> Lexicon:
        return cls(frozenset(fold(w) for w in words if w.strip()))

    @classmethod
    def load(cls, path: Path = WORD_LIST) -> Lexicon:
        return _load(str(path))

    def __bool__(self) -> bool:
        return bool(self.words)

    def is_word(self, token: str) -> bool:
        """A listed word, or one after reducing a plural or a verb ending (folded). Digits
        are no ordinary words: Whisper writes counts as digits."""
        if token in self.words:
            return True
        for ending, base in _ENDINGS:
            stem = token[: len(token) - len(ending)]
            if token.endswith(ending) and len(stem) >= 2 and stem + base in self.words:
                return True
        return False

    def plain(self, text: str) -> bool:
        """Every word of `text` is a Spanish word (and there is at least one)."""
        tokens = tokenize(text)
        return bool(tokens) and bool(self.words) and all(self.is_word(t) for t in tokens)


@cache
def _load(path: str) -> Lexicon:
    file = Path(path)
    if not file.is_file():
        return Lexicon(frozenset())
    return Lexicon.of([*file.read_text(encoding="utf-8").split(), *COMMON])
