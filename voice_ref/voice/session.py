"""The listening loop: audio → recognizer → decision → referee → announcer and screen.

One loop serves the live microphone and a recorded session (`--input session.wav`), so a
recording replays exactly like a table. Live, audio captured while the referee is
speaking (and for `audio.holdoff_s` after) is dropped and the recognizer reset: the
referee never answers its own voice. The referee writes the game log before it returns a
reply, so by the time anything is spoken the action is on disk.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO

import numpy as np

from voice_ref.config import Config
from voice_ref.voice.asr.base import ListenContext, Recognizer, Utterance
from voice_ref.voice.decision import DeciderFn, Heard, make_decider, phrases_now

# What the referee waits for → whether it is a question put to the table (re-asked on silence).
QUESTIONS = ("count", "yes_no", "choice", "pass_check", "starter")
LISTENING_MARKER = "voice-ref: escuchando (listening)"


Decider = DeciderFn


class VoiceSession:
    """Drives one game from a stream of (time, samples) blocks.

    `gate_self_hearing` is True for the live microphone: the block times are then
    monotonic capture times compared with when the announcer spoke. For a recording the
    times are stream seconds and nothing is gated (the file holds no referee voice).
    """

    def __init__(
        self,
        referee: Any,
        recognizer: Recognizer,
        announcer: Any,
        decide: Decider,
        *,
        display: Any = None,
        json_out: TextIO | None = None,
        gate_self_hearing: bool = True,
        reask_after_s: float = 12.0,
        accept_audio: Callable[[float], bool] = lambda _t: True,
    ) -> None:
        self.referee = referee
        self.recognizer = recognizer
        self.announcer = announcer
        self.decide = decide
        self.display = display
        self.json_out = json_out
        self.gate_self_hearing = gate_self_hearing
        self.reask_after_s = reask_after_s
        self.accept_audio = accept_audio  # push-to-talk: is the table's key held now?
        self.replies: list[Any] = []
        self.reasks = 0
        self.dropped_blocks = 0
        self._deaf = False
        self._pending_confirm: Any = None  # intent awaiting "sí" after "¿Dijiste ...?"
        self._last_question = ""
        self._quiet_since: float | None = None
        self._last_heard: tuple[str, float | None] | None = None

    # -- the loop -------------------------------------------------------------------------

    def start(self, opening: Any = None) -> None:
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
                for utterance in self.recognizer.accept(samples):
                    self._on_utterance(utterance)
                    self._quiet_since = t
        self._maybe_reask(t)

    def finish(self) -> None:
        for utterance in self.recognizer.flush():
            self._on_utterance(utterance)
        if self.display is not None:
            self.display.stop()

    def _must_not_hear(self, t: float) -> bool:
        if self.gate_self_hearing and self.announcer.deaf_at(t):
            return True
        return not self.accept_audio(t)

    # -- one utterance --------------------------------------------------------------------

    def _expecting(self) -> str:
        """What the table should say now: a confirmation's sí/no comes before the game."""
        return "yes_no" if self._pending_confirm is not None else self.referee.expecting

    def _on_utterance(self, utterance: Utterance) -> None:
        heard = self.decide(utterance, self.referee, self._expecting())
        self._last_heard = (heard.text, heard.score)
        if self._pending_confirm is not None:
            self._answer_confirmation(heard)
            return
        if heard.action == "accept":
            self._respond(self.referee.handle_intent(heard.intent, heard=heard.text))
        elif heard.action == "confirm":
            self._pending_confirm = heard.intent
            self._ask(heard.question)
        # "ignore": table talk — no action, nothing said, no protocol object.

    def _answer_confirmation(self, heard: Heard) -> None:
        kind = getattr(heard.intent, "type", None) if heard.action == "accept" else None
        intent, self._pending_confirm = self._pending_confirm, None
        if kind == "yes":
            self._respond(self.referee.handle_intent(intent, heard=heard.text))
        elif kind == "no":
            self._ask(self.referee.prompts.say("ask.say_again"))
        else:
            self._pending_confirm = intent  # not an answer: the question stands
            if heard.action != "ignore":
                self._ask(self._last_question)

    def _respond(self, reply: Any) -> None:
        """Show, print and speak one reply (already logged by the referee)."""
        self.replies.append(reply)
        if self.json_out is not None:
            print(json.dumps(reply.to_json(), ensure_ascii=False), file=self.json_out,
                  flush=True)
        if reply.say:
            self.announcer.say(reply.say, urgent=bool(getattr(reply, "urgent", False)))
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
        # While confirming, no phrases: the backend takes the inventory's sí/no.
        phrases = () if self._pending_confirm is not None else _phrases(self.referee)
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
        from voice_ref.voice.display import TableView

        heard, score = self._last_heard or (None, None)
        state = self.replies[-1].state if self.replies else {}
        self.display.update(TableView(
            state=state, said=said, heard=heard, confidence=score,
            minimums=_minimums(self.referee, state),
        ))


def _phrases(referee: Any) -> tuple[Any, ...]:
    """The inventory phrases allowed now, as the recognizer's context wants them."""
    return phrases_now(referee)


def _minimums(referee: Any, state: dict) -> tuple[tuple[int, int, bool], ...]:
    """The lowest legal raises, while a player has to bid over a standing bid."""
    if state.get("awaiting") != "bid" or not state.get("bid"):
        return ()
    return tuple((b.quantity, int(b.face), b.clean) for b in referee.game.minimum_bids())


# -- push-to-talk -------------------------------------------------------------------------------


