"""How a table says things: words for each intended action, drawn from the referee's grammar.

Players do not talk like a list: they put fillers before bids ("subo a cinco quinas"), their
name before a call ("Beto, dudo"), face names of other regions, ask the referee things now
and then, talk among themselves between turns and sometimes call a raise that is too low.
Every game phrase comes from the one grammar (`voice_ref.language.grammar`, through the
phrase inventory): the plain phrases (`Level.CORE`) and those with one decoration
(`Level.COMMON`, what the recognizers are offered), each from the listening context the line
is said in, so the simulated table speaks exactly what the referee claims to understand
then, and nothing else ("tengo un cuatro" tells the starter roll, it is no bid in a turn).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum

from voice_ref.language.expecting import Expecting
from voice_ref.language.grammar import Level
from voice_ref.language.intents import (
    BidIntent,
    Intent,
    NoIntent,
    NumberIntent,
    QueryIntent,
    YesIntent,
)
from voice_ref.language.inventory import PhraseInventory
from voice_ref.language.numbers import number_to_words
from voice_ref.language.vocabulary import INTERJECTIONS
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

# What the table says while the dice are shown after a challenge, before anyone gives the
# count (no game words; "no puede ser" begins like "no hay ninguno"). The referee is
# waiting for a count then, and a count taken from talk decides who loses a die.
COUNT_TALK: tuple[str, ...] = (
    "a ver, a ver",
    "levanten los cachos",
    "a ver qué tienen",
    "cuenten bien",
    "no puede ser",
    "lo sabía",
    "muestren los dados",
    "te pillé",
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

    decorated: float = 0.35  # a filler, "yo", a face name of another region, ...
    name_first: float = 0.12
    interjection: float = 0.08
    query: float = 0.04
    talk: float = 0.04
    illegal_raise: float = 0.03
    # A count answered by counting the dice aloud, "uno … dos … tres" (counts 2 to
    # `COUNTED_ALOUD_UP_TO`): the referee must take the last number, not the first.
    count_aloud: float = 0.0
    # How often such a count begins with a hesitation, "eh, uno … dos … tres": people
    # look at the dice before they count, and "eh, uno" may be heard as "hay uno".
    count_hesitation: float = 0.0
    # How often someone talks while the count is awaited, before it is said ("a ver,
    # levanten los cachos"; `COUNT_TALK`).
    count_talk: float = 0.0


# What a simulated player begins a line with ("eh, dudo"). Not "mm" / "mmm": espeak-ng
# spells them out letter by letter ("eme, eme, eme"), which no player says, and Whisper
# wrote "En el en el" (17 of 47 calls not taken at first in session 42's games). A real
# hum is not simulated.
SPOKEN_HESITATIONS: tuple[str, ...] = tuple(
    w for w in INTERJECTIONS[:6] if not set(w) <= {"m"}
)

COUNTED_ALOUD_UP_TO = 8
# Between the numbers of a count said aloud (`Renderer` pauses there).
COUNTING_PAUSE = " … "


def _key(expecting: Expecting, intent: Intent) -> tuple[Expecting, str]:
    return expecting, json.dumps(intent.to_json(), sort_keys=True)


class Phrasing:
    """Words for intents, in one table's dialect, with a table's habits."""

    def __init__(self, rng: random.Random, players: Sequence[str], dialect: str = "chile",
                 style: Style = Style(), *, clean_bids: bool) -> None:
        """`clean_bids` is the table's rule (`Rules.clean_bids`), required so no caller can
        forget it: players of a preset without limpio bids do not say "sucias" either."""
        self.rng = rng
        self.style = style
        inventory = PhraseInventory(list(players), dialect, clean_bids=clean_bids)
        self._plain: dict[tuple[Expecting, str], list[str]] = {}
        self._decorated: dict[tuple[Expecting, str], list[str]] = {}
        for level, index in ((Level.CORE, self._plain), (Level.COMMON, self._decorated)):
            for context in Expecting:
                if context is Expecting.ANY:
                    continue
                for phrase in inventory.phrases(context, level=level):
                    index.setdefault(_key(context, phrase.intent), []).append(phrase.text)

    def say(self, speaker: str, intent: Intent, expecting: Expecting, *,
            plain: bool = False) -> str:
        """The words `speaker` uses for `intent` while the referee expects `expecting`;
        `plain` drops the decorations (a repeat said carefully after the referee did not
        get it)."""
        rng, style = self.rng, self.style
        if plain:
            return self._pick(self._plain, expecting, intent, first=True)
        if (style.count_aloud and isinstance(intent, NumberIntent)
                and 2 <= intent.value <= COUNTED_ALOUD_UP_TO and rng.random() < style.count_aloud):
            counted = COUNTING_PAUSE.join(number_to_words(k, apocope=False)
                                          for k in range(1, intent.value + 1))
            if style.count_hesitation and rng.random() < style.count_hesitation:
                return self._interjected(counted)
            return counted
        named = replace(intent, player=speaker)
        if intent.player is None and rng.random() < style.name_first \
                and _key(expecting, named) in self._decorated:
            return self._pick(self._decorated, expecting, named)
        if rng.random() < style.decorated:
            text = self._pick(self._decorated, expecting, intent)
        else:
            text = self._pick(self._plain, expecting, intent)
        if rng.random() < style.interjection:
            text = self._interjected(text)
        return text

    def _interjected(self, text: str) -> str:
        """`text` after a hesitation or a "bueno", as people begin a line: "eh, dudo"."""
        return f"{self.rng.choice(SPOKEN_HESITATIONS)}, {text}"

    def obligar(self, yes: bool) -> str:
        """ "¿Obligas?" is answered "sí" / "no" or "sí obligo" / "no obligo"."""
        return self._pick(self._decorated, Expecting.YES_NO, YesIntent() if yes else NoIntent())

    def talk(self) -> str:
        return self.rng.choice(TABLE_TALK)

    def count_talk(self) -> str:
        return self.rng.choice(COUNT_TALK)

    def query(self) -> QueryIntent:
        return QueryIntent(what=self.rng.choice(("dice", "turn", "minimum", "bid")))

    def illegal_raise(self, game: Game) -> BidIntent | None:
        """A bid that does not beat the standing one (the same bid again, or one less)."""
        bid = game.bid
        if bid is None or bid.quantity < 2:
            return None
        quantity = bid.quantity - self.rng.choice((0, 1))
        return BidIntent(quantity=quantity, face=int(bid.face), clean=bid.clean)

    def _pick(self, index: dict[tuple[Expecting, str], list[str]], expecting: Expecting,
              intent: Intent, first: bool = False) -> str:
        key = _key(expecting, intent)
        texts = index.get(key) or self._plain.get(key)
        if not texts:
            raise ValueError(f"the grammar has no phrase for {intent.to_json()} in {expecting}")
        return texts[0] if first else self.rng.choice(texts)
