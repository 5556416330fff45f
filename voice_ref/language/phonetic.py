"""How alike two Spanish transcripts *sound*: evidence the decision layer can trust.

Whisper's free transcript of a voice it cannot make out is often other words that sound
like what was said ("Tuna" for "dudo", "sincoprines" for "cinco trenes", "y a 16
esquinas" for "dieciséis quinas"); a spelling measure (rapidfuzz on letters) sees them as
different, so they counted as table talk. Conversely "para" is close to "Ana" in
spelling but not in sound. This module compares sounds instead:

- `sound_key`: a transcript as a string of sounds, one letter each: accents off, digits
  spelled out with the project's number words, h silent, b/v, c/z/s before e/i, qu/k/c,
  ll/y, j/g before e/i, ch as one sound, doubled letters once, word gaps dropped
  (recognizers split words anywhere: "sincoprines").
- `sound_similarity`: 0..1, one minus an edit distance over the keys in which
  substituting a near sound costs less (voicing pairs d/t, b/p, g/k; d/n; the soft
  d/g; e/i, o/u; l/r; m/n; d/r when either is between vowels, "D" / "R" in the key:
  the soft d and the tap r) and so does a dropped soft d ("Hugo" for "dudo"), divided
  by the longer key.

Small on purpose (PyPI's `epitran` + `panphon` do IPA and feature distances, at the
price of several dependencies a Raspberry Pi would carry for one comparison).
"""

from __future__ import annotations

import re
from functools import lru_cache

from voice_ref.language.spoken import spelled_out
from voice_ref.language.text import tokenize

VOWELS = frozenset("aeiou")
# Sounds a recognizer or a synthetic voice swaps most easily: voicing pairs, close vowels.
NEAR_PAIRS = frozenset(
    frozenset(p)
    for p in ("bp", "dt", "gk", "dn", "dg", "ei", "ou", "iy", "lr", "mn", "sC", "jk", "fj")
)
# Between vowels a /d/ is the soft [ð] ("D" in a key) and an /r/ the tap [ɾ] ("R"), and
# they sound alike ("todo" / "toro"; Whisper's "Dura." and "Arudo" for "dudo", session
# 52). At a word's start they are the stop [d] and the trill [r], which do not: "Río" is
# no "Diego". Otherwise D is a d and R an r.
SOFT = {"D": "d", "R": "r"}
# Coarse classes: a swap inside one costs less than across.
CLASSES = ("aeiou", "pbtdkg", "mn", "lr", "sfjCy")
NEAR_COST = 0.25
CLASS_COST = 0.6
OTHER_COST = 0.9
VOWEL_CONSONANT_COST = 1.0
GAP_COST = 1.0
# Spanish /d/ after a vowel or a pause is the soft [ð] that speakers and recognizers drop
# ("cansao", Whisper's "Hugo" for "dudo", where the other d became the g it sounds like).
SOFT_GAP_COST = {"d": 0.5, "D": 0.5}
MAX_KEY = 60  # a long transcript is cut: no call is that long, and the cost stays small


def word_key(word: str) -> str:
    """One folded word as sounds ("cinco" -> "sinko", "quinas" -> "kinas", "ases" ->
    "ases", "llevo" -> "yebo"); "C" stands for ch."""
    w = word.replace("ch", "C").replace("ll", "y").replace("qu", "k")
    w = re.sub(r"gu(?=[ei])", "G", w)  # guerra: a hard g, the u silent
    w = re.sub(r"g(?=[ei])", "j", w)
    w = re.sub(r"c(?=[ei])", "s", w)
    w = w.replace("G", "g").replace("c", "k").replace("z", "s").replace("v", "b")
    w = w.replace("x", "ks").replace("w", "u").replace("h", "")
    w = re.sub(r"y(?![aeiou])", "i", w)  # "y" and "hoy": a vowel
    return re.sub(r"(.)\1+", r"\1", w)


def sound_key(text: str) -> str:
    """A transcript as one string of sounds ("16 quinas" -> "diesiseiskinas")."""
    key = "".join(word_key(t) for t in tokenize(spelled_out(text)))
    key = re.sub(r"(.)\1+", r"\1", key)
    return re.sub(r"(?<=[aeiou])[dr](?=[aeiou])", lambda m: m.group().upper(), key)[:MAX_KEY]


def _class(ch: str) -> int:
    for i, members in enumerate(CLASSES):
        if ch in members:
            return i
    return -1


@lru_cache(maxsize=1024)
def substitution_cost(a: str, b: str) -> float:
    """What hearing sound `b` for sound `a` costs (0 same, 1 unrelated)."""
    plain_a, plain_b = SOFT.get(a, a), SOFT.get(b, b)
    if {plain_a, plain_b} == {"d", "r"} and (a in SOFT or b in SOFT):
        return NEAR_COST
    a, b = plain_a, plain_b
    if a == b:
        return 0.0
    if frozenset((a, b)) in NEAR_PAIRS:
        return NEAR_COST
    if (a in VOWELS) != (b in VOWELS):
        return VOWEL_CONSONANT_COST
    if _class(a) == _class(b) and _class(a) >= 0:
        return CLASS_COST
    return OTHER_COST


def sound_distance(a: str, b: str) -> float:
    """Weighted edit distance between two sound keys."""
    cost = substitution_cost
    gap_a = [SOFT_GAP_COST.get(ch, GAP_COST) for ch in a]
    gap_b = [SOFT_GAP_COST.get(ch, GAP_COST) for ch in b]
    previous = [0.0]
    for g in gap_b:
        previous.append(previous[-1] + g)
    for i, ca in enumerate(a, 1):
        current = [previous[0] + gap_a[i - 1]]
        left = current[0]
        for j, cb in enumerate(b, 1):
            left = min(previous[j] + gap_a[i - 1], left + gap_b[j - 1],
                       previous[j - 1] + cost(ca, cb))
            current.append(left)
        previous = current
    return previous[-1]


@lru_cache(maxsize=4096)
def sound_similarity(a: str, b: str) -> float:
    """0..1: how alike two transcripts sound (1: the same sounds). 0 when either has none."""
    ka, kb = sound_key(a), sound_key(b)
    if not ka or not kb:
        return 0.0
    return max(0.0, 1.0 - sound_distance(ka, kb) / max(len(ka), len(kb)))
