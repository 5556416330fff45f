"""Steps 1-3 of a decision: the n-best pooled into readings, what the game allows, and the
priors that move shares among them."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Protocol

from voice_ref.language.intents import BidIntent, Intent, names_its_speaker
from voice_ref.language.text import fold, tokenize
from voice_ref.language.vocabulary import FACE_SPELLINGS, NUMERAL_FACE_SPELLINGS
from voice_ref.voice.asr.base import Utterance
from voice_ref.voice.decision.evidence import hesitant_start, sounds_like, sounds_like_name
from voice_ref.voice.decision.thresholds import Thresholds
from voice_ref.voice.decision.values import Reading
from voice_ref.voice.decision.view import GameView, bare, is_name

FACES_AS_SPELLED = FACE_SPELLINGS | NUMERAL_FACE_SPELLINGS


class TextParser(Protocol):
    def parse(self, text: str): ...  # noqa: ANN201 - returns language.parser.ParseResult


def ranked_intents(utterance: Utterance, parser: TextParser) -> list[Reading]:
    """One reading per distinct intent of the n-best (table talk: one per text), its
    share the pooled score, best first."""
    pooled: dict[str, Reading] = {}
    for hyp in utterance.hypotheses:
        # The free transcript is a hypothesis too: "En, subo a dos trenes." is that bid.
        words, hesitant = hesitant_start(hyp.text)
        text = words if hesitant else hyp.text
        intent = parser.parse(text).intent if text.strip() else None
        # "Beto, dudo" and "dudo" are one action: they pool, the best phrasing names it.
        # (A name said alone keeps its name: `bare` strips only who spoke.)
        key = repr(bare(intent).to_json()) if intent is not None else "\0" + hyp.text
        old = pooled.get(key)
        if old is None:
            pooled[key] = Reading(intent, hyp.score, hyp.text, texts=(hyp.text, *hyp.phrasings))
        else:
            texts = (*old.texts, hyp.text, *hyp.phrasings)
            pooled[key] = replace(old, share=old.share + hyp.score, texts=texts)
    return sorted(pooled.values(), key=lambda r: -r.share)


def name_unheard(opening: str | None, intent: Intent, limits: Thresholds) -> bool:
    """Whether the player `intent` names is missing from the free transcript, given its
    `opening`: the first word after its hesitations ("" when nothing follows them, None
    without a free transcript: no evidence). The phrase search explains a hesitation as
    a name ("Ana 3 dones" for "eh, tres dones", Whisper's "3 dones"); a name really said
    came first in Whisper's words 184 times of 185 in simulated games (BENCHMARKS.md,
    session 44). Only a name that says who speaks: the starter a table names ("parte
    Ana", which Whisper writes "Parteana.") is the call."""
    if opening is None or not names_its_speaker(intent):
        return False
    return not opening or not sounds_like_name(opening, intent, limits)


def without_name(text: str, name: str | None) -> str:
    """The phrase without the player's name it begins with ("Ana 3 dones" -> "3 dones");
    "" when it does not begin with it."""
    if not name:
        return ""
    words, name_words = text.split(), name.split()
    if [fold(w).strip(",.") for w in words[: len(name_words)]] != [fold(w) for w in name_words]:
        return ""
    return " ".join(words[len(name_words):]).lstrip(", ")


def spells_its_face(free: str, free_intent: Intent | None) -> bool:
    """Whether a free transcript read as a bid has a face word as spelled (True for any
    other reading). The parser reads "Dos trenas" as *dos trenes*, but the face is its
    guess: "trenas" is as near "senas", and in the tuning games every bid that such a
    guess lifted over the phrase search's first reading was wrong (BENCHMARKS.md,
    session 50), so a guessed face gives its bid no `free_agree`."""
    if not isinstance(free_intent, BidIntent):
        return True
    return any(word in FACES_AS_SPELLED for word in tokenize(free))


def face_disputed(free_intent: Intent | None, ranked: list[Reading], view: GameView) -> bool:
    """Whether the phrase search's first possible game reading is the free transcript's
    bid with another face (same number): the two halves of the recognizer disagree about
    the face. Festival's "una china" is written "Una cena." while the search puts *una
    china* first at 0.55-0.63; the free transcript's `free_agree` turned it into a wrong
    bid 4 times in the tuning games (BENCHMARKS.md, session 51)."""
    if not isinstance(free_intent, BidIntent):
        return False
    first = next((r.intent for r in ranked if r.intent is not None and view.possible(r.intent)),
                 None)
    return (
        isinstance(first, BidIntent)
        and first.quantity == free_intent.quantity
        and first.face != free_intent.face
    )


def free_reading(utterance: Utterance, parser: TextParser, view: GameView) -> Intent | None:
    """What the free transcript reads as, after any hesitation it begins with, if that can
    answer now (None: no game intent)."""
    words, _ = hesitant_start(utterance.free_text)
    intent = parser.parse(words).intent if words else None
    return intent if intent is not None and view.possible(intent) else None


def name_said_alone(
    utterance: Utterance, parser: TextParser, free_intent: Intent | None, limits: Thresholds
) -> Intent | None:
    """The player's name the free transcript says alone and sounds like, when no name can
    answer now (`free_intent` is then None): asked for a count, "Ana" is still Ana."""
    if free_intent is not None:
        return None
    words, _ = hesitant_start(utterance.free_text)
    intent = parser.parse(words).intent if words else None
    if not is_name(intent) or not sounds_like_name(utterance.free_text.strip(), intent, limits):
        return None
    return intent


def readings(
    utterance: Utterance, parser: TextParser, view: GameView, limits: Thresholds
) -> tuple[list[Reading], Intent | None]:
    """Steps 1-3: possible readings with their shares (renormalized), best first, and
    what the free transcript reads as (None: no game intent)."""
    free = utterance.free_text.strip()
    free_intent = free_reading(utterance, parser, view)
    after, _ = hesitant_start(free)
    opening = next(iter(tokenize(after)), "") if free else None  # for `name_unheard`
    if is_name(free_intent) and not sounds_like_name(free, free_intent, limits):
        free_intent = None  # "Para." spelled near "Ana" is no name
    out: list[Reading] = []
    ranked = ranked_intents(utterance, parser)
    before = sum(r.share for r in ranked)  # kept: a backend's n-best may not sum to 1
    closest = sounding_closest(free, ranked, limits) if limits.sound_agree else frozenset()
    face_spelled = spells_its_face(free, free_intent)
    disputed = face_spelled and face_disputed(free_intent, ranked, view)
    for reading in ranked:
        intent, text = reading.intent, reading.text
        if intent is not None and not view.possible(intent):
            if text.strip() != free:
                continue  # no candidate now
            intent = None  # the free transcript reads as an impossible answer: talk
        agrees = (
            free_intent is not None and intent is not None and bare(intent) == bare(free_intent)
        )
        if agrees and free_intent is not None:
            # The words written say who spoke: "Digo 13 patos." is no "Diego 13 patos" (a
            # filler that sounds like a name), and in "En, siete cuadras." the "Ana siete
            # cuadras" that explained the "ehm" names nobody (the player in turn).
            intent = free_intent
        if intent is not None and name_unheard(opening, intent, limits):
            # "Es un pato.": the "Beto un pato" that explained the "eh" names nobody either
            intent = bare(intent)
        said = reading.intent.player if reading.intent is not None else None
        shown = ""
        if intent is not None and intent.player != said and (rest := without_name(text, said)):
            shown = f"{intent.player} {rest}" if intent.player else rest  # "3 dones"
        # A "no" is evidence against that reading only, not for game speech: its mass
        # goes back to every reading, table talk included (Bayes with the table's answer
        # as one more observation; the likely-raise prior below is about game readings).
        weight = 0.0 if intent is None else view.refusal_nats(intent, limits)
        if agrees:
            weight += limits.free_agree if face_spelled else 0.0
        elif intent is not None and text in closest:
            weight += limits.sound_agree
        out.append(
            replace(
                reading, intent=intent, share=reading.share * math.exp(weight),
                from_free=agrees, shown=shown, face_disputed=agrees and disputed,
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
        return (
            likely
            + view.implausible_nats(intent, limits)
            + view.far_below_nats(intent, limits)
            + view.count_nats(intent, limits)
        )

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
