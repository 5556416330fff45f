"""From one recognized utterance to one decision: accept an intent, confirm it, or ignore it.

The same rules serve every backend (Vosk, Whisper) and both the live loop and the
bench. Steps, for each utterance:

1. **Readings.** Each hypothesis is parsed; hypotheses reading as the same intent pool
   their scores, and the reading keeps every phrasing (`Reading.phrasings`): the
   evidence of step 4 looks at the phrasing that fits the audio best (a lone "dudo"
   often scores best as "dudo dudo"). The backend's free transcript
   (`Utterance.free_text`), when it is one of the hypotheses, is the "table talk"
   reading unless it parses as a game intent.
2. **What the game allows** (`GameView`). A reading that cannot answer now (a bare
   number while a bid is expected, a count or bid above the dice on the table, the call
   just taken back with "me equivoqué") is no candidate: it is dropped and the rest
   scaled back to the same total (its mass is not handed to the talk reading either:
   the recognizer said *something* game-like).
   A free transcript that reads as such an answer is table talk.
3. **Priors.** Likely answers (the minimum raises, one more of the standing face, dudo) get
   `raise_prior` nats over far-fetched ones; a reading the free transcript itself
   spells gets `free_agree` nats, one it only sounds like `sound_agree`. A call the
   table refused with "no" to "¿Dijiste …?" at this question (`Refusals`, kept by
   `TableDecider` until the game moves) loses `refused_penalty` nats per "no": it is not
   asked about again unless heard clearly. A prior, never a ban: a "sí" misheard as "no"
   cannot lock the table out of its own call. A bid above what the dice on the table
   plausibly hold (`GameView.ceilings`) loses `implausible_nats` per die over: "trece
   sextos" after "dos sextos" at 15 dice is "tres sextos" misheard. Asked for the count,
   `count_prior` x the binomial log-odds of each count against the likeliest one
   (`GameView.count_logp`): at 15 dice, "una" sexto is 2.5 nats rarer than five.
4. **Evidence against game speech** (`talk_evidence`): a fluent free transcript that
   parses as no game intent and is far from the chosen phrase both in spelling
   (rapidfuzz) and, unless Whisper is sure of it, in sound (`language.phonetic`: "Tuna"
   for "dudo" is the call misheard), or a phrase whose length cannot fit the speech.
   With it, the reading is at most confirmed. A name said alone also needs a free
   transcript that sounds like the name (`name_evidence`: "Para." is no "Ana").
   Weaker evidence, a free transcript of other words that neither reads as the reading
   nor sounds like it (`doubted_by_words`), only raises the share the reading needs
   (`accept_doubted`): mixed evidence is confirmed. So does the table's history
   (`GameView.wary`): right after the table corrected the referee ("me equivoqué", or
   "no" to "¿Dijiste …?") the next call is usually the same call said again, and a call
   misheard once is often misheard again the same way; a game move read then needs
   `accept_doubted` too, so a misheard repeat costs the table one "no" instead of a wrong
   action and a "me equivoqué", while a clearly heard one is still taken at once.
5. **Thresholds** (chosen on the tuning voices, BENCHMARKS.md): a bid or an answer
   needs `accept` share, a consequential action (dudo, calzo, paso, undo, new game:
   they end a round or rewrite it) and a "sí" (it commits what was asked) need
   `accept_consequential`; a legal reading
   between `confirm` and its threshold is **confirmed** ("¿Dijiste cuatro quinas?")
   instead of ignored. Answering the loop's own "¿Dijiste …?" (`GameView.confirming`),
   a "no" needs only `accept`, whatever the free transcript says (a wrong "no" costs
   the table what the question asked again costs: one line), and a doubted "sí" needs
   `accept_doubted_yes` (two answers to choose from: a share says less).
6. **Legality.** An illegal best reading with a legal one within `confirm_margin`
   confirms the legal one (a misheard bid); otherwise the illegal one is accepted so
   the referee explains why (bad input gets a clear answer and changes nothing).

A name said alone is accepted as `{"type": "none", "player": ...}`: it tells the referee
who is speaking but is no game action, and a call that follows it within
`NAME_GAP_S` ("Carla… cuatro trenes", cut in two by the VAD) carries that player
(`Decider`).

**Fragments** (`Decider`): real speakers pause inside a phrase for longer than the
VAD's end-of-speech silence, so "un sexto" can arrive as "un" | "sexto". An utterance
that cannot answer now and whose free transcript is a bare count or a face word alone
(while a bid is expected), or a number cut after its "y" ("cuarenta y" | "siete", in any
context), is *held* (action "hold"); the next utterance, if it starts
within `FRAGMENT_GAP_S`, is decided joined with it (each of its readings prefixed by the
fragment where that still parses; the free transcripts joined). A fragment that gets no
continuation is not dropped silently: the decision is "reask" (the loop asks the table
to repeat), on the next utterance or when the loop's wait for one runs out.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from rapidfuzz import fuzz

from voice_ref.language.expecting import Expecting
from voice_ref.language.intents import (
    BidIntent,
    CalzoIntent,
    CorrectionIntent,
    DudoIntent,
    Intent,
    NameOnlyIntent,
    NewGameIntent,
    NoIntent,
    NumberIntent,
    PasoIntent,
    QueryIntent,
    RepeatIntent,
    UndoIntent,
    YesIntent,
)
from voice_ref.language.inventory import Phrase
from voice_ref.language.lexicon import Lexicon
from voice_ref.language.phonetic import sound_similarity
from voice_ref.language.spoken import spelled_out, syllables
from voice_ref.language.text import fold, tokenize
from voice_ref.language.vocabulary import FACE_WORDS
from voice_ref.rules.bid import Bid
from voice_ref.rules.counting import count_logp, plausible_count
from voice_ref.voice.asr.base import Hypothesis, ListenContext, Utterance
from voice_ref.voice.asr.duration import duration_logp
from voice_ref.voice.ports import GamePort, RefereePort

if TYPE_CHECKING:
    from voice_ref.config import Config

class Action(StrEnum):
    """What the loop does with an utterance (equal to its protocol string)."""

    ACCEPT = "accept"  # act on it
    CONFIRM = "confirm"  # ask "¿Dijiste …?" first
    IGNORE = "ignore"  # table talk or too unsure: nothing said
    HOLD = "hold"  # a fragment kept for its continuation ("un" | "sexto")
    REASK = "reask"  # a fragment that got none: ask the table to repeat
CONSEQUENTIAL = (DudoIntent, CalzoIntent, PasoIntent, UndoIntent, NewGameIntent)
# Lines that make no game move: wariness after a correction never slows them (a second
# "me equivoqué" is taken as the first was; a new game is asked about anyway).
NO_MOVE = (UndoIntent, QueryIntent, RepeatIntent, NewGameIntent, NameOnlyIntent)
NAME_GAP_S = 1.5  # a call starting this soon after a name alone is that player's
# A continuation starting this soon after a fragment's end joins it. Real pauses inside
# a phrase are 0.2-1 s; a new call after a bare number comes later than that.
FRAGMENT_GAP_S = 1.2
# What can answer the loop's own "¿Dijiste …?": sí / no, and what never moves the game
# (a name, "repite", "me equivoqué", a question to the referee).
CONFIRMATION_KINDS = frozenset({"yes", "no", "none", "repeat", "undo", "query"})


class TextParser(Protocol):
    def parse(self, text: str): ...  # noqa: ANN201 - returns language.parser.ParseResult


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Every number the decision uses; the defaults were chosen on the DEV tuning voices
    and tuning-real (BENCHMARKS.md, "Decision thresholds"). `accept` and `confirm_margin`
    come from the config (`asr.speech_accept_score`, `asr.confirm_margin`); `accept` was
    re-chosen for speculative end-pointing (BENCHMARKS.md, session 6)."""

    accept: float = 0.45
    accept_consequential: float = 0.6
    confirm: float = 0.3
    confirm_margin: float = 0.15
    talk_similarity: float = 0.55  # free transcript vs chosen phrase, 0..1 (rapidfuzz ratio)
    # ... and a free transcript that *sounds* at least this like the chosen phrase
    # (`language.phonetic`, 0..1) is no evidence against it either ("Tuna" for "dudo").
    sound_alike: float = 0.75
    # ... unless the free transcript is at least this fluent: then it is what was said,
    # however it sounds ("presiones" is no "tres dones").
    sound_fluent: float = -0.8
    # A name said alone needs a free transcript that sounds at least this like the name
    # (when there is one, at least `fluent_words` fluent): "para" is no "Ana".
    name_sound: float = 0.5
    fluent: float = -0.8  # mean token log-probability above which a free transcript is sure
    # ... and above which it is sure when every word of it is an ordinary Spanish word
    # (`language.lexicon`): real voices' single words come out at -0.8 to -1.9.
    fluent_words: float = -2.5
    # ... and above which it counts against a consequential action (dudo, calzo, paso,
    # undo, new game: they end or rewrite a round), whatever its words.
    fluent_consequential: float = -2.0
    # With evidence against it, a legal reading is confirmed; ignored when the free
    # transcript is at least this fluent (no question for what was surely table talk).
    sure_talk: float = -0.8
    # A reading the free transcript doubts (`doubted_by_words`: other words, at least
    # `fluent_doubted` fluent, not sounding like it) needs `accept_doubted` share instead
    # of `accept` (a consequential action: the higher of it and `accept_consequential`);
    # below, it is confirmed. Chosen on the tuning rows (both halves of DEV tuning,
    # tuning-real under two CPU kernel settings) by the table's cost, in the middle of
    # the tied range (BENCHMARKS.md, "Table talk on real voices"). `accept_doubted` <=
    # `accept` switches it off.
    accept_doubted: float = 0.7
    # ... and a doubted "sí" to the loop's own "¿Dijiste …?" needs this: with two
    # answers to choose from, a share says less, and a wrong "sí" commits the call.
    # Chosen on whole games of the DEV tuning voices (BENCHMARKS.md, session 9): a "no"
    # heard as "sí" over other words came out at 0.72-0.88, a right one spelled "sí".
    accept_doubted_yes: float = 0.9
    fluent_doubted: float = -3.5  # only loops ("No, no, no, ...": -inf) and garbage fall below
    duration_logp: float = -5.0  # below (> 3x too long or short): cannot be what was said
    raise_prior: float = 1.0  # nats for a likely raise (not tunable on clips: no standing bid)
    free_agree: float = 2.0  # nats for the reading the free transcript spells
    sound_agree: float = 1.0  # nats for the reading it sounds most like (>= sound_alike)
    # Nats against a reading each time the table said "no" to it at this question
    # (`GameView.refused`). Chosen on whole games of the DEV tuning voices
    # (BENCHMARKS.md, session 10).
    refused_penalty: float = 3.0
    # Nats against a bid per die above its ceiling (`GameView.ceilings`). Chosen on whole
    # games of the DEV tuning voices (BENCHMARKS.md, session 11); clips have no dice.
    implausible_nats: float = 1.0
    # Weight of the binomial prior on the count the table answers (`GameView.count_logp`).
    # Chosen on whole games of the DEV tuning voices (BENCHMARKS.md, session 11).
    count_prior: float = 0.5


