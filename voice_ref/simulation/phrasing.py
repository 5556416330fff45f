"""How a table says things: words for each intended action, from the language vocabulary.

Players do not talk like a grammar: they put fillers before bids ("subo a cinco quinas"),
their name before a call ("Beto, dudo"), use their region's face names ("tres chinas"),
ask the referee things now and then, talk among themselves between turns, and sometimes
call a raise that is too low. All of it comes from `voice_ref.language.vocabulary`, so the
simulated table speaks exactly the phrases the parser claims to understand.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import Enum

from voice_ref.language.intents import (
    BidIntent,
    ChoiceIntent,
    Intent,
    NumberIntent,
    QueryIntent,
    SimpleIntent,
    StarterIntent,
)
from voice_ref.language.numbers import number_to_words
from voice_ref.language.vocabulary import (
    BID_FILLERS,
    COMMANDS,
    DIRECTION_PREFIXES,
    FACE_WORDS,
    INTERJECTIONS,
    NUMBER_FILLERS,
    PRONOUN,
    PRONOUN_COMMANDS,
    QUERIES,
    STARTERS,
    ZERO_PHRASES,
    dialect_faces,
    say_bid_with,
)
from voice_ref.rules.game import Game

# Everyday sentences at a dice table that must change nothing (no game words in them).
TABLE_TALK: tuple[str, ...] = (
    "qué mala suerte tengo hoy",
    "pásame la bebida",
    "esta ronda la gano yo",
    "no me mires así",
    "a ver, a ver",
    "estás mintiendo",
    "hace calor aquí",
    "me toca barajar la suerte",
    "qué nervios",
    "vamos que se puede",
)


class Kind(Enum):
    """Why a player speaks: what the simulator expects the referee to do with it."""

    ACTION = "action"  # an intended game action (first try or a repeat)
    ANSWER = "answer"  # sí / no to "¿Dijiste ...?"
    CORRECTION = "correction"  # "me equivoqué": undo what the referee took wrongly
    QUERY = "query"  # a question to the referee: answered, nothing changes
    TALK = "talk"  # table talk: must be ignored
    ILLEGAL = "illegal"  # a raise that is too low: must be refused


@dataclass(frozen=True, slots=True)
class Line:
    speaker: str
    text: str
    kind: Kind
    meant: Intent | None  # what the speaker means (None for table talk)


@dataclass(frozen=True, slots=True)
class Style:
    """How often a table decorates what it says (probabilities per utterance)."""

    filler: float = 0.25
    name_first: float = 0.12
    other_face_name: float = 0.3
    interjection: float = 0.08
    query: float = 0.04
    talk: float = 0.04
    illegal_raise: float = 0.03


class Phrasing:
    """Words for intents, in one table's dialect, with a table's habits."""

    def __init__(self, rng: random.Random, dialect: str = "chile", style: Style = Style()) -> None:
        self.rng = rng
        self.style = style
        self.faces = dialect_faces(dialect)

    def say(self, speaker: str, intent: Intent, *, plain: bool = False) -> str:
        """The words `speaker` uses for `intent`; `plain` drops the decorations (a repeat said
        carefully after the referee did not get it)."""
        rng, style = self.rng, self.style
        if isinstance(intent, BidIntent):
            text = self._bid(intent, plain)
            if not plain and rng.random() < style.filler:
                text = f"{rng.choice(BID_FILLERS)} {text}"
            return self._decorate(speaker, text, plain)
        if isinstance(intent, NumberIntent):
            return self._count(intent.value, plain)
        if isinstance(intent, ChoiceIntent):
            if intent.value in ("izquierda", "derecha") and (plain or rng.random() < 0.7):
                return f"{rng.choice(DIRECTION_PREFIXES[:1] if plain else DIRECTION_PREFIXES)} " \
                       f"{intent.value}"
            return intent.value
        if isinstance(intent, StarterIntent):
            assert intent.player is not None
            template = STARTERS[0] if plain else rng.choice(STARTERS)
            return template.format(player=intent.player)
        if isinstance(intent, QueryIntent):
            template = rng.choice([q for q in QUERIES[intent.what] if "{player}" not in q])
            return template
        if isinstance(intent, SimpleIntent):
            kind = intent.type
            words = COMMANDS[kind][0] if plain else rng.choice(COMMANDS[kind][:1] * 3
                                                              + COMMANDS[kind][1:])
            if kind in ("yes", "no"):
                return COMMANDS[kind][0]
            if kind in PRONOUN_COMMANDS and not plain and rng.random() < 0.15:
                words = f"{PRONOUN} {words}"
            return self._decorate(speaker, words, plain)
        raise ValueError(f"no phrasing for {intent!r}")

    def obligar(self, yes: bool) -> str:
        """ "¿Obligas?" is answered "sí" / "no" or "sí obligo" / "no obligo"."""
        options = COMMANDS["yes" if yes else "no"]
        return self.rng.choice([o for o in options if o in ("sí", "no", "sí obligo", "no obligo")])

    def talk(self) -> str:
        return self.rng.choice(TABLE_TALK)

    def query(self) -> QueryIntent:
        return QueryIntent(what=self.rng.choice(("dice", "turn", "minimum", "bid")))

    def illegal_raise(self, game: Game) -> BidIntent | None:
        """A bid that does not beat the standing one (the same bid again, or one less)."""
        bid = game.bid
        if bid is None or bid.quantity < 2:
            return None
        quantity = bid.quantity - self.rng.choice((0, 1))
        return BidIntent(quantity=quantity, face=int(bid.face), clean=bid.clean)

    # -- pieces ------------------------------------------------------------------------

    def _bid(self, intent: BidIntent, plain: bool) -> str:
        fw = self.faces[intent.face]
        if not plain and self.rng.random() < self.style.other_face_name:
            fw = self.rng.choice([w for w in FACE_WORDS if w.face == intent.face])
        return say_bid_with(intent.quantity, fw, intent.clean)

    def _count(self, value: int, plain: bool) -> str:
        if value == 0 and not plain and self.rng.random() < 0.5:
            return self.rng.choice(ZERO_PHRASES)
        word = number_to_words(value, apocope=False) if value else "cero"
        if not plain and self.rng.random() < self.style.filler:
            return f"{self.rng.choice(NUMBER_FILLERS)} {word}"
        return word

    def _decorate(self, speaker: str, text: str, plain: bool) -> str:
        if plain:
            return text
        if self.rng.random() < self.style.name_first:
            return f"{speaker}, {text}"
        if self.rng.random() < self.style.interjection:
            return f"{self.rng.choice(INTERJECTIONS[:6])}, {text}"
        return text
