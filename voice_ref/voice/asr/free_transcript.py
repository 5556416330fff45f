"""The free transcript: Whisper's own greedy reading of an utterance, the garbage model
for table talk and the evidence against game speech. How much of it to keep (`loop_cut`:
Whisper repeats itself) and how sure Whisper was of it (`free_fluency`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

# A capped free transcript whose last tokens repeat at least this many (or a whole period)
# from earlier is a loop (`loop_cut`).
LOOP_TAIL_MIN = 3
# A transcript that ends on one word this many times in a row ("50, 53 50 53 53 53 53 ...")
# is a loop even when Whisper stopped by itself before the token cap (`loop_cut`).
LOOP_RUN = 4


def log_softmax(x: np.ndarray) -> np.ndarray:
    """Per row, log-probabilities from logits (a copy: CTranslate2 owns its arrays)."""
    x = x - x.max(axis=-1, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=-1, keepdims=True))


def free_fluency(tokens: list[int], rows: np.ndarray) -> float:
    """Mean log-probability of the greedy transcript's tokens: near 0 when Whisper is
    sure of what it wrote (real speech, table talk it understood), low for guesses.
    `tokens` are the transcript after `loop_cut`; one that still repeats itself
    ("Y como como como ...") is not fluent: -inf."""
    if not tokens or len(rows) < len(tokens):
        return float("-inf")
    if len(tokens) >= 6 and len(set(tokens)) < len(tokens) / 2:
        return float("-inf")
    return float(rows[np.arange(len(tokens)), tokens].mean())


def loop_cut(pieces: Sequence[str], capped: bool = False) -> int:
    """How many tokens of a free transcript to keep (`pieces`: each token's text). Whisper
    often repeats itself ("2 2 2 2", "Nuevos nuevos nuevos ...") and what it heard is what
    came before the loop. Units are compared casefolded and without punctuation:

    - tokens: a transcript that opens with a repeat of the very tokens keeps its first
      period ("2 2 2");
    - words (a word written again in another case is other tokens, " Nuevos" /
      " nuevos"): a transcript that is one period over and over keeps one;
    - a transcript that ran to the token cap (`capped`) was looping by construction: a
      repeat that starts anywhere and runs to the end, down to a cut-off copy
      ("¿Cuántos mamos queman? ¿Cuántos mam", "20 de la parte de la parte de"), ends it
      after its first period. One that ended by itself keeps such a tail ("no, no me
      digas no, no" may well be what was said), unless it ends on one word said
      `LOOP_RUN` times or more in a row ("40 55 45 45 45 45 45 ..."): one copy is kept.
      Left in, such a loop scored as the garbage model like any fluent text, and on a
      real voice it outscored the number it repeats (tuning-real: "cincuenta y tres"
      lost to "50, 53 50 53 53 53 53 ...")."""
    tokens = [_loop_key(piece) for piece in pieces]
    words: list[str] = []
    word_ends: list[int] = []  # tokens up to the end of each word
    for i, piece in enumerate(pieces):
        if not words or piece.startswith(" "):
            words.append("")
            word_ends.append(0)
        words[-1] += piece
        word_ends[-1] = i + 1
    word_keys = [_loop_key(w) for w in words]
    cuts = [len(pieces)]
    for period in range(1, len(pieces) // 2 + 1):  # the very tokens: "Ah, ah, Veintitrés"
        if list(pieces[period : 2 * period]) == list(pieces[:period]):
            cuts.append(period)
            break
    for period in range(1, len(word_keys) // 2 + 1):
        if _repeats(word_keys, 0, period, whole=True):
            cuts.append(word_ends[period - 1])
            break
    run_start = _run_start(word_keys)
    if run_start is not None:
        cuts.append(word_ends[run_start])
    if capped:
        for keys, ends in ((tokens, range(1, len(tokens) + 1)), (word_keys, word_ends)):
            kept = _loop_start(keys)
            if kept is not None:
                cuts.append(ends[kept - 1])
    return min(cuts)


def _loop_key(text: str) -> str:
    return re.sub(r"[^\w]", "", text.casefold())


def _repeats(keys: Sequence[str], start: int, period: int, whole: bool = False) -> bool:
    """Whether `keys` from `start + period` to the end repeat the period starting at
    `start` (the last unit may be cut off: "mam" for "mamos"), at least one whole copy
    (`whole`) or `LOOP_TAIL_MIN` units of it."""
    tail = keys[start + period :]
    if len(tail) < (period if whole else min(period, LOOP_TAIL_MIN)) or not any(tail):
        return False
    same = keys[start : start + len(tail)]
    return tail[:-1] == same[:-1] and bool(tail[-1]) and same[-1].startswith(tail[-1])


def _run_start(keys: Sequence[str]) -> int | None:
    """Where the run of one word that ends `keys` starts, if it is `LOOP_RUN` words or
    longer (the last may be cut off: "cuyo cuyo cu")."""
    for start in range(len(keys) - LOOP_RUN + 1):
        if keys[start] and _repeats(keys, start, 1):
            return start
    return None


def _loop_start(keys: Sequence[str]) -> int | None:
    """Units to keep of a capped transcript: up to the first period of its earliest loop."""
    for start in range(len(keys)):
        for period in range(1, len(keys) - start):
            if _repeats(keys, start, period):
                return start + period
    return None