def _any_answer(_intent: Intent) -> bool:
    """Legality when nothing rules a reading out: no game state, or the loop's own
    "¿Dijiste …?" (any sí or no answers it)."""
    return True


@dataclass(frozen=True, slots=True)
class GameView:
    """What the game knows now. `kinds` = intent types that can answer (None: any);
    `dice_on_table` bounds counts and bids; `likely` are the likely raises."""

    kinds: frozenset[str] | None = None
    dice_on_table: int | None = None
    likely: frozenset[Intent] = frozenset()
    is_legal: Callable[[Intent], bool] = _any_answer
    taken_back: Intent | None = None  # just undone ("me equivoqué"): not that reading again
    # The calls the table said "no" to at this question ("¿Dijiste …?" "no"), once per
    # "no": a soft prior (`Thresholds.refused_penalty`), never a ban, so a wrong "no"
    # cannot lock the table out of its own call.
    refused: tuple[Intent, ...] = ()
    # The table just corrected the referee here (an undo, or "no" to "¿Dijiste …?") and the
    # game has not moved since: a game move needs `accept_doubted` (module docstring, 4).
    wary: bool = False
    # The answer to the loop's own "¿Dijiste …?": a "no" there costs the table what the
    # question asked again costs (the call is said again), so nothing holds it back.
    confirming: bool = False
    # Per (face, clean): the highest quantity a bid plausibly has now (`bid_ceilings`).
    ceilings: Mapping[tuple[int, bool], float] = field(default_factory=dict)
    # Asked for the count: per count, its binomial log-probability minus the likeliest
    # count's (<= 0), from the dice on the table (the referee never sees them).
    count_logp: Mapping[int, float] = field(default_factory=dict)

    @classmethod
    def of_context(cls, context: ListenContext, **kw) -> GameView:  # noqa: ANN003
        kinds = frozenset(p.intent.type for p in context.phrases) if context.phrases else None
        return cls(kinds=kinds, **kw)

    def possible(self, intent: Intent) -> bool:
        """Could this be an answer now, whatever its legality? (see module docstring, 2)"""
        if self.kinds is not None and intent.type not in self.kinds:
            return False
        if _bare(intent) == self.taken_back:
            return False
        match intent:
            case (
                BidIntent(quantity=amount)
                | CorrectionIntent(quantity=amount)
                | NumberIntent(value=amount)
            ):
                return self.dice_on_table is None or amount <= self.dice_on_table
        return True

    def is_likely(self, intent: Intent) -> bool:
        return _bare(intent) in self.likely

    def refusal_nats(self, intent: Intent, limits: Thresholds) -> float:
        """What the table's "no"s at this question say against `intent` (nats, <= 0)."""
        bare = _bare(intent)
        return -limits.refused_penalty * self.refused.count(bare)

    def implausible_nats(self, intent: Intent, limits: Thresholds) -> float:
        """What the dice on the table say against a bid this high (nats, <= 0)."""
        if not isinstance(intent, (BidIntent, CorrectionIntent)):
            return 0.0
        ceiling = self.ceilings.get((intent.face, intent.clean))
        if ceiling is None or intent.quantity <= ceiling:
            return 0.0
        return -limits.implausible_nats * (intent.quantity - ceiling)

    def count_nats(self, intent: Intent, limits: Thresholds) -> float:
        """What the odds of the dice say about a count this far from the likeliest."""
        if not isinstance(intent, NumberIntent):
            return 0.0
        return limits.count_prior * self.count_logp.get(intent.value, 0.0)