class PushToTalk:
    """For very noisy tables: audio counts only for `window_s` after the key is pressed.

    Needs a terminal (the key is read from it); a terminal cannot see a key being held, so a
    press opens the microphone for one utterance. Configure with `[audio] push_to_talk =
    "space"` (or any single character, or "enter").
    """

    KEYS = {"space": " ", "enter": "\n", "return": "\n"}

    def __init__(self, key: str, window_s: float = 6.0) -> None:
        self.key = self.KEYS.get(key.lower(), key[:1])
        self.window_s = window_s
        self._opened_at = float("inf")
        self._open_until = float("-inf")

    def press(self, now: float | None = None) -> None:
        self._opened_at = time.monotonic() if now is None else now
        self._open_until = self._opened_at + self.window_s

    def is_open(self, t: float) -> bool:
        return self._opened_at <= t <= self._open_until

    def listen_to_terminal(self) -> None:
        """Read key presses from the terminal on a daemon thread."""
        import termios
        import tty

        fd = sys.stdin.fileno()
        old = termios.tcgetattr(fd)

        def loop() -> None:
            try:
                tty.setcbreak(fd)
                while True:
                    ch = sys.stdin.read(1)
                    if not ch:
                        return
                    if ch == self.key or (self.key == "\n" and ch == "\r"):
                        self.press()
            finally:
                termios.tcsetattr(fd, termios.TCSADRAIN, old)

        threading.Thread(target=loop, name="push-to-talk", daemon=True).start()


# -- `voice-ref play` (not --text) -------------------------------------------------------------


def _wav_source(path: str, sample_rate: int) -> Iterator[tuple[float, np.ndarray]]:
    from voice_ref.voice.audio_in import wav_blocks

    position = 0.0
    for block in wav_blocks(path, sample_rate):
        position += len(block) / sample_rate
        yield position, block


def run_voice(args: argparse.Namespace, config: Config) -> int:
    """`voice-ref play` with `--input session.wav` or the live microphone."""
    from voice_ref.voice.announcer import make_announcer
    from voice_ref.voice.display import make_display
    from voice_ref.voice.microphone import Microphone, MicrophoneUnavailable

    live = not getattr(args, "input", None)
    json_mode = bool(getattr(args, "json", False))
    mic = None
    if live:
        mic = Microphone(config.audio.input_device)
        try:
            mic.open()  # fail fast, before loading a model, when there is no microphone
        except MicrophoneUnavailable as exc:
            print(f"voice-ref play: {exc}", file=sys.stderr)
            return 2
    else:
        from pathlib import Path

        if not Path(args.input).is_file():
            print(f"voice-ref play: the recording {args.input} does not exist.", file=sys.stderr)
            return 2
    try:
        recognizer = _make_recognizer(args, config)
        referee, opening = _make_referee(args, config)
    except _SetupError as exc:
        if mic is not None:
            mic.close()
        print(f"voice-ref play: {exc}", file=sys.stderr)
        return 2

    announcer = make_announcer(
        config.voice,
        silent=bool(getattr(args, "silent", False)),
        output_device=config.audio.output_device,
        holdoff_s=config.audio.holdoff_s,
        echo=lambda _text: None,  # --silent: the screen or the JSON already shows every line
    )
    accept_audio = _push_to_talk(config) if live else (lambda _t: True)
    session = VoiceSession(
        referee, recognizer, announcer, make_decider(config),
        display=make_display(json_mode),
        json_out=sys.stdout if json_mode else None,
        gate_self_hearing=live,
        reask_after_s=config.audio.reask_after_s,
        accept_audio=accept_audio,
    )
    try:
        session.start(opening)
        if live:
            assert mic is not None
            if not mic.first_block.wait(5.0):
                print("voice-ref play: the microphone delivers no audio. "
                      "Check `voice-ref devices`.", file=sys.stderr)
                return 2
            mic.drain()  # what was captured while the model loaded is nobody's turn
            print(LISTENING_MARKER, file=sys.stderr, flush=True)
            session.run(mic.blocks())
        else:
            session.run(_wav_source(args.input, recognizer.sample_rate))
            announcer.wait_idle(timeout=60)
    except KeyboardInterrupt:
        session.finish()
    finally:
        announcer.close()
        if mic is not None:
            mic.close()
    return 0


class _SetupError(RuntimeError):
    """Something the person setting up must fix (model missing, bad player list...)."""


def _make_recognizer(args: argparse.Namespace, config: Config) -> Recognizer:
    from voice_ref.dialogue.text_mode import setup_from_args

    players = list(setup_from_args(args, config).players)
    try:
        from voice_ref.voice.asr.select import make_recognizer
    except ImportError as exc:
        raise _SetupError(f"no speech recognizer is available ({exc}).") from None
    try:
        return make_recognizer(config, backend=getattr(args, "backend", None),
                               model=getattr(args, "model", None),
                               players=players)
    except (RuntimeError, ValueError, OSError) as exc:
        raise _SetupError(str(exc)) from None


def _make_referee(args: argparse.Namespace, config: Config) -> tuple[Any, Any]:
    """The same referee and game log as text mode: new, or resumed with --resume."""
    from voice_ref.dialogue.text_mode import open_referee

    try:
        return open_referee(args, config)
    except (ValueError, OSError) as exc:
        raise _SetupError(str(exc)) from None


def _push_to_talk(config: Config) -> Callable[[float], bool]:
    key = config.audio.push_to_talk
    if not key:
        return lambda _t: True
    if not sys.stdin.isatty():
        print("voice-ref play: push-to-talk needs a terminal; listening all the time.",
              file=sys.stderr)
        return lambda _t: True
    ptt = PushToTalk(key)
    ptt.listen_to_terminal()
    print(f"voice-ref play: push-to-talk: press {key!r} before speaking.", file=sys.stderr)
    return ptt.is_open
