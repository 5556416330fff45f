"""Steps 4-6: from the readings of one utterance to one `Decision`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

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
    name_evidence,
    similarity,
    talk_evidence,
)
from voice_ref.voice.decision.readings import TextParser, readings
from voice_ref.voice.decision.thresholds import CONSEQUENTIAL, NO_MOVE, Thresholds
from voice_ref.voice.decision.values import Action, Decision
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
        is_name(free_intent)
        and similarity(utterance.free_text, best.text) < limits.talk_similarity
    ):
        return Decision(
            free_intent, Action.ACCEPT, share, alternatives, utterance.free_text, "a name"
        )
    if view.confirming and isinstance(best.intent, NoIntent) and best.share >= limits.accept:
        return Decision(best.intent, Action.ACCEPT, share, alternatives, best.text)
    # A "sí" commits what the referee asked about (a bid, a dudo, an undone result): as sure.
    # So does the count after a challenge: it decides who loses a die, and a wrong one
    # is rarely noticed (BENCHMARKS.md, session 23).
    committing = isinstance(best.intent, (*CONSEQUENTIAL, YesIntent, NumberIntent))
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