@dataclass(frozen=True, slots=True)
class Reading:
    intent: Intent | None  # None: table talk
    share: float
    text: str
    from_free: bool = False  # the free transcript reads as this intent
    # Every phrasing of this reading in the n-best, best first ("dudo dudo", "dudo",
    # "yo dudo"): the evidence about what was said compares the free transcript and the
    # speech's length with the phrasing that fits best, not only with the best-scored one
    # (a lone "dudo" often scores best as "dudo dudo", which "Duna" is half of).
    texts: tuple[str, ...] = ()

    @property
    def phrasings(self) -> tuple[str, ...]:
        return self.texts or (self.text,)


@dataclass(frozen=True, slots=True)
class Decision:
    intent: Intent | None
    action: Action
    score: float
    alternatives: tuple[tuple[Intent, float], ...] = ()
    heard: str = ""
    why: str = ""  # a short reason for the operator and the bench

    @property
    def is_game_action(self) -> bool:
        return self.action == Action.ACCEPT and self.intent is not None and not isinstance(
            self.intent, NameOnlyIntent
        )


def _bare(intent: Intent) -> Intent:
    return replace(intent, player=None) if intent.player is not None else intent


def _is_name(intent: Intent | None) -> bool:
    return isinstance(intent, NameOnlyIntent) and intent.player is not None


def ranked_intents(utterance: Utterance, parser: TextParser) -> list[Reading]:
    """One reading per distinct intent of the n-best (table talk: one per text), its
    share the pooled score, best first."""
    pooled: dict[str, Reading] = {}
    for hyp in utterance.hypotheses:
        intent = parser.parse(hyp.text).intent if hyp.text.strip() else None
        # "Beto, dudo" and "dudo" are one action: they pool, the best phrasing names it.
        key = repr(_bare(intent).to_json()) if intent is not None else "\0" + hyp.text
        if _is_name(intent):
            key += str(intent.player)
        old = pooled.get(key)
        if old is None:
            pooled[key] = Reading(intent, hyp.score, hyp.text, texts=(hyp.text, *hyp.phrasings))
        else:
            texts = (*old.texts, hyp.text, *hyp.phrasings)
            pooled[key] = replace(old, share=old.share + hyp.score, texts=texts)
    return sorted(pooled.values(), key=lambda r: -r.share)


