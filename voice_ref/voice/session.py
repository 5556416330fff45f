"""The listening loop: audio → recognizer → decision → referee → announcer and screen.

One loop serves the live microphone and a recorded session (`--input session.wav`), so a
recording replays exactly like a table. Live, audio captured while the referee is
speaking (and for `audio.holdoff_s` after) is dropped and the recognizer reset: the
referee never answers its own voice. The referee writes the game log before it returns a
reply, so by the time anything is spoken the action is on disk.

The parts are plugged in (`voice_ref/app.py` wires the real ones); `voice/ports.py` says
what the loop needs of each.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TextIO

import numpy as np

from voice_ref.config import AudioSettings
from voice_ref.dialogue.protocol import Reply
from voice_ref.language.expecting import QUESTIONS, Expecting
from voice_ref.language.intents import Intent, NumberIntent
from voice_ref.language.inventory import EXPECTING, Phrase
from voice_ref.language.numbers import counting_up
from voice_ref.language.vocabulary import HESITATIONS
from voice_ref.voice.asr.base import ListenContext, Recognizer, Utterance
from voice_ref.voice.decision import (
    CONFIRMATION_KINDS,
    Action,
    AsksAbout,
    DeciderFn,
    Heard,
    HoldsFragments,
    ask_about,
    phrases_now,
)
from voice_ref.voice.display import TableView
from voice_ref.voice.ports import AnnouncerPort, DisplayPort, RefereePort

# What the referee waits for → whether it is a question put to the table (re-asked on silence).
LISTENING_MARKER = "voice-ref: escuchando (listening)"


def listening_line(replies: int) -> str:
    """The status line for "the microphone is heard again after reply number `replies`"."""
    return f"{LISTENING_MARKER} [{replies}]"


Decider = DeciderFn
# How long the loop waits for the rest of a held fragment ("un" | "sexto") before asking
# the table to repeat: the decider joins a continuation that *starts* within 1.2 s
# (`FRAGMENT_GAP_S`), and once it has started the loop waits for it to end
# (`Recognizer.hearing_speech`), so the wait need only cover the gap and the VAD's onset.
# Players repeat a call they got no answer to after about 3 s: asked sooner, they need not.
FRAGMENT_WAIT_S = 2.0
# How long a "¿Dijiste …?" waits before it is asked, in case the player is still talking:
# a call cut by a pause ("son …" | "cuatro sextos") is often confirmed from its first
# part, and asked at once the question covers the rest, which the self-hearing guard then
# drops. Once more speech starts the question waits for it; what it says supersedes the
# question unless it is table talk.
CONFIRM_HOLD_S = 0.4


def table_contexts(referee: RefereePort) -> list[ListenContext]:
    """Every phrase the table may say, by what the referee expects: what a recognizer
    prepares (the same list whoever asks, so a table prepared ahead is known at play)."""
    return [ListenContext(e, tuple(referee.phrases_for(e))) for e in EXPECTING]


class VoiceSession:
    """Drives one game from a stream of (time, samples) blocks.

    `gate_self_hearing` is True for the live microphone: the block times are then
    monotonic capture times compared with when the announcer spoke. For a recording the
    times are stream seconds and nothing is gated (the file holds no referee voice).

    `opening_extra` adds keys to the opening's protocol object (`app.py`: the config file
    that was read). `on_listening(n)` is called, live, with the first block heard after
    the referee spoke its n-th reply: from then on the table is listened to again
    (`--json` reports it on stderr, so a program driving the table knows when to speak).
    """

    def __init__(
        self,
        referee: RefereePort,
        recognizer: Recognizer,
        announcer: AnnouncerPort,
        decide: Decider,
        *,
        display: DisplayPort | None = None,
        json_out: TextIO | None = None,
        gate_self_hearing: bool = True,
        reask_after_s: float = AudioSettings.reask_after_s,
        fragment_wait_s: float = FRAGMENT_WAIT_S,
        confirm_hold_s: float = CONFIRM_HOLD_S,
        count_hold_s: float = AudioSettings.count_hold_s,
        accept_audio: Callable[[float], bool] = lambda _t: True,
        on_listening: Callable[[int], None] | None = None,
        opening_extra: Mapping[str, object] | None = None,
        clock: Callable[[], float] | None = None,
        on_heard: Callable[[Utterance, Heard], None] | None = None,
    ) -> None:
        self.referee = referee
        self.recognizer = recognizer
        self.announcer = announcer
        self.decide = decide
        self.display = display
        self.json_out = json_out
        self.gate_self_hearing = gate_self_hearing
        self.reask_after_s = reask_after_s
        self.fragment_wait_s = fragment_wait_s
        self.confirm_hold_s = confirm_hold_s
        self.count_hold_s = count_hold_s
        self.accept_audio = accept_audio  # push-to-talk: is the table's key held now?
        self.on_listening = on_listening
        self.on_heard = on_heard  # every decided utterance (the simulated table's --rows)
        self.opening_extra = dict(opening_extra or {})  # extra keys of the first JSON object
        self.replies: list[Reply] = []
        self.reasks = 0
        self.dropped_blocks = 0
        self._deaf = False
        self._pending_confirm: Intent | None = None  # awaiting "sí" after "¿Dijiste ...?"
        self._held_confirm: tuple[Heard, float] | None = None  # not asked yet: (verdict, at)
        self._held_count: tuple[Heard, float] | None = None  # counted aloud so far: (verdict, at)
        self._count_talk_at: float | None = None  # talk while a count is asked: maybe "uno"
        self._last_question = ""
        self._quiet_since: float | None = None
        self._last_heard: tuple[str, float | None] | None = None
        self._fragment_at: float | None = None  # block time when a fragment was held
        self._clock = clock or time.monotonic  # the live blocks' clock
        self._listening_after: tuple[int, float] | None = None  # (reply number, said at)

    # -- the loop -------------------------------------------------------------------------

    def prepare(self, background: bool = False) -> None:
        """Let the recognizer get ready for every phrase this table may say (Whisper's text
        prior: minutes the first time for a set of players, then read from disk);
        `background`: the table need not wait (a live game)."""
        self.recognizer.prepare(table_contexts(self.referee), background=background)

    def start(self, opening: Reply | None = None) -> None:
        """Show and say the opening announcement (the referee's, unless one is given)."""
        if self.display is not None:
            self.display.start()
        self._respond(opening if opening is not None else self.referee.opening())

    def run(self, blocks: Iterable[tuple[float, np.ndarray | None]]) -> None:
        """Consume blocks until the source ends; `None` samples are idle ticks."""
        for t, samples in blocks:
            self.feed(t, samples)
        self.finish()

    def feed(self, t: float, samples: np.ndarray | None) -> None:
        if samples is not None:
            if self._must_not_hear(t):
                self.dropped_blocks += 1
                self._quiet_since = None  # silence starts again after the referee spoke
                if not self._deaf:
                    self.recognizer.reset()  # drop any partial utterance that held our voice
                    self._deaf = True
            else:
                self._deaf = False
                self._report_listening(t)
                for utterance in self.recognizer.accept(samples):
                    self._on_utterance(utterance, t)
                    self._quiet_since = t
        # Nothing is asked over a player who is speaking: the words may be the rest of the
        # held call, and a question would gate the microphone and lose them.
        if self.recognizer.hearing_speech():
            self._quiet_since = None
            return
        if self._held_count is not None and t - self._held_count[1] >= self.count_hold_s:
            self._take_held_count()
        if self._count_talk_at is not None and t - self._count_talk_at >= self.count_hold_s:
            self._count_talk_at = None
        if self._held_confirm is not None and t - self._held_confirm[1] >= self._confirm_wait():
            self._ask_held_confirm()
        if self._fragment_at is not None and t - self._fragment_at >= self.fragment_wait_s:
            self._fragment_unanswered()
        self._maybe_reask(t)

    def finish(self) -> None:
        for utterance in self.recognizer.flush():
            self._on_utterance(utterance, None)
        self._take_held_count()
        if self._held_confirm is not None:
            self._ask_held_confirm()
        if self._fragment_at is not None:
            self._fragment_unanswered()
        if self.display is not None:
            self.display.stop()

    def _must_not_hear(self, t: float) -> bool:
        if self.gate_self_hearing and self.announcer.deaf_at(t):
            return True
        return not self.accept_audio(t)

    def _report_listening(self, t: float) -> None:
        """A block captured after the last reply was said, and not gated: we listen again."""
        if self._listening_after is None or self.on_listening is None:
            return
        number, said_at = self._listening_after
        if t > said_at:
            self._listening_after = None
            self.on_listening(number)

    # -- one utterance --------------------------------------------------------------------

    def _expecting(self) -> str:
        """What the table should say now: a confirmation's sí/no comes before the game."""
        return "yes_no" if self._pending_confirm is not None else self.referee.expecting

    def _on_utterance(self, utterance: Utterance, t: float | None) -> None:
        heard = self.decide(utterance, self.referee, self._expecting())
        self._last_heard = (heard.text, heard.score)
        if self.on_heard is not None:
            self.on_heard(utterance, heard)
        self._fragment_at = None  # the decider joined or dropped any held fragment
        if self._pending_confirm is not None:
            self._answer_confirmation(heard)
            return
        if self._held_confirm is not None:
            if heard.action == Action.IGNORE:
                # table talk after the call: the held question stands, and waits again
                # when the talk may be a count said aloud going on ("ehm" read as tres,
                # then "uno" heard as "Hugo": a "dos" next is counted aloud)
                if self._counting_asked() and isinstance(heard.passed_over, NumberIntent):
                    self._held_confirm = (self._held_confirm[0], _at(t))
                    self._count_talk_at = t
                return
            self._held_confirm = None  # what the player went on to say supersedes it
        to_act = self._counting_aloud(utterance, heard, t)
        if to_act is not None:
            self._act(to_act, t)

    def _counting_aloud(self, utterance: Utterance, heard: Heard, t: float | None) -> Heard | None:
        """None when the utterance belongs to a count said aloud ("una, dos, tres") that may
        go on: a number held for the next one, or talk that leaves the count so far
        standing; else the verdict to act on."""
        counted = self._counted(utterance, heard)
        after_talk, self._count_talk_at = self._count_talk_at is not None, None
        if self._held_count is not None:
            held, self._held_count = self._held_count[0], None
            so_far = _value(held)
            if counted is None and heard.action == Action.IGNORE:
                # table talk while counting: the count so far stands, and the wait for its
                # next number starts again (a number heard as talk: "uno" | "No" | "tres"),
                # unless the talk was surely that next number ("uno" | "No": dos)
                self._hold_count(_next_number(heard, so_far) or held, t)
                return None
            if counted is not None and counted[0] > so_far:
                # counting on; numbers lost as talk or to the VAD on the way ("uno" |
                # "siete" | "ocho"): held too, for the next one, so only delayed if final
                self._hold_count(_count_heard(heard, counted, utterance), t)
                return None
            if counted is not None and len(counted) == 1 and counted[0] == so_far:
                # the count so far again: said twice, or the next number misheard as it
                # ("uno" | "No" | "Nias.": dos, then "tres" heard as dos); the count
                # stands and its wait starts again, so a count going on is not cut short
                self._hold_count(heard if heard.action == Action.ACCEPT else held, t)
                return None
            if counted is not None and len(counted) == 1 and counted[0] < so_far:
                # "uno, dos" | "una": a count going back down was the next number misheard
                # every time in simulated games (session 43); asked about, not taken, and
                # held below when it is "una": a count started again, or "tres" misheard
                heard = self._asked_about(heard)
            # any other answer supersedes the count so far
        # "uno", or "uno, dos": counting aloud; "dos" right after talk: "uno" was not heard.
        # Any other count taken waits too: the "eh" of "eh … cuatro", cut off by the
        # pause, is heard as a number ("3"), and the number said next supersedes it.
        if counted is not None and (
            counted[0] == 1 or (counted[0] == 2 and after_talk) or heard.action == Action.ACCEPT
        ):
            self._hold_count(_count_heard(heard, counted, utterance), t)
            return None
        if counted is None and heard.action == Action.IGNORE and self._counting_asked():
            self._count_talk_at = t  # perhaps a count's first number, heard as talk
        return heard

    def _asked_about(self, heard: Heard) -> Heard:
        """`heard` as a question ("¿Dijiste una?") rather than a count to take."""
        why = "a count said aloud that goes back down"
        if isinstance(self.decide, AsksAbout):
            return self.decide.ask_about(self.referee, heard, why)
        return ask_about(self.referee, heard, why)

    def _act(self, heard: Heard, t: float | None) -> None:
        """Carry out a verdict on the game: a call taken, a question held, a fragment held."""
        if heard.action == Action.ACCEPT and heard.intent is not None:
            self._respond(self.referee.handle_intent(heard.intent, heard=heard.text))
        elif heard.action == Action.CONFIRM and heard.intent is not None:
            self._held_confirm = (heard, _at(t))
            if t is None or self.confirm_hold_s <= 0:
                self._ask_held_confirm()
        elif heard.action == Action.HOLD:  # "un" | ...: wait for the rest of the call
            self._fragment_at = _at(t)
        elif heard.action == Action.REASK and heard.question:
            self._ask(heard.question)
        # "ignore": table talk — no action, nothing said, no protocol object.

    def _counted(self, utterance: Utterance, heard: Heard) -> tuple[int, ...] | None:
        """The numbers an answer to "¿cuántas hay?" says: the free transcript's when it counts
        up ("Uno, dos.": the chunk of a count said aloud, for which no phrase exists), else
        the count heard; None while no count is asked, or for anything else."""
        if not self._counting_asked():
            return None
        run = counting_up(utterance.free_text, lead_ins=HESITATIONS)
        if run is not None:
            return run
        heard_count = heard.action in (Action.ACCEPT, Action.CONFIRM)
        return (_value(heard),) if heard_count and _value(heard) >= 0 else None

    def _counting_asked(self) -> bool:
        """The table is asked for a count and may count aloud."""
        return self.count_hold_s > 0 and self.referee.expecting == Expecting.COUNT

    def _hold_count(self, heard: Heard, t: float | None) -> None:
        """Wait `count_hold_s` for the next number counted aloud (none after a recording)."""
        self._held_count = (heard, _at(t))
        if t is None:
            self._take_held_count()

    def _take_held_count(self) -> None:
        """Nobody counted on: the last number counted is the table's answer."""
        if self._held_count is not None:
            heard, at = self._held_count
            self._held_count = None
            self._act(heard, at)

    def _confirm_wait(self) -> float:
        """How long the held question waits: about a count, while the count is asked, as
        long as a count said aloud waits for its next number (the count may be going on:
        asked over it, the numbers that follow were taken as the answer to the question)."""
        held = self._held_confirm[0].intent if self._held_confirm is not None else None
        if isinstance(held, NumberIntent) and self._counting_asked():
            return max(self.confirm_hold_s, self.count_hold_s)
        return self.confirm_hold_s

    def _ask_held_confirm(self) -> None:
        """Nobody went on talking: ask the held "¿Dijiste …?" now."""
        if self._held_confirm is None:
            return
        heard, _ = self._held_confirm
        self._held_confirm = None
        self._pending_confirm = heard.intent
        self._ask(heard.question)

    def _fragment_unanswered(self) -> None:
        """A held fragment got no continuation in time: ask the table to repeat."""
        self._fragment_at = None
        question = (
            self.decide.drop_fragment(self.referee)
            if isinstance(self.decide, HoldsFragments)
            else ""
        )
        if question:
            self._ask(question)

    def _answer_confirmation(self, heard: Heard) -> None:
        kind = getattr(heard.intent, "type", None) if heard.action == Action.ACCEPT else None
        intent, self._pending_confirm = self._pending_confirm, None
        if kind == "yes" and intent is not None:
            self._respond(self.referee.handle_intent(intent, heard=heard.text))
        elif kind == "no":
            self._ask(self.referee.prompts.say("ask.say_again"))
        elif heard.action == Action.CONFIRM and getattr(heard.intent, "type", None) not in (
            None, *CONFIRMATION_KINDS
        ):  # a call said instead (the question unheard): ask about that call now
            self._pending_confirm = heard.intent
            self._ask(heard.question)
        else:
            self._pending_confirm = intent  # not an answer: the question stands
            if heard.action != Action.IGNORE:
                self._ask(self._last_question)

    def _respond(self, reply: Reply) -> None:
        """Show, print and speak one reply (already logged by the referee)."""
        self.replies.append(reply)
        if self.json_out is not None:
            obj = reply.to_json()
            if len(self.replies) == 1:
                obj = {**obj, **self.opening_extra}
            print(json.dumps(obj, ensure_ascii=False), file=self.json_out, flush=True)
        if reply.say:
            self.announcer.say(reply.say, urgent=reply.urgent)
        if self.gate_self_hearing:  # after say(): from here on the guard knows we speak
            self._listening_after = (len(self.replies), self._clock())
        if self.referee.expecting in QUESTIONS:
            self._last_question = reply.say
        self._set_context()
        self._show(reply.say)

    def _ask(self, question: str) -> None:
        """A question of the loop itself (a confirmation): spoken, no protocol object."""
        self._last_question = question
        self.announcer.say(question, urgent=True)
        self._set_context()
        self._show(question)

    def _set_context(self) -> None:
        # While confirming: the plain sí / no phrases (what Whisper took for an empty
        # context anyway; Vosk took the whole game's phrases, so a "sí" competed with
        # every call of the game).
        phrases = (
            _phrases(self.referee)
            if self._pending_confirm is None
            else tuple(self.referee.phrases_for(Expecting.YES_NO, canonical=True))
        )
        self.recognizer.set_context(ListenContext(expecting=self._expecting(), phrases=phrases))

    def _maybe_reask(self, t: float) -> None:
        """A pending question is asked again after `reask_after_s` of silence."""
        pending = self._pending_confirm is not None or self.referee.expecting in QUESTIONS
        if not pending or not self._last_question or self.announcer.speaking:
            self._quiet_since = None
            return
        if self._quiet_since is None:
            self._quiet_since = t
        elif t - self._quiet_since >= self.reask_after_s:
            self.reasks += 1
            self.announcer.say(self._last_question)
            self._quiet_since = None
            self._show(self._last_question)

    def _show(self, said: str) -> None:
        if self.display is None:
            return
        heard, score = self._last_heard or (None, None)
        state = self.replies[-1].state if self.replies else {}
        self.display.update(TableView(
            state=state, said=said, heard=heard, confidence=score,
            minimums=_minimums(self.referee, state),
        ))


def _at(t: float | None) -> float:
    """When something was held: a recording's end (None) is long ago, so it is due at once."""
    return t if t is not None else float("-inf")


def _value(heard: Heard) -> int:
    """The count a verdict is about (-1: no count)."""
    return heard.intent.value if isinstance(heard.intent, NumberIntent) else -1


def _next_number(heard: Heard, so_far: int) -> Heard | None:
    """An ignored utterance as the next number of a count said aloud: its game reading,
    passed over only because the words were talk, is one more than the count so far.
    Whisper writes "dos" as "No" and "seis" as "Sí."; talk that reads surely as exactly
    the next number within the count's wait is rare, and a later number supersedes it."""
    nxt = heard.passed_over
    if not isinstance(nxt, NumberIntent) or nxt.value != so_far + 1:
        return None
    return Heard(Action.ACCEPT, heard.text, nxt, heard.score,
                 why="counted aloud: the next number, heard as talk")


def _count_heard(heard: Heard, counted: tuple[int, ...], utterance: Utterance) -> Heard:
    """The verdict to act on for a count said aloud so far: the one heard when it is the last
    number counted, else that number taken from the free transcript ("Uno, dos.": 2)."""
    if _value(heard) == counted[-1]:
        return heard
    return Heard(Action.ACCEPT, utterance.free_text, NumberIntent(value=counted[-1]),
                 heard.score, why="counted aloud")


def _phrases(referee: RefereePort) -> tuple[Phrase, ...]:
    """The inventory phrases allowed now, as the recognizer's context wants them."""
    return phrases_now(referee)


def _minimums(referee: RefereePort, state: dict[str, object]) -> tuple[tuple[int, int, bool], ...]:
    """The lowest legal raises, while a player has to bid over a standing bid."""
    if state.get("awaiting") != "bid" or not state.get("bid"):
        return ()
    return tuple((b.quantity, int(b.face), b.clean) for b in referee.game.minimum_bids())


