"""Spanish number words 0-999 with gender, both ways.

`number_to_words` is what the referee says ("veintiún trenes", "veintiuna
quinas"); `read_number` / `words_to_number` understand every gender form,
including the wrong ones people actually say ("veintiuno quinas"), because the
reading table is generated from `number_to_words` itself.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import cache

from voice_ref.language.text import skip_leading, tokenize

_UNITS = ("cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve")
_TEENS = (
    "diez",
    "once",
    "doce",
    "trece",
    "catorce",
    "quince",
    "dieciséis",
    "diecisiete",
    "dieciocho",
    "diecinueve",
)
_TWENTIES = (
    "veinte",
    "veintiuno",
    "veintidós",
    "veintitrés",
    "veinticuatro",
    "veinticinco",
    "veintiséis",
    "veintisiete",
    "veintiocho",
    "veintinueve",
)
_TENS = ("", "", "", "treinta", "cuarenta", "cincuenta", "sesenta", "setenta", "ochenta", "noventa")
_HUNDREDS = (
    "",
    "ciento",
    "doscientos",
    "trescientos",
    "cuatrocientos",
    "quinientos",
    "seiscientos",
    "setecientos",
    "ochocientos",
    "novecientos",
)
# "Nothing" as a count: the answer to "¿cuántas quinas hay?" can be "ninguna".
ZERO_WORDS = ("ninguno", "ninguna", "ningún")
MAX_NUMBER = 999


def _one(word: str, feminine: bool, apocope: bool) -> str:
    """Gender of a final "uno": una / un / uno (veintiuna, veintiún, veintiuno)."""
    stem = word[:-3]
    if feminine:
        return stem + "una"
    if apocope:
        return stem + ("ún" if stem else "un")
    return word


def number_to_words(n: int, feminine: bool = False, apocope: bool = True) -> str:
    """Spanish words for 0..999 agreeing with the noun that follows.

    feminine: "una quina", "veintiuna quinas", "doscientas". apocope (masculine
    before a noun): "un as", "veintiún trenes"; apocope=False gives "uno",
    "veintiuno" for a bare count.
    """
    if not 0 <= n <= MAX_NUMBER:
        raise ValueError(f"number_to_words handles 0 to {MAX_NUMBER}, not {n}")
    if n >= 100:
        if n == 100:
            return "cien"
        hundreds = _HUNDREDS[n // 100]
        if feminine and n >= 200:
            hundreds = hundreds[:-2] + "as"
        rest = n % 100
        return hundreds if rest == 0 else f"{hundreds} {number_to_words(rest, feminine, apocope)}"
    if n < 10:
        word = _UNITS[n]
    elif n < 20:
        word = _TEENS[n - 10]
    elif n < 30:
        word = _TWENTIES[n - 20]
    else:
        tens, unit = divmod(n, 10)
        if unit == 0:
            return _TENS[tens]
        return f"{_TENS[tens]} y {number_to_words(unit, feminine, apocope)}"
    return _one(word, feminine, apocope) if word.endswith("uno") else word


def _spellings(n: int) -> set[str]:
    """Every accepted way to say n: all genders, plus "diez y seis" / "veinte y uno" forms."""
    out = {number_to_words(n, fem, apo) for fem in (False, True) for apo in (False, True)}
    if 16 <= n % 100 <= 29 and n % 100 != 20:
        tens = "diez" if n % 100 < 20 else "veinte"
        head = "" if n < 100 else number_to_words(n - n % 100) + " "
        out |= {
            f"{head}{tens} y {number_to_words(n % 10, fem, apo)}"
            for fem in (False, True)
            for apo in (False, True)
        }
    return out


@cache
def reading_table() -> dict[tuple[str, ...], int]:
    """Folded token sequence -> value, for every spelling of 0..999 and the zero words."""
    table: dict[tuple[str, ...], int] = {}
    for n in range(MAX_NUMBER + 1):
        for text in _spellings(n):
            table[tuple(tokenize(text))] = n
    for word in ZERO_WORDS:
        table[tuple(tokenize(word))] = 0
    return table


_MAX_NUMBER_TOKENS = 5  # "novecientos diez y seis" is the longest spelling


def read_number(tokens: Sequence[str], start: int = 0) -> tuple[int, int] | None:
    """The longest number at tokens[start:]: (value, index after it), or None.

    Tokens must already be folded (see `text.tokenize`). Digits up to 999 count too.
    """
    if start >= len(tokens):
        return None
    first = tokens[start]
    if first.isdigit():
        return (int(first), start + 1) if len(first) <= 3 else None
    table = reading_table()
    for length in range(min(_MAX_NUMBER_TOKENS, len(tokens) - start), 0, -1):
        value = table.get(tuple(tokens[start : start + length]))
        if value is not None:
            return value, start + length
    return None


def words_to_number(text: str) -> int | None:
    """The value of a text that is exactly one number ("Veintiún" -> 21, "7" -> 7), else None."""
    tokens = tokenize(text)
    found = read_number(tokens)
    if found is None or found[1] != len(tokens):
        return None
    return found[0]


# How a count said aloud begins ("uno, dos, tres"; Whisper may write "1, 2, 3").
COUNT_FROM_ONE: frozenset[str] = frozenset({"uno", "una", "1"})


def counting_up(text: str, lead_ins: Collection[str] = ()) -> tuple[int, ...] | None:
    """The numbers of a text that counts up one by one, as a table counts its dice aloud
    ("Uno, dos." -> (1, 2), "tres cuatro" -> (3, 4), "dos y tres" -> (2, 3): Spanish lists
    join their last item with "y"), after any of the words `lead_ins` (the hesitation of
    "eh, uno, dos"); None for anything else, a single number included ("Cinco." is no
    counting). After other words only a count from "uno" is read: "Nuevo, uno, dos." is
    "bueno, uno, dos" misheard; "Hay dos, tres" and "tengo un dos" are no count."""
    tokens = tokenize(text)
    at = skip_leading(tokens, lead_ins)
    run = _run_up(tokens, at)
    if run is not None:
        return run
    # After words that are no numbers, a count said from "uno" ("tengo un dos" is a bid)
    for start in range(at + 1, len(tokens)):
        if read_number(tokens, start - 1) is not None:
            return None
        if tokens[start] in COUNT_FROM_ONE:
            return _run_up(tokens, start)
    return None


def _run_up(tokens: Sequence[str], at: int) -> tuple[int, ...] | None:
    """The numbers of `tokens[at:]` when they are only numbers counting up by one (two or
    more of them), else None."""
    values: list[int] = []
    while at < len(tokens):
        if tokens[at] == "y":  # "…, tres y cuatro" (a "y" inside a number is read with it)
            at += 1
        found = read_number(tokens, at)
        if found is None:
            return None
        values.append(found[0])
        at = found[1]
    steps = zip(values, values[1:], strict=False)
    if len(values) < 2 or any(b != a + 1 for a, b in steps):
        return None
    return tuple(values)


def number_words() -> set[str]:
    """Every folded word used in numbers (for the parser's fuzzy vocabulary)."""
    return {word for key in reading_table() for word in key}