def readings(
    utterance: Utterance, parser: TextParser, view: GameView, limits: Thresholds
) -> tuple[list[Reading], Intent | None]:
    """Steps 1-3: possible readings with their shares (renormalized), best first, and
    what the free transcript reads as (None: no game intent)."""
    free = utterance.free_text.strip()
    free_intent = parser.parse(spelled_out(free)).intent if free else None
    if free_intent is not None and not view.possible(free_intent):
        free_intent = None
    if _is_name(free_intent) and not sounds_like_name(free, free_intent, limits):
        free_intent = None  # "Para." spelled near "Ana" is no name
    out: list[Reading] = []
    ranked = ranked_intents(utterance, parser)
    before = sum(r.share for r in ranked)  # kept: a backend's n-best may not sum to 1
    closest = sounding_closest(free, ranked, limits) if limits.sound_agree else frozenset()
    for reading in ranked:
        intent, text = reading.intent, reading.text
        if intent is not None and not view.possible(intent):
            if text.strip() != free:
                continue  # no candidate now
            intent = None  # the free transcript reads as an impossible answer: talk
        agrees = (
            free_intent is not None and intent is not None and _bare(intent) == _bare(free_intent)
        )
        # A "no" is evidence against that reading only, not for game speech: its mass
        # goes back to every reading, table talk included (Bayes with the table's answer
        # as one more observation; the likely-raise prior below is about game readings).
        weight = 0.0 if intent is None else view.refusal_nats(intent, limits)
        if agrees:
            weight += limits.free_agree
        elif intent is not None and text in closest:
            weight += limits.sound_agree
        out.append(
            replace(
                reading, intent=intent, share=reading.share * math.exp(weight), from_free=agrees
            )
        )
    out = _game_prior(out, view, limits)
    total = sum(r.share for r in out)
    if total <= 0:
        return [], free_intent
    out = [replace(r, share=r.share * before / total) for r in out]
    return sorted(out, key=lambda r: -r.share), free_intent


def _game_prior(out: list[Reading], view: GameView, limits: Thresholds) -> list[Reading]:
    """The game's prior moves mass among the game readings only: a likely answer (a
    minimum raise, a dudo over a bid) is likelier than a far-fetched one, and a bid the
    dice cannot plausibly hold unlikelier, but what the game expects says nothing about
    whether the audio was game speech at all, so table talk keeps its share ("dudo" 0.52
    against talk 0.48 is still asked about)."""

    def nats(intent: Intent) -> float:
        likely = limits.raise_prior if view.is_likely(intent) else 0.0
        return likely + view.implausible_nats(intent, limits) + view.count_nats(intent, limits)

    game = sum(r.share for r in out if r.intent is not None)
    lifted = [
        replace(r, share=r.share * math.exp(nats(r.intent))) if r.intent is not None else r
        for r in out
    ]
    lifted_game = sum(r.share for r in lifted if r.intent is not None)
    if game <= 0 or lifted_game <= 0:
        return out
    scale = game / lifted_game
    return [replace(r, share=r.share * scale) if r.intent is not None else r for r in lifted]


def sounding_closest(
    free: str, ranked: list[Reading], limits: Thresholds
) -> frozenset[str]:
    """The texts of the game readings the free transcript sounds most like, if at least
    `sound_alike` ("Y sextos": "10 sextos" rather than "7 sextos")."""
    if not free:
        return frozenset()
    sims = {r.text: sounds_like(free, r) for r in ranked if r.intent}
    best = max(sims.values(), default=0.0)
    if best < limits.sound_alike:
        return frozenset()
    return frozenset(text for text, sim in sims.items() if sim == best)


def opens(free: str, reading: str) -> bool:
    """Whether the free transcript is the first words of the reading ("No," for "no hay
    ninguno", "Me..." for "me equivoqué"): Whisper often writes the first word and then
    loops on it, and a loop is cut to its first period (`whisper_backend.loop_cut`), so
    such a transcript says nothing against the rest of the phrase."""
    words = tokenize(spelled_out(free))
    return bool(words) and tokenize(spelled_out(reading))[: len(words)] == words


def opens_any(free: str, reading: Reading) -> bool:
    """Whether the free transcript is the first words of any of the reading's phrasings."""
    return any(opens(free, text) for text in reading.phrasings)


def similarity(a: str, b: str) -> float:
    """0..1: how alike two transcripts are, ignoring case, accents and punctuation."""
    a, b = (re.sub(r"[^\w ]", "", fold(x)).strip() for x in (a, b))
    return fuzz.ratio(a, b) / 100.0


def spelling_similarity(free: str, reading: str) -> float:
    """`similarity` of a free transcript and a reading; when Whisper wrote a number in
    digits ("Y a 16 esquinas."), both sides with their numbers spelled out, so a number is
    compared as the words said, however each side writes it. A transcript without digits
    is compared as written: a fluent "nuevos" is no "9 dones"."""
    if re.search(r"\d", free):
        return similarity(spelled_out(free), spelled_out(reading))
    return similarity(free, reading)


def sounds_like(free: str, reading: Reading) -> float:
    """How alike the free transcript sounds to the reading's closest phrasing."""
    return max(sound_similarity(free, text) for text in reading.phrasings)


def sounds_like_name(free: str, intent: Intent, limits: Thresholds) -> bool:
    """Does the free transcript sound like the name `intent` carries? Only the name is
    compared ("Ana." is Ana, "Para." is not)."""
    return sound_similarity(free, str(intent.player)) >= limits.name_sound


def name_evidence(utterance: Utterance, intent: Intent, limits: Thresholds) -> str:
    """Why a name said alone is probably table talk ("" when nothing says so): a fairly
    fluent free transcript that sounds unlike the name. Spelling is no guide here: short
    talk words are near short names ("para" / "Ana": rapidfuzz 0.86)."""
    free = utterance.free_text.strip()
    fluency = utterance.free_fluency
    if not re.search(r"\w", free) or fluency is None or fluency < limits.fluent_words:
        return ""
    if sounds_like_name(free, intent, limits):
        return ""
    return f"free transcript {free!r} does not sound like {intent.player}"


def _has_word(text: str) -> bool:
    """Two letters in a row: Whisper writes a lone "C," or "2." for a call it cannot make
    out ("C" for an espeak "sí"), which says nothing about what was said."""
    return re.search(r"[^\W\d_]{2}", text) is not None


