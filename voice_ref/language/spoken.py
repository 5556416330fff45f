"""Small Spanish readings the layers above need, kept here so Spanish stays in language/.

- `face_alone`: a face named alone ("quina") answers the starter roll (referee);
- `addressed_stranger`: "Xavier, dudo" names nobody at the table (referee);
- `syllables` / `with_digits`: the Whisper backend's duration model and digit variants.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from voice_ref.language.intents import BidIntent
from voice_ref.language.numbers import MAX_NUMBER, number_to_words, reading_table
from voice_ref.language.text import fold, tokenize
from voice_ref.language.vocabulary import FACE_WORDS, NUMERAL_FACES


def face_alone(text: str) -> BidIntent | None:
    """A face name said alone ("quina", "as", "un seis" is the grammar's) as a one-die bid.

    Only the starter roll asks for a bare face; elsewhere "quina" alone is table talk,
    which is why this is not a grammar rule.
    """
    word = " ".join(tokenize(text))
    for fw in FACE_WORDS:
        if word == fold(fw.singular):
            return BidIntent(quantity=1, face=fw.face)
    return None


_NAME_FIRST = re.compile(r"^\s*([A-ZÁÉÍÓÚÑ][\wáéíóúñü]+)\s*,")
_NAME_AFTER = re.compile(r"\b(?:parte|empieza|llamado)\s+([A-ZÁÉÍÓÚÑ][\wáéíóúñü]+)", re.UNICODE)
_NOT_NAMES = frozenset(
    [
        "sí",
        "si",
        "no",
        "dudo",
        "calzo",
        "paso",
        "oye",
        "ya",
        "bueno",
        "vale",
        "ok",
        "okay",
        "eh",
        "ah",
        "uy",
        "mira",
        "pues",
        "entonces",
        "listo",
        "claro",
        "ahora",
        "perdón",
        "disculpa",
        "a",
        "la",
        "izquierda",
        "derecha",
        "abierta",
        "cerrada",
        "partida",
        "nueva",
        "repite",
        "cuántos",
        "cuántas",
        "quién",
    ]
)


def addressed_stranger(text: str, players: Sequence[str]) -> str | None:
    """A capitalised name addressed in typed text ("Xavier, dudo") that is nobody seated."""
    seated = {p.casefold() for p in players}
    for pattern in (_NAME_FIRST, _NAME_AFTER):
        m = pattern.search(text)
        if m and m.group(1).casefold() not in seated and m.group(1).casefold() not in _NOT_NAMES:
            return m.group(1)
    return None


def syllables(text: str) -> int:
    """Spanish syllables, roughly: groups of vowels ("cua-tro cua-dras" -> 4); at least 1."""
    return len(re.findall(r"[aeiouü]+", fold(text))) or 1


def spelled_out(text: str) -> str:
    """Digits as words ("14 dones" -> "catorce dones"), e.g. to count syllables. A number
    beyond `MAX_NUMBER` stays in digits: it is no call, and Whisper does write such free
    transcripts ("1016"; it stopped a simulated game in session 7)."""
    return re.sub(
        r"\d+",
        lambda m: number_to_words(int(m.group())) if int(m.group()) <= MAX_NUMBER else m.group(),
        text,
    )


def with_digits(text: str, value: int) -> str | None:
    """The first spelled-out `value` in `text` written as digits: "hay catorce dones" ->
    "hay 14 dones"; None if `value` is not spelled there (Whisper writes numbers as digits)."""
    words = text.split()
    table = reading_table()
    for i in range(len(words)):
        for j in range(min(len(words), i + 5), i, -1):
            if table.get(tuple(tokenize(" ".join(words[i:j])))) == value:
                return " ".join([*words[:i], str(value), *words[j:]])
    return None


def numeral_face(word: str) -> int | None:
    """The face a number word names when said as a face ("cincos" -> 5), else None."""
    folded = fold(word)
    for fw in NUMERAL_FACES:
        if folded in (fw.singular, fw.plural):
            return fw.face
    return None
