"""The phrase inventory: every game phrase with its intent, generated from the vocabulary tables.

Like hassil's sampler, this is the one list both sides agree on: the speech layer
builds recognizer grammars and candidate lists from it, and the tests check
that the parser reads every phrase back as exactly its intent.

`canonical=True` gives one text per intent per face word / core synonym
("cinco quinas" and "cinco chinas" both, but no fillers); `canonical=False`
adds the decorations people say ("hay cinco quinas", "Beto, dudo", "a la
izquierda", "yo paso").
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import combinations_with_replacement

from voice_ref.language.intents import (
    BidIntent,
    ChoiceIntent,
    HandIntent,
    Intent,
    NumberIntent,
    QueryIntent,
    SimpleIntent,
    StarterIntent,
)
from voice_ref.language.numbers import number_to_words
from voice_ref.language.vocabulary import (
    AND,
    BID_FILLERS,
    CHOICES,
    COMMANDS,
    DIRECTION_PREFIXES,
    FACE_WORDS,
    HAND_ALL,
    NUMBER_FILLERS,
    POLITE,
    POLITE_COMMANDS,
    PRONOUN,
    PRONOUN_COMMANDS,
    QUERIES,
    STARTERS,
    ZERO_PHRASES,
    FaceWord,
    clean_word,
    dialect_faces,
    say_bid_with,
)

MAX_QUANTITY = 60  # bids and counts listed: 1..60 dice (12 players x 5)
EXPECTING = ("turn", "count", "yes_no", "choice", "pass_check", "starter", "any")
_SLOT = "{player}"


@dataclass(frozen=True, slots=True)
class Phrase:
    text: str
    intent: Intent


class PhraseInventory:
    """All phrases a table can say, grouped by what the referee is waiting for.

    `clean_bids` adds "limpio"/"sucio" bids (the `cachito` preset).
    """

    def __init__(
        self,
        players: Sequence[str] = (),
        dialect: str = "chile",
        clean_bids: bool = False,
        max_quantity: int = MAX_QUANTITY,
    ) -> None:
        self.players = tuple(players)
        self.dialect = dialect
        self.clean_bids = clean_bids
        self.max_quantity = max_quantity
        self._faces = dialect_faces(dialect)  # validates the dialect now
        self._words: set[str] | None = None
        self._cache: dict[tuple[str, bool], tuple[Phrase, ...]] = {}

    def phrases(self, expecting: str = "any", canonical: bool = True) -> list[Phrase]:
        """The phrases accepted while the referee expects `expecting` (see `EXPECTING`)."""
        key = (expecting, canonical)
        if key not in self._cache:
            self._cache[key] = tuple(self._generate(expecting, canonical))
        return list(self._cache[key])

    def _generate(self, expecting: str, canonical: bool) -> list[Phrase]:
        groups = {
            "turn": self._turn,
            "count": self._count,
            "yes_no": self._yes_no,
            "choice": self._choice,
            "pass_check": self._pass_check,
            "starter": self._starter,
        }
        if expecting == "any":
            seen: set[str] = set()
            out: list[Phrase] = []
            for make in groups.values():
                for phrase in make(canonical):
                    if phrase.text not in seen:
                        seen.add(phrase.text)
                        out.append(phrase)
            return out
        if expecting not in groups:
            raise ValueError(f"expecting must be one of {', '.join(EXPECTING)}, not {expecting!r}")
        phrases = list(groups[expecting](canonical))
        if expecting != "turn":  # a wrong count or answer can be undone at the next question
            phrases += self._command("undo", canonical)
        return list(_dedupe(phrases))

    def words(self) -> set[str]:
        """Every word of every phrase, lower-case with accents (for a recognizer grammar)."""
        if self._words is None:
            self._words = {
                w.lower()
                for phrase in self.phrases("any", canonical=False)
                for w in phrase.text.split()
            }
        return set(self._words)

    # --- groups --------------------------------------------------------------------------

    def _turn(self, canonical: bool) -> Iterator[Phrase]:
        yield from self._bids(canonical)
        for kind in ("dudo", "calzo", "paso", "repeat", "undo", "new_game"):
            yield from self._command(kind, canonical)
        yield from self._queries()
        yield from self._names_alone()

    def _count(self, canonical: bool) -> Iterator[Phrase]:
        for n in range(self.max_quantity + 1):
            intent = NumberIntent(value=n)
            # Counts answer "¿cuántas quinas?" as often as "¿cuántos trenes?": both genders
            # are canonical ("uno" / "una", "veintiuno" / "veintiuna").
            texts = {number_to_words(n, apocope=False), number_to_words(n, feminine=True)}
            if not canonical:
                texts |= {f"{filler} {t}" for filler in NUMBER_FILLERS for t in list(texts)}
            for text in sorted(texts):
                yield Phrase(text, intent)
        zeros = ("ninguno", "ninguna") if canonical else ("ninguno", "ninguna", *ZERO_PHRASES)
        for text in zeros:
            yield Phrase(text, NumberIntent(value=0))

    def _yes_no(self, canonical: bool) -> Iterator[Phrase]:
        yield from self._command("yes", canonical)
        yield from self._command("no", canonical)

    def _choice(self, canonical: bool) -> Iterator[Phrase]:
        for value, texts in CHOICES.items():
            intent = ChoiceIntent(value=value)  # type: ignore[arg-type]
            for text in texts:
                yield Phrase(text, intent)
                if not canonical and value in ("izquierda", "derecha"):
                    for prefix in DIRECTION_PREFIXES:
                        yield Phrase(f"{prefix} {text}", intent)

    def _pass_check(self, canonical: bool) -> Iterator[Phrase]:
        yield from self._yes_no(canonical)
        yield from self._hands(canonical)

    def _starter(self, canonical: bool) -> Iterator[Phrase]:
        yield from self._names_alone()
        for template in STARTERS:
            for player in self.players:
                yield Phrase(template.replace(_SLOT, player), StarterIntent(player=player))

    # --- pieces ---------------------------------------------------------------------------

    def _bids(self, canonical: bool) -> Iterator[Phrase]:
        for fw in FACE_WORDS:
            for q in range(1, self.max_quantity + 1):
                for clean, suffix in self._clean_forms(fw, q, canonical):
                    intent = BidIntent(quantity=q, face=fw.face, clean=clean)
                    text = say_bid_with(q, fw) + suffix
                    yield Phrase(text, intent)
                    if canonical:
                        continue
                    for filler in BID_FILLERS:
                        yield Phrase(f"{filler} {text}", intent)
                    for player in self.players:
                        yield Phrase(f"{player} {text}", _named(intent, player))

    def _clean_forms(self, fw: FaceWord, q: int, canonical: bool) -> Iterable[tuple[bool, str]]:
        yield False, ""
        if self.clean_bids:
            yield True, " " + clean_word(fw, q, True)
            if not canonical:
                yield False, " " + clean_word(fw, q, False)

    def _command(self, kind: str, canonical: bool) -> Iterator[Phrase]:
        intent = SimpleIntent(kind=kind)
        for text in COMMANDS[kind]:
            yield Phrase(text, intent)
            if canonical:
                continue
            if kind in PRONOUN_COMMANDS:
                yield Phrase(f"{PRONOUN} {text}", intent)
            if kind in POLITE_COMMANDS:
                yield Phrase(f"{text} {POLITE}", intent)
            if kind in ("dudo", "calzo", "paso", "yes", "no"):
                for player in self.players:
                    yield Phrase(f"{player} {text}", _named(intent, player))

    def _queries(self) -> Iterator[Phrase]:
        for what, texts in QUERIES.items():
            for text in texts:
                if _SLOT not in text:
                    yield Phrase(text, QueryIntent(what=what))  # type: ignore[arg-type]
                    continue
                for player in self.players:
                    yield Phrase(
                        text.replace(_SLOT, player),
                        QueryIntent(what=what, player=player),  # type: ignore[arg-type]
                    )

    def _names_alone(self) -> Iterator[Phrase]:
        for player in self.players:
            yield Phrase(player, SimpleIntent(kind="none", player=player))

    def _hands(self, canonical: bool) -> Iterator[Phrase]:
        """Each five-dice hand once: grouped ("dos ases y tres sextos"), listed if not canonical."""
        for hand in combinations_with_replacement(range(1, 7), 5):
            intent = HandIntent(faces=hand)
            groups = [(face, hand.count(face)) for face in sorted(set(hand))]
            if len(groups) == 1:
                fw = self._faces[hand[0]]
                all_word = HAND_ALL[1] if fw.feminine else HAND_ALL[0]
                yield Phrase(f"{all_word} {fw.plural}", intent)
            else:
                spoken = [say_bid_with(n, self._faces[face]) for face, n in groups]
                yield Phrase(f"{' '.join(spoken[:-1])} {AND} {spoken[-1]}", intent)
            if not canonical:
                yield Phrase(" ".join(self._faces[face].singular for face in hand), intent)
                pips = [number_to_words(face, apocope=False) for face in hand]
                yield Phrase(f"{' '.join(pips[:-1])} {AND} {pips[-1]}", intent)


def _named(intent: Intent, player: str) -> Intent:
    return replace(intent, player=player)


def _dedupe(phrases: Iterable[Phrase]) -> Iterator[Phrase]:
    seen: set[str] = set()
    for phrase in phrases:
        if phrase.text not in seen:
            seen.add(phrase.text)
            yield phrase