def doubted_by_words(
    utterance: Utterance, best: Reading, free_intent: Intent | None, limits: Thresholds
) -> str:
    """Why `best` is doubtful though nothing rules it out ("" when nothing says so): the
    free transcript is words (`_has_word`, at least `fluent_doubted` fluent) that read as
    no game intent and do not sound like `best` (< `sound_alike`). Weaker than
    `talk_evidence`, because a misheard call also comes out as other words ("Lino se es
    fado" for "digo seis patos"), so it only raises the share `best` needs
    (`Thresholds.accept_doubted`). Why share: on the tuning rows, readings doubted so
    with a share below 0.7 were mostly wrong calls or table talk (a real voice's
    "Atenuíme" lands on "una cena" at 0.55), those above 0.9 almost all right. Counts
    are exempt: asked "¿cuántas hay?", a table mostly answers."""
    free = utterance.free_text.strip()
    fluency = utterance.free_fluency
    if best.from_free or free_intent is not None or isinstance(best.intent, NumberIntent):
        return ""
    if opens_any(free, best):
        return ""
    if fluency is None or fluency < limits.fluent_doubted or not _has_word(free):
        return ""
    if sounds_like(free, best) >= limits.sound_alike:
        return ""
    return f"free transcript {free!r} is other words than {best.text!r}"


def talk_evidence(
    utterance: Utterance,
    best: Reading,
    free_intent: Intent | None,
    limits: Thresholds,
    lexicon: Lexicon | None = None,
) -> str:
    """Why the audio is probably not `best` but table talk ("" when nothing says so).
    A free transcript that itself reads as `best` outweighs any such evidence; one made
    of ordinary Spanish words (`lexicon`), or one against a consequential action, needs
    less fluency to count."""
    if best.from_free:
        return ""
    free = utterance.free_text.strip()
    if opens_any(free, best):
        return ""
    count = isinstance(best.intent, NumberIntent)  # asked "¿cuántas hay?": mostly answers
    if count and re.search(r"\d", free):
        return ""  # Whisper writes counts in digits ("30, 5, 9" for "treinta y nueve")
    gate = limits.fluent
    if isinstance(best.intent, CONSEQUENTIAL):
        gate = min(gate, limits.fluent_consequential)
    if not count and lexicon is not None and limits.fluent_words < gate and lexicon.plain(free):
        gate = limits.fluent_words
    sure = utterance.free_fluency is not None and utterance.free_fluency >= gate
    # Words, not digits or a letter alone: Whisper writes "2." or "1," for a call it
    # cannot make out, and "C" (the letter's name sounds "se") for a "sí", fluently.
    fluent = sure and free_intent is None and _has_word(free)
    # An unsure transcript that sounds like the phrase is the phrase misheard ("Tuna" for
    # "dudo"); one the backend is sure of is what was said ("presiones", no "tres dones").
    sounds_alike = (
        utterance.free_fluency is not None
        and utterance.free_fluency < limits.sound_fluent
        and sounds_like(free, best) >= limits.sound_alike
    )
    # Spelling is compared with the best phrasing only: it has no fluency guard, and a
    # fluent "nuevos" is near the spelled-out "nueve dones" pooled under "9 dones".
    far = spelling_similarity(free, best.text) < limits.talk_similarity
    if fluent and far and not sounds_alike:
        return f"free transcript {free!r} is no game phrase"
    speech_s = utterance.end_s - utterance.start_s
    if speech_s > 0 and all(
        duration_logp(syllables(spelled_out(text)), speech_s) < limits.duration_logp
        for text in best.phrasings
    ):
        return f"{best.text!r} does not fit {speech_s:.2f} s of speech"
    return ""


def decide(
    utterance: Utterance,
    parser: TextParser,
    is_legal: Callable[[Intent], bool] | None = None,
    accept_score: float | None = None,
    confirm_margin: float | None = None,
    *,
    view: GameView | None = None,
    limits: Thresholds | None = None,
    lexicon: Lexicon | None = None,
) -> Decision:
    """The decision for one utterance (module docstring). `lexicon`: the Spanish word
    list for the table-talk evidence (default: the system's, `Lexicon.load`)."""
    limits = limits or Thresholds()
    if accept_score is not None:
        limits = replace(limits, accept=accept_score)
    if confirm_margin is not None:
        limits = replace(limits, confirm_margin=confirm_margin)
    view = view or GameView()
    if is_legal is not None:
        view = replace(view, is_legal=is_legal)
    ranked, free_intent = readings(utterance, parser, view, limits)
    if not ranked:
        return Decision(None, Action.IGNORE, 0.0, why="nothing heard")
    best = ranked[0]
    alternatives = tuple((r.intent, round(r.share, 4)) for r in ranked[1:] if r.intent)
    share = round(best.share, 4)
    if best.intent is None:
        return Decision(None, Action.IGNORE, share, alternatives, best.text, "table talk")
    against = talk_evidence(
        utterance, best, free_intent, limits, Lexicon.load() if lexicon is None else lexicon
    )
    if isinstance(best.intent, NameOnlyIntent):  # a name alone, unless the audio says otherwise
        against = against or name_evidence(utterance, best.intent, limits)
        if against:
            return Decision(None, Action.IGNORE, share, alternatives, best.text, against)
        if best.share < limits.confirm:
            return Decision(None, Action.IGNORE, share, alternatives, best.text, "too unsure")
        return Decision(best.intent, Action.ACCEPT, share, alternatives, best.text, "a name")
    if (
        _is_name(free_intent)
        and similarity(utterance.free_text, best.text) < limits.talk_similarity
    ):
        return Decision(
            free_intent, Action.ACCEPT, share, alternatives, utterance.free_text, "a name"
        )
    if view.confirming and isinstance(best.intent, NoIntent) and best.share >= limits.accept:
        return Decision(best.intent, Action.ACCEPT, share, alternatives, best.text)
    # A "sí" commits what the referee asked about (a bid, a dudo, an undone result): as sure.
    committing = isinstance(best.intent, (*CONSEQUENTIAL, YesIntent))
    need = limits.accept_consequential if committing else limits.accept
    # Doubt gates acting only: an illegal reading is still explained at `need` (it
    # changes nothing), as before.
    doubt = "" if against else doubted_by_words(utterance, best, free_intent, limits)
    if not doubt and view.wary and not isinstance(best.intent, NO_MOVE):
        doubt = "after a correction"
    act_need = need
    if doubt:
        act_need = max(need, limits.accept_doubted)
        if view.confirming and isinstance(best.intent, YesIntent):
            act_need = max(act_need, limits.accept_doubted_yes)
    if best.share < limits.confirm:
        return Decision(None, Action.IGNORE, share, alternatives, best.text, "too unsure")
    if view.is_legal(best.intent):
        if best.share >= act_need and not against:
            return Decision(best.intent, Action.ACCEPT, share, alternatives, best.text)
        sure = utterance.free_fluency is not None and utterance.free_fluency >= limits.sure_talk
        if against and sure:  # the backend is sure it heard something else: no question
            return Decision(None, Action.IGNORE, share, alternatives, best.text, against)
        why = against or doubt or f"share {share} below {act_need}"
        return Decision(best.intent, Action.CONFIRM, share, alternatives, best.text, why)
    if against:
        return Decision(None, Action.IGNORE, share, alternatives, best.text, against)
    for alt in ranked[1:]:
        if alt.intent is None or isinstance(alt.intent, NameOnlyIntent):
            continue
        if best.share - alt.share > limits.confirm_margin:
            break
        if view.is_legal(alt.intent):
            rest = tuple((i, s) for i, s in alternatives if i != alt.intent)
            return Decision(
                alt.intent,
                Action.CONFIRM,
                round(alt.share, 4),
                ((best.intent, share), *rest),
                alt.text,
                "illegal reading, a legal one is close",
            )
    if best.share < need:
        return Decision(None, Action.IGNORE, share, alternatives, best.text, "illegal and unsure")
    explained = "illegal: explained"
    return Decision(best.intent, Action.ACCEPT, share, alternatives, best.text, explained)


