"""Spanish text -> intent: the grammar's matcher behind a rapidfuzz correction pass.

How it works (so table talk stays silent):
1. `tokenize` folds case, accents and punctuation; too long an input is not game speech,
   and neither is a negative number ("-3 quinas").
2. Correction: every token must be a word of the grammar (`Grammar.words()`, which
   includes the players' names). A token that is not is replaced by its nearest
   grammar word when it sounds alike ("sinco" -> "cinco", "kinas" -> "quinas"),
   lowering the score; if nothing is near, the utterance is not game speech.
   Hesitations ("eh", "bueno") are skipped, as hassil skips its skip words.
3. Matching: the corrected words must be *entirely* explained by one rule of the
   grammar (`grammar.py`, rules in `vocabulary.TEMPLATES`): one extra content word
   ("el tren llegó atrasado") makes the match fail.

The sentence rules live only in the grammar; this module adds no rule of its own.
"""

from __future__ import annotations

import argparse
import heapq
import json
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from voice_ref.language.grammar import Grammar, spanish_grammar
from voice_ref.language.intents import Intent, NameOnlyIntent
from voice_ref.language.text import phonetic, tokenize
from voice_ref.language.vocabulary import INTERJECTION_WORDS

MAX_CHARS = 200  # the longest game utterance is ~50 characters
MAX_TOKENS = 16
FUZZY_CUTOFF = 80.0  # rapidfuzz ratio (0-100) on phonetic keys; below: not a game word
SOUNDS_ALIKE = 0.9  # score of a token spelled differently but sounding the same
CANDIDATES = 3  # vocabulary words considered per unknown token
MAX_READINGS = 24  # candidate word sequences tried per utterance
_NEGATIVE = re.compile(r"(?:^|[^\w])[-−]\s*\d")  # "-1", "−3 quinas": not a count

Tokens = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ParseResult:
    """`score` is 1.0 for an exact grammar match, lower the more words were guessed.

    `matched` is the corrected words the grammar explained (hesitations left out).
    """

    intent: Intent | None
    score: float
    matched: str

    def to_json(self) -> dict[str, object]:
        return {
            "intent": None if self.intent is None else self.intent.to_json(),
            "score": self.score,
            "matched": self.matched,
        }


NO_PARSE = ParseResult(None, 0.0, "")


def _best_first(
    options: list[list[tuple[str, float]]], limit: int
) -> Iterator[tuple[float, Tokens]]:
    """Word sequences from per-token candidate lists, highest product of confidences first."""

    def score(choice: tuple[int, ...]) -> float:
        return math.prod(options[i][c][1] for i, c in enumerate(choice))

    start = (0,) * len(options)
    heap = [(-score(start), start)]
    seen = {start}
    while heap and limit > 0:
        neg, choice = heapq.heappop(heap)
        limit -= 1
        yield -neg, tuple(options[i][c][0] for i, c in enumerate(choice))
        for i, c in enumerate(choice):
            if c + 1 < len(options[i]):
                nxt = choice[:i] + (c + 1,) + choice[i + 1 :]
                if nxt not in seen:
                    seen.add(nxt)
                    heapq.heappush(heap, (-score(nxt), nxt))


class Parser:
    """Understands game speech for one table (its players' names)."""

    def __init__(self, players: Sequence[str] = (), grammar: Grammar | None = None) -> None:
        self.players = tuple(players)
        self.grammar = grammar if grammar is not None else spanish_grammar(self.players)
        self._skip = INTERJECTION_WORDS
        self._vocab = self.grammar.words() | self._skip
        self._keys: dict[str, str] = {}
        # A near-miss is never corrected into a hesitation: that would silence a real word
        # ("no veno" is not "no bueno" -> "no").
        for word in sorted(self._vocab - self._skip):
            self._keys.setdefault(phonetic(word), word)
        self._key_list = list(self._keys)
        self._cache: dict[str, list[tuple[str, float]]] = {}

    @property
    def known_words(self) -> frozenset[str]:
        """Every folded word the grammar uses, names included (an OOV check for recognizers)."""
        return frozenset(self._vocab)

    # --- the correction pass ---------------------------------------------------------------

    def _candidates(self, token: str) -> list[tuple[str, float]]:
        """Grammar words this token may stand for, best first, with a confidence each.

        Empty when nothing is near: the utterance is then not game speech.
        """
        if token in self._vocab or token.isdigit():
            return [(token, 1.0)]
        cached = self._cache.get(token)
        if cached is not None:
            return cached
        key = phonetic(token)
        found: list[tuple[str, float]] = []
        if key in self._keys:
            found = [(self._keys[key], SOUNDS_ALIKE)]
        elif len(token) >= 3:
            cut = FUZZY_CUTOFF / 100.0
            for match, ratio, _ in process.extract(
                key, self._key_list, scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF, limit=CANDIDATES
            ):
                # ratio 100 -> SOUNDS_ALIKE, ratio at the cutoff -> half of that.
                confidence = SOUNDS_ALIKE * (1.0 - 0.5 * (1.0 - ratio / 100.0) / (1.0 - cut))
                found.append((self._keys[match], confidence))
        if len(self._cache) > 4096:
            self._cache.clear()
        self._cache[token] = found
        return found

    # --- parse ---------------------------------------------------------------------------

    def parse(self, text: str) -> ParseResult:
        """The intent of one utterance; `ParseResult(None, 0.0, "")` if it is not game speech.

        When words had to be guessed, readings are tried best-first (by the product of
        the word confidences, at most `MAX_READINGS`); the first the grammar explains wins.
        """
        if not text or len(text) > MAX_CHARS or _NEGATIVE.search(text):
            return NO_PARSE
        tokens = tokenize(text)
        if not tokens or len(tokens) > MAX_TOKENS:
            return NO_PARSE
        options = [self._candidates(token) for token in tokens]
        if not all(options):
            return NO_PARSE
        for score, reading in _best_first(options, MAX_READINGS):
            words = tuple(w for w in reading if w not in self._skip)
            intent = self.grammar.match(words)
            if intent is None:
                continue
            if isinstance(intent, NameOnlyIntent) and score < SOUNDS_ALIKE:
                continue  # a name alone is too easily heard in any short word ("veo" ~ "Beto")
            return ParseResult(intent, round(score, 3), " ".join(words))
        return NO_PARSE


def main(args: argparse.Namespace) -> int:
    """`voice-ref parse "texto" [--players A,B]`: print the intent JSON, its score and the words."""
    if args.players:
        players = [p.strip() for p in args.players.split(",") if p.strip()]
    else:
        from voice_ref.config import load_config

        players = list(load_config(getattr(args, "config", None)).game.players)
    result = Parser(players).parse(args.text)
    print(json.dumps(result.to_json(), ensure_ascii=False))
    return 0
