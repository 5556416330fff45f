"""One table's decisions utterance after utterance: a name said alone given to the call
that follows it, a fragment joined with its continuation."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from voice_ref.language.intents import Intent, NameOnlyIntent
from voice_ref.language.lexicon import Lexicon
from voice_ref.voice.asr.base import ListenContext, Utterance
from voice_ref.voice.decision.decide import decide
from voice_ref.voice.decision.fragments import Fragment, fragment_lead, joined, unfinished
from voice_ref.voice.decision.readings import TextParser, free_reading
from voice_ref.voice.decision.thresholds import Thresholds, thresholds_from
from voice_ref.voice.decision.values import Action, Decision
from voice_ref.voice.decision.view import CONFIRMATION_KINDS, GameView, is_name

if TYPE_CHECKING:
    from voice_ref.config import Config

NAME_GAP_S = 1.5  # a call starting this soon after a name alone is that player's
# A continuation starting this soon after a fragment's end joins it. Real pauses inside
# a phrase are 0.2-1 s; a new call after a bare number comes later than that.
FRAGMENT_GAP_S = 1.2


class Decider:
    """Decides utterance after utterance at one table: keeps the name said alone just
    before a call ("Carla… cuatro trenes": one utterance with its player) and joins a
    call cut in two ("un" | "sexto", package docstring)."""

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
            both = joined(held, utterance, self.parser, view)
            verdict = self._decide(both, view)
            if verdict.action in (Action.ACCEPT, Action.CONFIRM) and not isinstance(
                verdict.intent, NameOnlyIntent | None
            ):
                return self._with_name(verdict, both)
        alone = self._one(utterance, view)
        if alone.action == Action.IGNORE:  # the fragment was not understood: say so
            return replace(alone, action=Action.REASK, why=f"fragment {held.lead!r} not understood")
        return alone

    def call_in_free_transcript(self, utterance: Utterance, view: GameView) -> Intent | None:
        """The game call a sure free transcript spells, if `view` (the game's) allows it.
        While the loop's "¿Dijiste …?" stands, the recognizer listens for sí / no only, so
        a player who never heard the question (a radio on, someone talking over it) and
        says the call again is heard in the free transcript alone (BENCHMARKS.md, session
        39: a table stuck 79 lines on one "¿Dijiste calzo?")."""
        fluency = utterance.free_fluency
        if fluency is None or fluency < self.limits.fluent:
            return None
        intent = free_reading(utterance, self.parser, view)
        if intent is None or intent.type in CONFIRMATION_KINDS:
            return None  # no call: sí, no, a name, "repite" answer the question itself
        return intent

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
        if is_name(verdict.intent) and verdict.action == Action.ACCEPT:
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