# -- one decider per table: context, carried names ------------------------------------------


@dataclass(frozen=True, slots=True)
class Fragment:
    """An utterance held for its continuation; `lead` is its text to join."""

    utterance: Utterance
    lead: str


_FACE_WORDS = frozenset(fold(w) for fw in FACE_WORDS for w in (fw.singular, fw.plural))


def unfinished(lead: str) -> bool:
    """A count or bid cut after its "y" ("cuarenta y" | "siete"): never complete."""
    tokens = tokenize(lead)
    return len(tokens) >= 2 and tokens[-1] == "y"


def fragment_lead(utterance: Utterance, parser: TextParser, view: GameView) -> str:
    """The text to hold when `utterance` is the first part of a cut call: where a count or
    a bid can answer, a number ending in "y" ("40 y"); while a bid is expected (and no
    count), a free transcript that is a bare count ("un", "Cinco.", "Ana, cinco") or a
    face word alone ("Sextos."). "" when it is no fragment."""
    text = re.sub(r"[.!?¿¡…]+", " ", utterance.free_text).strip(" ,")
    if not text:
        return ""
    head, _, tail = text.partition(",")
    body = tail.strip() if tail and _is_name(parser.parse(head).intent) else text  # "Ana, cinco"
    if unfinished(body):  # where a count or a bid can answer
        if view.kinds is not None and not view.kinds & {"number", "bid"}:
            return ""
        before = spelled_out(re.sub(r"\s*\by\s*$", "", body))
        return text if isinstance(parser.parse(before).intent, NumberIntent) else ""
    if view.kinds is not None and ("bid" not in view.kinds or "number" in view.kinds):
        return ""
    if isinstance(parser.parse(spelled_out(body)).intent, NumberIntent):
        return text
    return text if " ".join(tokenize(body)) in _FACE_WORDS else ""


def joined(first: Fragment, second: Utterance, parser: TextParser) -> Utterance:
    """One utterance from a fragment and its continuation: each reading of `second`
    prefixed by the fragment where the result still parses ("un" + "Sexto." = "un Sexto."),
    else as it was (a complete call said again); the free transcripts joined."""
    hyps = []
    for h in second.hypotheses:
        text = spelled_out(f"{first.lead} {h.text}")  # "40 y" + "7": "cuarenta y siete"
        hyps.append(Hypothesis(text if parser.parse(text).intent is not None else h.text, h.score))
    fluencies = [f for f in (first.utterance.free_fluency, second.free_fluency) if f is not None]
    return Utterance(
        tuple(hyps),
        first.utterance.start_s,
        second.end_s,
        decoded_at_s=second.decoded_at_s,
        free_text=f"{first.lead} {second.free_text.strip()}".strip(),
        free_fluency=min(fluencies) if fluencies else None,
    )


