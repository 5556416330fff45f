"""Spanish text -> intent, exact first, then tolerant of recognizer slips.

How it works (so table talk stays silent):
1. `tokenize` folds case, accents and punctuation; too long an input is not game speech.
2. Every token must be a word of the game vocabulary (the tables in
   `vocabulary.py` and `numbers.py`, plus the players' names). A token that is
   not is replaced by its nearest vocabulary word when it sounds alike
   ("sinco" -> "cinco", "kinas" -> "quinas"), lowering the score; if nothing is
   near, the utterance is not game speech.
3. The corrected words must then be *entirely* explained by the grammar below:
   one extra content word ("el tren llegó atrasado") makes the match fail.

Grammar: [interjection] [name] body, where body is a fixed phrase (command,
answer, choice, query), a `{player}` template, a bid ([filler] number face
[limpio]), a count ([filler] number) or a dictated hand (two or more
"[number] face" groups).
"""

from __future__ import annotations

import argparse
import dataclasses
import heapq
import json
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from voice_ref.language.intents import (
    BidIntent,
    ChoiceIntent,
    HandIntent,
    Intent,
    NameOnlyIntent,
    NumberIntent,
    QueryIntent,
    StarterIntent,
    plain_intent,
)
from voice_ref.language.numbers import number_words, read_number
from voice_ref.language.text import phonetic, tokenize
from voice_ref.language.vocabulary import (
    AND,
    BID_FILLERS,
    CHOICES,
    CLEAN_WORDS,
    COMMANDS,
    DIRECTION_PREFIXES,
    FACE_WORDS,
    HAND_ALL,
    HAND_FILLERS,
    INTERJECTIONS,
    NUMBER_FILLERS,
    POLITE,
    POLITE_COMMANDS,
    PRONOUN,
    PRONOUN_COMMANDS,
    QUERIES,
    STARTERS,
    ZERO_PHRASES,
)

MAX_CHARS = 200  # the longest game utterance is ~50 characters
MAX_TOKENS = 16
FUZZY_CUTOFF = 80.0  # rapidfuzz ratio (0-100) on phonetic keys; below: not a game word
SOUNDS_ALIKE = 0.9  # score of a token spelled differently but sounding the same
CANDIDATES = 3  # vocabulary words considered per unknown token
MAX_READINGS = 24  # candidate word sequences tried per utterance
MIN_HAND_DICE = 3  # two bare faces are more likely noise than a hand
MAX_HAND_DICE = 10
_SLOT = "{player}"

Tokens = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ParseResult:
    """`score` is 1.0 for an exact grammar match, lower the more words were guessed."""

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


def _toks(text: str) -> Tokens:
    return tuple(tokenize(text))


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


def _with_player(intent: Intent, player: str) -> Intent:
    return intent if intent.player is not None else dataclasses.replace(intent, player=player)


