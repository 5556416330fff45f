"""Text folding shared by the number reader, the inventory and the parser.

Players and recognizers spell the same words differently ("Sí", "si", "¡SÍ!",
"sinco"), so everything is compared after `fold` (case, accents, punctuation)
and, for near-misses, after `phonetic` (Spanish letters that sound alike).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Sequence

_TOKEN = re.compile(r"[a-z]+|[0-9]+")


def fold(text: str) -> str:
    """Lower-case ASCII without accents: "Veintiún" -> "veintiun", "¿Cuántos?" -> "¿cuantos?"."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def tokenize(text: str) -> list[str]:
    """Folded words and digit runs; anything else separates ("5quinas" -> 5, quinas)."""
    return _TOKEN.findall(fold(text))


def skip_leading(tokens: Sequence[str], words: Collection[str]) -> int:
    """Where `tokens` go on after the `words` they begin with (the hesitations of "eh, em,
    dudo"): 0 when they begin with none."""
    at = 0
    while at < len(tokens) and tokens[at] in words:
        at += 1
    return at


def phonetic(word: str) -> str:
    """A key under which Spanish spellings that sound the same collide.

    "sinco"/"cinco", "kinas"/"quinas", "calso"/"calzo", "Veto"/"Beto" all share a key:
    speech recognizers make exactly these spelling slips.
    """
    w = word.replace("ch", "1").replace("ll", "y").replace("qu", "k")
    w = re.sub(r"c(?=[ei])", "s", w)
    w = w.replace("c", "k").replace("z", "s").replace("v", "b").replace("w", "u")
    w = w.replace("x", "ks").replace("h", "")
    w = re.sub(r"g(?=[ei])", "j", w)
    w = re.sub(r"gu(?=[ei])", "g", w)
    w = re.sub(r"(.)\1+", r"\1", w)
    return w.replace("1", "ch")