class Decider:
    """Decides utterance after utterance at one table: keeps the name said alone just
    before a call ("Carla… cuatro trenes": one utterance with its player) and joins a
    call cut in two ("un" | "sexto", module docstring)."""

    def __init__(
        self,
        parser: TextParser,
        limits: Thresholds,
        name_gap_s: float = NAME_GAP_S,
        fragment_gap_s: float = FRAGMENT_GAP_S,
        lexicon: Lexicon | None = None,
    ):
        self.parser = parser
        self.limits = limits
        self.lexicon = Lexicon.load() if lexicon is None else lexicon
        self.name_gap_s = name_gap_s
        self.fragment_gap_s = fragment_gap_s
        self._name: tuple[str, float] | None = None  # player, end of the utterance
        self._fragment: Fragment | None = None

    def forget(self) -> None:
        """A new turn or the referee spoke: a pending name or fragment no longer applies."""
        self._name = None
        self._fragment = None

    def drop_fragment(self) -> bool:
        """The loop waited long enough: forget the held fragment (True if there was one)."""
        held, self._fragment = self._fragment, None
        return held is not None

    def __call__(self, utterance: Utterance, view: GameView) -> Decision:
        held, self._fragment = self._fragment, None
        if held is None:
            return self._one(utterance, view)
        if 0 <= utterance.start_s - held.utterance.end_s <= self.fragment_gap_s:
            both = joined(held, utterance, self.parser)
            verdict = self._decide(both, view)
            if verdict.action in (Action.ACCEPT, Action.CONFIRM) and not isinstance(
                verdict.intent, NameOnlyIntent | None
            ):
                return self._with_name(verdict, both)
        alone = self._one(utterance, view)
        if alone.action == Action.IGNORE:  # the fragment was not understood: say so
            return replace(alone, action=Action.REASK, why=f"fragment {held.lead!r} not understood")
        return alone

    def _decide(self, utterance: Utterance, view: GameView) -> Decision:
        return decide(utterance, self.parser, view=view, limits=self.limits, lexicon=self.lexicon)

    def _one(self, utterance: Utterance, view: GameView) -> Decision:
        verdict = self._decide(utterance, view)
        lead = fragment_lead(utterance, self.parser, view)
        if lead and (verdict.action == Action.IGNORE or unfinished(lead)):
            self._fragment = Fragment(utterance, lead)
            return replace(verdict, action=Action.HOLD, heard=lead, why=f"fragment {lead!r}: held")
        return self._with_name(verdict, utterance)

    def _with_name(self, verdict: Decision, utterance: Utterance) -> Decision:
        pending, self._name = self._name, None
        if verdict.action == Action.IGNORE or verdict.intent is None:
            return verdict
        if _is_name(verdict.intent) and verdict.action == Action.ACCEPT:
            self._name = (str(verdict.intent.player), utterance.end_s)
            return verdict
        if (
            pending is not None
            and verdict.intent.player is None
            and 0 <= utterance.start_s - pending[1] <= self.name_gap_s
        ):
            intent = replace(verdict.intent, player=pending[0])
            return replace(verdict, intent=intent, heard=f"{pending[0]}, {verdict.heard}")
        return verdict


def thresholds_from(config: Config) -> Thresholds:
    return Thresholds(
        accept=config.asr.speech_accept_score, confirm_margin=config.asr.confirm_margin
    )


def likely_raises(standing: BidIntent | None, minimums: Iterable[BidIntent]) -> frozenset[Intent]:
    """The minimum raises, one more of the standing face and, over a standing bid, dudo:
    what players mostly say. (A question to the referee, "¿quién va?", is rare: offered
    the decorated phrases, Whisper gave it 0.31 of an espeak "dudo" that then went
    unaccepted.)"""
    likely: set[Intent] = {_bare(b) for b in minimums}
    if standing is not None:
        likely.add(
            BidIntent(quantity=standing.quantity + 1, face=standing.face, clean=standing.clean)
        )
        likely.add(DudoIntent())
    return frozenset(likely)


def bench_decider(config: Config, players: Iterable[str]) -> Callable[[ListenContext], Callable]:
    """For `voice-ref bench`: per context, a decision function (no game state: only the
    kinds the context allows; a name carried over within a clip)."""
    from voice_ref.language.parser import Parser

    decider = Decider(Parser(list(players)), thresholds_from(config))

    def for_context(context: ListenContext) -> Callable[[Utterance], Decision]:
        decider.forget()
        view = GameView.of_context(context)
        return lambda utt: decider(utt, view)

    return for_context


# -- the live loop: what the referee knows → GameView; verdict → Heard ----------------------


@dataclass(frozen=True)
class Heard:
    """What the loop concluded about one utterance (the decision layer's verdict)."""

    action: Action
    text: str  # what was heard (best hypothesis)
    intent: Intent | None = None  # an Intent for accept/confirm
    score: float | None = None
    question: str = ""  # for confirm: "¿Dijiste cinco quinas?"; for reask: "Repitan"


DeciderFn = Callable[[Utterance, RefereePort, str], Heard]


def _bid_intent(bid: Bid) -> BidIntent:
    return BidIntent(quantity=bid.quantity, face=int(bid.face), clean=bid.clean)


@dataclass(frozen=True, slots=True)
class Refusals:
    """The table's "no"s to the loop's "¿Dijiste …?" at one question (`moves` moves
    played, the referee expecting `expecting`): the calls refused, once per "no" (a "no"
    to a question about no call refuses nothing but is still a correction: the next
    call is wary). It holds until the game moves or the question changes."""

    moves: int
    expecting: str
    refused: tuple[Intent, ...] = ()
    corrected: bool = False

    def with_no(self, asked: Intent | None) -> Refusals:
        refused = self.refused if asked is None else (*self.refused, _bare(asked))
        return replace(self, refused=refused, corrected=True)


def game_view(
    referee: RefereePort,
    expecting: str,
    refusals: Refusals | None = None,
    phrases: Sequence[Phrase] | None = None,
) -> GameView:
    """What the game allows now: the kinds of the phrases expected (`phrases`: the
    referee's allowed phrases, when the caller has them already), the dice on the table,
    the likely raises, the call just taken back, the calls refused at this question
    (`refusals`), and whether the table just corrected the referee (an undo, or a "no"
    since the game last moved): wary."""
    if expecting == referee.expecting:
        allowed = referee.allowed_phrases() if phrases is None else phrases
        kinds = frozenset(p.intent.type for p in allowed) or None
    else:  # a confirmation's sí / no
        kinds = CONFIRMATION_KINDS
    game = referee.game
    likely: frozenset[Intent] = frozenset()
    ceilings: dict[tuple[int, bool], float] = {}
    if expecting == Expecting.TURN:
        standing = None if game.bid is None else _bid_intent(game.bid)
        minimums = game.minimum_bids()
        likely = likely_raises(standing, map(_bid_intent, minimums))
        ceilings = bid_ceilings(game, minimums)
    odds: dict[int, float] = {}
    if expecting == Expecting.COUNT and game.challenge is not None:
        odds = count_odds(game.dice_on_table, wild_aces=game.challenge.wild_aces)
    own = expecting == referee.expecting  # not the answer to a question of the loop
    nos = refusals if own and refusals is not None else Refusals(0, expecting)
    return GameView(
        kinds=kinds, dice_on_table=game.dice_on_table, likely=likely,
        # The loop's "¿Dijiste …?" takes any sí or no: the referee judges the call asked
        # about when it gets it. Judged as a move, a "sí" was illegal, and an illegal
        # reading is accepted at the plain share to be explained, without the doubt
        # rule: "no" heard as "sí" at 0.63 (free transcript "Congeo") committed a call.
        is_legal=referee.is_legal if own else _any_answer,
        taken_back=taken_back(referee) if own else None,
        refused=nos.refused,
        wary=own and (nos.corrected or referee.corrected()),
        confirming=not own,
        ceilings=ceilings,
        count_logp=odds,
    )