class Parser:
    """Understands game speech for one table (its players' names)."""

    def __init__(self, players: Sequence[str] = ()) -> None:
        self.players = tuple(players)
        self._names: list[tuple[Tokens, str]] = sorted(
            ((_toks(p), p) for p in self.players if _toks(p)), key=lambda nt: -len(nt[0])
        )
        self._faces = {_toks(w)[0]: fw.face for fw in FACE_WORDS for w in (fw.singular, fw.plural)}
        self._clean = {_toks(w)[0]: v for w, v in CLEAN_WORDS.items()}
        self._bid_fillers = [()] + [_toks(f) for f in BID_FILLERS]
        self._number_fillers = [()] + [_toks(f) for f in NUMBER_FILLERS]
        self._hand_fillers = [()] + [_toks(f) for f in HAND_FILLERS]
        self._hand_all = {_toks(w)[0] for w in HAND_ALL}
        self._interjections = {_toks(w)[0] for w in INTERJECTIONS}
        self._and = _toks(AND)[0]
        self._fixed: dict[Tokens, Intent] = {}
        self._templates: list[tuple[Tokens, Tokens, str, str]] = []  # before, after, kind, arg
        self._build_phrases()
        self._vocab = self._build_vocab()
        self._keys = {}
        for word in sorted(self._vocab):
            self._keys.setdefault(phonetic(word), word)
        self._key_list = list(self._keys)
        self._cache: dict[str, list[tuple[str, float]]] = {}

    @property
    def known_words(self) -> frozenset[str]:
        """Every folded word the grammar uses, names included (an OOV check for recognizers)."""
        return frozenset(self._vocab)

    # --- tables -> lookup structures -------------------------------------------------

    def _build_phrases(self) -> None:
        for kind, phrases in COMMANDS.items():
            for text in phrases:
                self._fixed[_toks(text)] = plain_intent(kind)
                if kind in PRONOUN_COMMANDS:
                    self._fixed[_toks(f"{PRONOUN} {text}")] = plain_intent(kind)
                if kind in POLITE_COMMANDS:
                    self._fixed[_toks(f"{text} {POLITE}")] = plain_intent(kind)
        for text in ZERO_PHRASES:
            self._fixed[_toks(text)] = NumberIntent(value=0)
        for value, phrases in CHOICES.items():
            for text in phrases:
                self._fixed[_toks(text)] = ChoiceIntent(value=value)  # type: ignore[arg-type]
                if value in ("izquierda", "derecha"):
                    for prefix in DIRECTION_PREFIXES:
                        self._fixed[_toks(f"{prefix} {text}")] = ChoiceIntent(value=value)  # type: ignore[arg-type]
        for what, phrases in QUERIES.items():
            for text in phrases:
                self._add_template(text, "query", what)
        for text in STARTERS:
            self._add_template(text, "starter", "")

    def _add_template(self, text: str, kind: str, arg: str) -> None:
        if _SLOT not in text:
            self._fixed[_toks(text)] = QueryIntent(what=arg)  # type: ignore[arg-type]
            return
        before, after = text.split(_SLOT)
        self._templates.append((_toks(before), _toks(after), kind, arg))

    def _build_vocab(self) -> set[str]:
        words = set(number_words()) | set(self._faces) | set(self._clean)
        words |= self._interjections | self._hand_all | {self._and}
        for seq in [*self._fixed, *self._bid_fillers, *self._number_fillers, *self._hand_fillers]:
            words.update(seq)
        for before, after, _, _ in self._templates:
            words.update(before + after)
        for name, _ in self._names:
            words.update(name)
        return words

    # --- token correction ----------------------------------------------------------------

    def _candidates(self, token: str) -> list[tuple[str, float]]:
        """Vocabulary words this token may stand for, best first, with a confidence each.

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

    # --- the grammar -------------------------------------------------------------------

    def parse(self, text: str) -> ParseResult:
        """The intent of one utterance; `ParseResult(None, 0.0, "")` if it is not game speech.

        When words had to be guessed, readings are tried best-first (by the product of
        the word confidences, at most `MAX_READINGS`); the first the grammar explains wins.
        """
        if not text or len(text) > MAX_CHARS:
            return NO_PARSE
        tokens = tokenize(text)
        if not tokens or len(tokens) > MAX_TOKENS:
            return NO_PARSE
        options = [self._candidates(token) for token in tokens]
        if not all(options):
            return NO_PARSE
        for score, words in _best_first(options, MAX_READINGS):
            intent = self._utterance(words)
            if intent is None:
                continue
            if intent.type == "none" and score < SOUNDS_ALIKE:
                continue  # a name alone is too easily heard in any short word ("veo" ~ "Beto")
            return ParseResult(intent, round(score, 3), " ".join(words))
        return NO_PARSE

    def _utterance(self, words: Tokens) -> Intent | None:
        i = self._skip_interjections(words, 0)
        whole = self._body(words[i:])  # templates may start with a name: "Ana parte"
        named = self._name_at(words, i)
        if whole is not None or named is None:
            return whole
        player, i = named
        rest = words[self._skip_interjections(words, i) :]
        if not rest:
            return NameOnlyIntent(player=player)
        intent = self._body(rest)
        return None if intent is None else _with_player(intent, player)

    def _skip_interjections(self, words: Tokens, i: int) -> int:
        while i < len(words) and words[i] in self._interjections:
            i += 1
        return i

    def _name_at(self, words: Tokens, i: int) -> tuple[str, int] | None:
        for name, display in self._names:
            if words[i : i + len(name)] == name:
                return display, i + len(name)
        return None

    def _body(self, words: Tokens) -> Intent | None:
        if not words:
            return None
        if words in self._fixed:
            return self._fixed[words]
        return (
            self._template(words)
            or self._after_filler(words, self._bid_fillers, self._bid)
            or self._after_filler(words, self._number_fillers, self._count)
            or self._after_filler(words, self._hand_fillers, self._hand)
        )

    def _template(self, words: Tokens) -> Intent | None:
        for before, after, kind, arg in self._templates:
            end = len(words) - len(after)
            if end <= len(before) or words[: len(before)] != before or words[end:] != after:
                continue
            named = self._name_at(words[len(before) : end], 0)
            if named is None or named[1] != end - len(before):
                continue
            if kind == "starter":
                return StarterIntent(player=named[0])
            return QueryIntent(what=arg, player=named[0])  # type: ignore[arg-type]
        return None

    @staticmethod
    def _after_filler(
        words: Tokens, fillers: list[Tokens], rule: Callable[[Tokens], Intent | None]
    ) -> Intent | None:
        for filler in fillers:
            if words[: len(filler)] == filler:
                intent = rule(words[len(filler) :])
                if intent is not None:
                    return intent
        return None

    def _bid(self, words: Tokens) -> Intent | None:
        number = read_number(words)
        if number is None:
            return None
        quantity, i = number
        if i >= len(words) or words[i] not in self._faces:
            return None
        face = self._faces[words[i]]
        clean = False
        if i + 1 < len(words) and words[i + 1] in self._clean:
            clean = self._clean[words[i + 1]]
            i += 1
        if i + 1 != len(words):
            return None
        return BidIntent(quantity=quantity, face=face, clean=clean)

    @staticmethod
    def _count(words: Tokens) -> Intent | None:
        number = read_number(words)
        if number is None or number[1] != len(words):
            return None
        return NumberIntent(value=number[0])

    def _hand(self, words: Tokens) -> Intent | None:
        """Two or more groups "[number] face" (3-10 dice), maybe with "y"; or "todas quinas"."""
        if len(words) == 2 and words[0] in self._hand_all and words[1] in self._faces:
            return HandIntent(faces=(self._faces[words[1]],) * 5)
        pips = self._pips(words)
        if pips is not None:
            return pips
        faces: list[int] = []
        groups = 0
        i = 0
        while i < len(words):
            if groups and words[i] == self._and:
                i += 1
            count = 1
            number = read_number(words, i)
            if number is not None and words[i] not in self._faces:
                count, i = number
            if i >= len(words) or words[i] not in self._faces or not 1 <= count <= 5:
                return None
            faces.extend([self._faces[words[i]]] * count)
            groups += 1
            i += 1
        if groups < 2 or not MIN_HAND_DICE <= len(faces) <= MAX_HAND_DICE:
            return None
        return HandIntent(faces=tuple(faces))

    def _pips(self, words: Tokens) -> Intent | None:
        """Five dice said as pip numbers: "uno, uno, cinco, seis y seis"."""
        faces: list[int] = []
        i = 0
        while i < len(words) and len(faces) < 5:
            if faces and words[i] == self._and:
                i += 1
            number = read_number(words, i)
            if number is None or not 1 <= number[0] <= 6:
                return None
            faces.append(number[0])
            i = number[1]
        if i != len(words) or len(faces) != 5:
            return None
        return HandIntent(faces=tuple(faces))


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
