"""Steps 4-6: from the readings of one utterance to one `Decision`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from voice_ref.language.intents import (
    Intent,
    NameOnlyIntent,
    NoIntent,
    NumberIntent,
    YesIntent,
)
from voice_ref.language.lexicon import Lexicon
from voice_ref.voice.asr.base import Utterance
from voice_ref.voice.decision.evidence import (
    doubted_by_words,
    duration_misfit,
    name_evidence,
    only_a_hesitation,
    similarity,
    sounds_like_reading,
    talk_evidence,
    wordless_for_consequential,
)
from voice_ref.voice.decision.readings import TextParser, name_said_alone, readings
from voice_ref.voice.decision.thresholds import CONSEQUENTIAL, NO_MOVE, Thresholds
from voice_ref.voice.decision.values import Action, Decision, Reading
from voice_ref.voice.decision.view import GameView, is_name


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
    """The decision for one utterance (package docstring). `lexicon`: the Spanish word
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
    best = _Best(ranked)
    if best.intent is None:
        return best.ignore("table talk")
    if hesitation := only_a_hesitation(utterance, best.reading):
        return best.ignore(hesitation)  # no question about an "eh" either
    words = Lexicon.load() if lexicon is None else lexicon
    named = name_said_alone(utterance, parser, free_intent, limits)
    against = talk_evidence(utterance, best.reading, free_intent, limits, words, named=named)
    if isinstance(best.intent, NameOnlyIntent):  # a name alone, unless the audio says otherwise
        return _name_alone(best, against or name_evidence(utterance, best.intent, limits), limits)
    if is_name(free_intent) and similarity(utterance.free_text, best.text) < limits.talk_similarity:
        return Decision(
            free_intent, Action.ACCEPT, best.score, best.alternatives, utterance.free_text, "a name"
        )
    if view.confirming and isinstance(best.intent, NoIntent) and best.share >= limits.accept:
        return best.accept()
    if best.share < limits.confirm:
        return best.ignore("too unsure")
    if view.is_legal(best.intent):
        if against and duration_misfit(utterance, best.reading, limits):
            return best.ignore(against)  # it cannot be what was said: no question about it
        doubt = "" if against else _doubt(utterance, best.reading, free_intent, view, limits)
        return _legal(best, utterance, free_intent, against, doubt, view, limits)
    return _illegal(best, ranked, against, view, limits)


@dataclass(frozen=True, slots=True)
class _Best:
    """The best reading, and the `Decision`s about it: each carries its share, the other
    readings and the words heard."""

    ranked: list[Reading]

    @property
    def reading(self) -> Reading:
        return self.ranked[0]

    @property
    def intent(self) -> Intent | None:
        return self.reading.intent

    @property
    def share(self) -> float:
        return self.reading.share

    @property
    def text(self) -> str:
        return self.reading.text

    @property
    def score(self) -> float:
        return round(self.share, 4)

    @property
    def alternatives(self) -> tuple[tuple[Intent, float], ...]:
        return tuple((r.intent, round(r.share, 4)) for r in self.ranked[1:] if r.intent)

    def decision(self, action: Action, why: str = "") -> Decision:
        intent = None if action == Action.IGNORE else self.intent
        heard = self.reading.shown or self.text  # the words as the call is taken
        return Decision(intent, action, self.score, self.alternatives, heard, why)

    def accept(self, why: str = "") -> Decision:
        return self.decision(Action.ACCEPT, why)

    def confirm(self, why: str) -> Decision:
        return self.decision(Action.CONFIRM, why)

    def ignore(self, why: str) -> Decision:
        return self.decision(Action.IGNORE, why)


def _name_alone(best: _Best, against: str, limits: Thresholds) -> Decision:
    """A name said alone is accepted (it tells who speaks), unless the audio says it is
    talk or it is too unsure."""
    if against:
        return best.ignore(against)
    if best.share < limits.confirm:
        return best.ignore("too unsure")
    return best.accept("a name")


def _need(intent: Intent, limits: Thresholds) -> float:
    """The share a reading needs to be acted on without evidence against it. A "sí"
    commits what the referee asked about (a bid, a dudo, an undone result): as sure as a
    consequential action. So does the count after a challenge: it decides who loses a
    die, and a wrong one is rarely noticed (BENCHMARKS.md, session 23)."""
    committing = isinstance(intent, (*CONSEQUENTIAL, YesIntent, NumberIntent))
    return limits.accept_consequential if committing else limits.accept


def _doubt(
    utterance: Utterance,
    best: Reading,
    free_intent: Intent | None,
    view: GameView,
    limits: Thresholds,
) -> str:
    """Why the reading needs `accept_doubted` ("" when nothing doubts it): the free
    transcript is other words, or the table just corrected the referee (a game move)."""
    doubt = doubted_by_words(utterance, best, free_intent, limits)
    if not doubt and view.wary and not isinstance(best.intent, NO_MOVE):
        doubt = "after a correction"
    return doubt


def _legal(
    best: _Best,
    utterance: Utterance,
    free_intent: Intent | None,
    against: str,
    doubt: str,
    view: GameView,
    limits: Thresholds,
) -> Decision:
    """A legal reading: acted on when sure and nothing is against it; with evidence
    against it that the backend is sure of, ignored; otherwise confirmed."""
    assert best.intent is not None
    need = _need(best.intent, limits)
    if doubt:
        need = max(need, limits.accept_doubted)
        if isinstance(best.intent, NumberIntent):
            need = max(need, limits.accept_doubted_count)
        if view.confirming and isinstance(best.intent, YesIntent):
            need = max(need, limits.accept_doubted_yes)
    wordless = wordless_for_consequential(utterance, best.reading, free_intent)
    disputed = (
        f"free transcript {utterance.free_text.strip()!r} and the phrase search disagree "
        "about the face" if best.reading.face_disputed else ""
    )
    if best.share >= need and not against and not wordless and not disputed:
        return best.accept()
    sure = utterance.free_fluency is not None and utterance.free_fluency >= limits.sure_talk
    # The backend is sure it heard something else: no question, unless what it heard
    # sounds like the reading ("Hugo" for "dudo": the call misspelled, asked about).
    free = utterance.free_text.strip()
    if against and sure and not sounds_like_reading(free, best.reading, limits):
        ignored = best.ignore(against)
        return replace(ignored, passed_over=best.intent) if best.share >= need else ignored
    return best.confirm(
        against or doubt or wordless or disputed or f"share {best.score} below {need}"
    )


def _illegal(
    best: _Best, ranked: list[Reading], against: str, view: GameView, limits: Thresholds
) -> Decision:
    """An illegal reading: a legal one close behind is confirmed instead (a misheard
    bid); otherwise, when sure and nothing is against it, accepted so the referee
    explains why it is illegal (it changes nothing). Doubt gates acting only, so it
    plays no part here."""
    assert best.intent is not None
    if against:
        return best.ignore(against)
    for alt in ranked[1:]:
        if alt.intent is None or isinstance(alt.intent, NameOnlyIntent):
            continue
        if best.share - alt.share > limits.confirm_margin:
            break
        if view.is_legal(alt.intent):
            rest = tuple((i, s) for i, s in best.alternatives if i != alt.intent)
            return Decision(
                alt.intent,
                Action.CONFIRM,
                round(alt.share, 4),
                ((best.intent, best.score), *rest),
                alt.text,
                "illegal reading, a legal one is close",
            )
    if best.share < _need(best.intent, limits):
        return best.ignore("illegal and unsure")
    return best.accept("illegal: explained")