def count_odds(dice: int, *, wild_aces: bool) -> dict[int, float]:
    """Per possible count, its log-probability against the likeliest count's (<= 0)."""
    logp = {k: count_logp(k, dice, wild_aces=wild_aces) for k in range(dice + 1)}
    top = max(logp.values())
    return {k: v - top for k, v in logp.items()}


def bid_ceilings(game: GamePort, minimums: Iterable[Bid]) -> dict[tuple[int, bool], float]:
    """Per (face, clean) of each legal raise (`minimums`, the game's minimum bids): the most
    a bid plausibly says now, the dice's `plausible_count`, or one over the minimum raise
    when the bidding is already past it (a high standing bid must not make every raise
    implausible)."""
    dice = game.dice_on_table
    return {
        (int(low.face), low.clean): max(
            plausible_count(dice, wild_aces=game.aces_count_for(low)), low.quantity + 1
        )
        for low in minimums
    }


def taken_back(referee: RefereePort) -> Intent | None:
    """The bid or the count the table just took back, as the reading not to offer again."""
    bid = referee.taken_back()
    if bid is not None:
        return _bid_intent(bid)
    count = referee.count_taken_back()
    return None if count is None else NumberIntent(value=count)


def phrases_now(referee: RefereePort) -> tuple[Phrase, ...]:
    """The phrases a recognizer should consider now: the referee's allowed phrases minus
    the readings that cannot answer (counts and bids above the dice on the table). A
    3-player table listens for 15 quantities, not 60: a smaller search, faster answers."""
    allowed = referee.allowed_phrases()
    view = game_view(referee, referee.expecting, phrases=allowed)
    return tuple(p for p in allowed if view.possible(p.intent))


class TableDecider:
    """The live loop's decider for one table (N-best + what the game knows → accept /
    confirm / ignore / hold / reask). One `Decider` per set of players."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self._deciders: dict[tuple[str, ...], Decider] = {}
        self._asked: Intent | None = None  # what our last "¿Dijiste …?" asked about
        self._refusals: Refusals | None = None

    def _decider(self, referee: RefereePort) -> Decider:
        from voice_ref.language.parser import Parser

        players = tuple(referee.players)
        decider = self._deciders.get(players)
        if decider is None:
            decider = Decider(Parser(players), thresholds_from(self.config))
            self._deciders[players] = decider
        return decider

    def _refusals_now(self, referee: RefereePort) -> Refusals:
        """The "no"s at the question now (none once the game moved or the question changed)."""
        moves, expecting = len(referee.game.move_stack), referee.expecting
        nos = self._refusals
        if nos is None or (nos.moves, nos.expecting) != (moves, expecting):
            nos = self._refusals = Refusals(moves, expecting)
        return nos

    def __call__(self, utterance: Utterance, referee: RefereePort, expecting: str) -> Heard:
        nos = self._refusals_now(referee)
        verdict = self._decider(referee)(utterance, game_view(referee, expecting, nos))
        if expecting == referee.expecting:
            self._asked = verdict.intent if verdict.action == Action.CONFIRM else None
        elif verdict.action == Action.ACCEPT and isinstance(verdict.intent, NoIntent):
            self._refusals = nos.with_no(self._asked)  # "no" to our "¿Dijiste …?"
        text = verdict.heard or (utterance.best.text if utterance.best else "")
        accepted = verdict.action == Action.ACCEPT
        if expecting == Expecting.TURN and accepted and _is_name(verdict.intent):
            # Held, not answered: the referee would speak ("¿Sí, Ana?") over the call that
            # usually follows the name; the decider gives the name to that call.
            return Heard(Action.IGNORE, text, verdict.intent, verdict.score)
        question = ""
        if verdict.action == Action.CONFIRM:
            question = confirm_question(referee, verdict.intent, text)
        elif verdict.action == Action.REASK:
            question = referee.prompts.say("ask.say_again")
        return Heard(verdict.action, text, verdict.intent, verdict.score, question)

    def drop_fragment(self, referee: RefereePort) -> str:
        """The wait for a fragment's continuation ran out: forget it and return the
        question to ask ("" when nothing was held)."""
        if self._decider(referee).drop_fragment():
            return referee.prompts.say("ask.say_again")
        return ""


@runtime_checkable
class HoldsFragments(Protocol):
    """A decider that may hold a fragment ("hold"); the loop calls `drop_fragment` when
    no continuation came in time."""

    def drop_fragment(self, referee: RefereePort) -> str: ...


def make_decider(config: Config) -> TableDecider:
    """N-best + what the game knows → accept / confirm / ignore / hold / reask, for one table."""
    return TableDecider(config)


def confirm_question(referee: RefereePort, intent: Intent | None, heard: str) -> str:
    """ "¿Dijiste cuatro quinas?" in the referee's own words for a bid, else what was heard."""
    if isinstance(intent, BidIntent):
        words = referee.speaker.bid(intent.quantity, intent.face, intent.clean)
    else:
        words = heard
    return referee.prompts.say("ask.did_you_say", words=words)
