"""`voice-ref check`: is the microphone, where the table will play, good enough to referee?

Whoever sets the referee up cannot see what it hears. Too far from the players, the speech
is quieter than anything the recognizer was measured on; with the input gain too high, it
clips (held-out DEV calls 12 dB hotter, most of them clipping: 74.0 → 69.7% right with the
base model, 97.7 → 96.1% with the adapted one; BENCHMARKS.md, sessions 26 and 40); with the
radio, the kitchen or the tap as loud as the players, the speech is under noise no bench
went below; with a loudspeaker that plays late, the referee hears its own voice. The check
says a prompt asking for a call, records a few seconds after it, or reads a recording
(`--input`), and reports in plain words, each with what to do:

- the speech level of each utterance the voice detector finds (`asr.level`), against the
  levels every measured clip has (`FLOOR_DBFS` and up): below it the recognizer raises the
  speech by up to `MAX_GAIN_DB`, below that even raised it is quieter than anything
  measured;
- the share of its samples at full scale (clipping);
- the room's level between utterances, and the speech's margin over it: the benches mixed
  noise at 6-24 dB under speech; below `NOISY_MARGIN_DB` the table is noisier than any of
  them;
- live: the prompt as the microphone heard it, and whether it outlasts the loop's deaf
  window (`own_voice`). The recording is judged from where the live loop would start
  listening again, so what it reports is what a game would hear.

With a recognizer (the default) it also says what it understood, so a call can be tried
as the table will say it. Exit code 0: nothing to fix (`NOTES` are told only); 1:
something to fix (listed); 2: no microphone, or a file that cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum

import numpy as np

from voice_ref.voice.asr.level import (
    FLOOR_DBFS,
    FRAME,
    MAX_GAIN_DB,
    SILENCE_DBFS,
    clipped_share,
    frame_powers,
    speech_level_dbfs,
    to_dbfs,
)
from voice_ref.voice.own_voice import OwnVoice, TimedAudio, measure_own_voice

SAMPLE_RATE = 16000
# Clipped: more than this share of an utterance's samples at `asr.level.CLIP_LEVEL`. One sample in a
# thousand is 16 per second of speech: a few flat-topped peaks, which a loud "¡dudo!" may
# have; what hurts the recognizer is speech flattened throughout.
CLIPPING_SHARE = 0.001
# The speech's margin over the room (dB: `speech_level_dbfs` against the room's median
# frame level) below which the table is noisier than any bench. The benches mixed noise at
# 6 dB and up on active speech power; that reads as a margin of 7.9 dB and more here (the
# DEV tuning voices' 6 dB clips: median 10.7; `tools/mic_check_levels.py`).
NOISY_MARGIN_DB = 7.5
ROOM_GUARD_S = 0.15  # audio this close to an utterance is neither speech nor room


class MicProblem(StrEnum):
    """Something about the microphone worth telling; all but the `NOTES` need fixing."""

    NO_SPEECH = "no_speech"
    TOO_QUIET = "too_quiet"
    QUIET = "quiet"
    CLIPPING = "clipping"
    NOISY = "noisy"
    SELF_HEARING = "self_hearing"
    SPEAKER_UNHEARD = "speaker_unheard"


ADVICE: dict[MicProblem, str] = {
    MicProblem.NO_SPEECH: (
        "no speech was heard. Check that the right microphone is chosen (`voice-ref "
        "devices`, config.toml [audio] input_device) and not muted, then say a call, "
        "e.g. \"cuatro quinas\", during the recording."
    ),
    MicProblem.TOO_QUIET: (
        "the speech is very quiet: even raised by {gain:.0f} dB it stays under anything the "
        "recognizer was measured on. Put the referee nearer the players or turn the "
        "microphone's input gain up."
    ),
    MicProblem.QUIET: (
        "the speech is quiet; the recognizer raises it, which also raises the room's noise. "
        "Nearer the players, or a higher input gain, is better."
    ),
    MicProblem.CLIPPING: (
        "the speech clips (reaches full scale): turn the microphone's input gain down, or put "
        "the referee a little farther from the loudest player."
    ),
    MicProblem.NOISY: (
        "the room is nearly as loud as the speech, noisier than anything the recognizer was "
        "measured in. Turn the music down, move away from the kitchen or the tap, or use "
        "push-to-talk (config.toml [audio] push_to_talk = \"space\")."
    ),
    MicProblem.SELF_HEARING: (
        "the referee's own voice reaches the microphone {tail:.2f} s after the loudspeaker "
        "reported it finished, past the {holdoff:.1f} s it stops listening for, so it may "
        "answer its own words: set holdoff_s = {needed:.1f} under [audio] in config.toml (a "
        "Bluetooth loudspeaker plays late), or turn the loudspeaker down or away from the "
        "microphone."
    ),
    MicProblem.SPEAKER_UNHEARD: (
        "the microphone did not hear the referee's voice: check that the loudspeaker is on "
        "and loud enough for the table (`voice-ref say \"Cinco quinas\"`)."
    ),
}
# Told, but nothing to fix: quiet speech is raised by the recognizer, and a loudspeaker
# the microphone does not hear may still reach the players.
NOTES = frozenset({MicProblem.QUIET, MicProblem.SPEAKER_UNHEARD})


def too_quiet_to_raise(level_dbfs: float) -> bool:
    """Speech that even raised by `MAX_GAIN_DB` stays under every measured clip."""
    return level_dbfs < FLOOR_DBFS - MAX_GAIN_DB


def clips(share: float) -> bool:
    """An utterance flattened at full scale, beyond a few peaks (`CLIPPING_SHARE`)."""
    return share > CLIPPING_SHARE


@dataclass(frozen=True, slots=True)
class Span:
    """Where the voice detector found speech, in seconds from the start of the audio."""

    start_s: float
    end_s: float


@dataclass(frozen=True, slots=True)
class UtteranceLevels:
    span: Span
    speech_dbfs: float
    clipped_share: float


@dataclass(frozen=True, slots=True)
class MicReport:
    """What the check measured; `problems` says what is wrong with it."""

    seconds: float
    room_dbfs: float
    utterances: tuple[UtteranceLevels, ...]
    own_voice: OwnVoice | None = None  # the prompt as the microphone heard it (live only)

    @property
    def problems(self) -> tuple[MicProblem, ...]:
        """What to tell, most basic first (nothing: the microphone is fine)."""
        level = self.speech_dbfs
        if level is None or level <= SILENCE_DBFS:
            return (MicProblem.NO_SPEECH, *self._own_voice_problems())
        problems = []
        if too_quiet_to_raise(level):
            problems.append(MicProblem.TOO_QUIET)
        elif level < FLOOR_DBFS:
            problems.append(MicProblem.QUIET)
        if any(clips(u.clipped_share) for u in self.utterances):
            problems.append(MicProblem.CLIPPING)
        margin = self.margin_db
        if margin is not None and margin < NOISY_MARGIN_DB:
            problems.append(MicProblem.NOISY)
        return tuple(problems) + self._own_voice_problems()

    def _own_voice_problems(self) -> tuple[MicProblem, ...]:
        if self.own_voice is None:
            return ()
        if not self.own_voice.heard:
            return (MicProblem.SPEAKER_UNHEARD,)
        return (MicProblem.SELF_HEARING,) if self.own_voice.leaks else ()

    @property
    def to_fix(self) -> tuple[MicProblem, ...]:
        """The problems that need fixing (quiet speech is raised by the recognizer: it
        works, nearer would be better)."""
        return tuple(p for p in self.problems if p not in NOTES)

    @property
    def speech_dbfs(self) -> float | None:
        """The loudest utterance's level: the call the table was asked for, not a cough."""
        return max((u.speech_dbfs for u in self.utterances), default=None)

    @property
    def margin_db(self) -> float | None:
        level = self.speech_dbfs
        return None if level is None else level - self.room_dbfs

    def to_json(self) -> dict[str, object]:
        return {
            "seconds": round(self.seconds, 2),
            "room_dbfs": round(self.room_dbfs, 1),
            "speech_dbfs": None if self.speech_dbfs is None else round(self.speech_dbfs, 1),
            "margin_db": None if self.margin_db is None else round(self.margin_db, 1),
            "utterances": [
                {"start_s": round(u.span.start_s, 2), "end_s": round(u.span.end_s, 2),
                 "speech_dbfs": round(u.speech_dbfs, 1),
                 "clipped_share": round(u.clipped_share, 5)}
                for u in self.utterances
            ],
            "own_voice": None if (own := self.own_voice) is None else {
                "heard_dbfs": round(own.heard_dbfs, 1), "tail_s": round(own.tail_s, 2),
                "holdoff_s": own.holdoff_s, "leaks": own.leaks},
            "problems": [str(p) for p in self.problems],
        }


def room_level_dbfs(audio: np.ndarray, spans: tuple[Span, ...], rate: int = SAMPLE_RATE) -> float:
    """The room between utterances: the median power of its 20 ms frames, in dBFS (the
    median, so a door or a laugh does not make a quiet room loud). Frames within
    `ROOM_GUARD_S` of speech are left out; with no room audio left, `SILENCE_DBFS`."""
    keep = np.ones(len(audio), bool)
    guard = int(ROOM_GUARD_S * rate)
    for span in spans:
        keep[max(0, int(span.start_s * rate) - guard) : int(span.end_s * rate) + guard] = False
    power = frame_powers(audio)
    frames = len(power)
    usable = keep[: frames * FRAME].reshape(frames, FRAME).all(axis=1)
    if not usable.any():
        return SILENCE_DBFS
    return float(to_dbfs(float(np.median(power[usable]))))


def assess(audio: np.ndarray, spans: tuple[Span, ...], rate: int = SAMPLE_RATE) -> MicReport:
    """The report on `audio`, given where its speech is (`speech_spans`)."""
    utterances = tuple(
        UtteranceLevels(span, speech_level_dbfs(part), clipped_share(part))
        for span in spans
        if len(part := audio[int(span.start_s * rate) : int(span.end_s * rate)])
    )
    return MicReport(len(audio) / rate, room_level_dbfs(audio, spans, rate), utterances)


class LevelWatch:
    """During a game: tells whoever set the table up, once per problem, when the
    microphone keeps clipping or keeps recording speech too quiet even to raise
    (`needed` of the last `window` utterances). Fed each utterance's levels as the
    recognizer measured them (Whisper's `level_dbfs` and `clipped_share`; a backend that
    does not measure them is never warned about). The room's noise needs the audio between
    utterances, which the loop does not keep: `voice-ref check` measures it."""

    def __init__(self, window: int = 10, needed: int = 3) -> None:
        self.needed = needed
        self._recent: deque[frozenset[MicProblem]] = deque(maxlen=window)
        self._told: set[MicProblem] = set()

    def observe(self, levels: Mapping[str, object]) -> str | None:
        """The warning to print now, if any (each problem once)."""
        level, clipped = levels.get("level_dbfs"), levels.get("clipped_share")
        if not isinstance(level, float | int) or not isinstance(clipped, float | int):
            return None
        found = set()
        if too_quiet_to_raise(level):
            found.add(MicProblem.TOO_QUIET)
        if clips(clipped):
            found.add(MicProblem.CLIPPING)
        self._recent.append(frozenset(found))
        for problem in (MicProblem.CLIPPING, MicProblem.TOO_QUIET):
            times = sum(problem in seen for seen in self._recent)
            if problem not in self._told and times >= self.needed:
                self._told.add(problem)
                return (f"{times} of the last {len(self._recent)} utterances: "
                        + ADVICE[problem].format(gain=MAX_GAIN_DB)
                        + " (`voice-ref check` tests the microphone.)")
        return None


def speech_spans(audio: np.ndarray) -> tuple[Span, ...]:
    """Where Silero finds speech (the live loop's voice detector, its default settings)."""
    from voice_ref.voice.asr.vad import StreamingVad

    vad = StreamingVad()
    step = int(SAMPLE_RATE * 0.1)
    segments = []
    for start in range(0, len(audio), step):
        segments += vad.feed(audio[start : start + step])
    segments += vad.flush()
    return tuple(Span(s.start_s, s.end_s) for s in segments if s.final)


def describe(report: MicReport) -> list[str]:
    """The report in plain words, for whoever sets the referee up."""
    lines = [f"recorded {report.seconds:.1f} s; room (between utterances): "
             f"{_db(report.room_dbfs)}"]
    for u in report.utterances:
        clip = f", {u.clipped_share:.2%} of it at full scale" if u.clipped_share else ""
        lines.append(f"speech {u.span.start_s:.2f}-{u.span.end_s:.2f} s: "
                     f"{_db(u.speech_dbfs)}{clip}")
    if report.margin_db is not None:
        lines.append(f"speech over the room: {report.margin_db:.0f} dB (under "
                     f"{NOISY_MARGIN_DB:.1f} dB would be noisier than any room the recognizer "
                     "was measured in)")
    own = report.own_voice
    if own is not None and own.heard:
        lines.append(f"the referee's voice at the microphone: {_db(own.heard_dbfs)}, still "
                     f"there {own.tail_s:.2f} s after the loudspeaker finished (it stops "
                     f"listening for {own.holdoff_s:.1f} s)")
    if not report.to_fix:
        lines.append("OK: the speech does not clip and stands out from the room"
                     + (", and the referee does not hear itself." if own else "."))
    values = {"gain": MAX_GAIN_DB, "tail": own.tail_s if own else 0.0,
              "holdoff": own.holdoff_s if own else 0.0,
              "needed": own.holdoff_needed_s if own else 0.0}
    for problem in report.problems:
        head = "Note: " if problem in NOTES else "To fix: "
        lines.append(head + ADVICE[problem].format(**values))
    return lines


def _db(level: float) -> str:
    return "digital silence" if level <= SILENCE_DBFS else f"{level:.0f} dBFS"


def record(
    seconds: float, device: str | int, say: Callable[[], tuple[float, float] | None]
) -> tuple[TimedAudio, tuple[float, float] | None]:
    """Everything the microphone captured from just before `say()` (the referee asks for
    a call out loud; it returns when, by the monotonic clock, the loudspeaker played it)
    until `seconds` after it, with capture times (`Microphone.blocks`). The microphone is
    opened first, so a missing one is reported before anything is said."""
    import time

    from voice_ref.voice.microphone import Microphone

    with Microphone(device, SAMPLE_RATE) as mic:
        mic.drain()
        played = say()
        until = (played[1] if played is not None else time.monotonic()) + seconds
        blocks: list[tuple[float, np.ndarray]] = []
        for t, samples in mic.blocks():
            if samples is not None:
                blocks.append((t, samples))
            if t >= until:
                break
    if not blocks:
        return TimedAudio(np.zeros(0, np.float32), until, SAMPLE_RATE), played
    first_t, first = blocks[0]
    samples = np.concatenate([b for _, b in blocks])
    return TimedAudio(samples, first_t - len(first) / SAMPLE_RATE, SAMPLE_RATE), played


def main(args: argparse.Namespace) -> int:
    """`voice-ref check [--input FILE] [--seconds N] [--no-recognize] [--json]`."""
    from voice_ref.config import load_config
    from voice_ref.voice.audio_in import (
        AudioDeviceError,
        AudioFileError,
        devices_in_use,
        read_wav,
    )
    from voice_ref.voice.microphone import NO_MIC_HELP, MicrophoneUnavailable

    config = load_config(getattr(args, "config", None))
    played = None
    try:
        if args.input:
            audio = read_wav(args.input, SAMPLE_RATE)
        else:
            try:
                devices = devices_in_use(config.audio)
            except AudioDeviceError as exc:  # no microphone: as opening one would say
                raise MicrophoneUnavailable(f"{exc} {NO_MIC_HELP}") from None
            print(f"voice-ref check: {devices}", file=sys.stderr)
            holdoff = config.audio.holdoff_s
            timed, played = record(args.seconds + holdoff, config.audio.input_device,
                                   lambda: _ask_for_a_call(config, args.seconds, quiet=args.json))
            # What the live loop would hear: nothing until `holdoff_s` after its own voice.
            heard_from = timed.start if played is None else played[1] + holdoff
            audio = timed.after(heard_from)
    except (AudioFileError, MicrophoneUnavailable) as exc:
        print(f"voice-ref check: {exc}", file=sys.stderr)
        return 2
    report = assess(audio, speech_spans(audio))
    if played is not None:
        own_voice = measure_own_voice(timed, played, report.room_dbfs, holdoff)
        report = replace(report, own_voice=own_voice)
    heard = [] if args.no_recognize or not report.utterances else _heard(args, config, audio)
    if args.json:
        print(json.dumps({**report.to_json(), "heard": heard}, ensure_ascii=False))
    else:
        for line in describe(report):
            print(line)
        for item in heard:
            why = f" ({item['why']})" if item["why"] else ""
            print(f"understood: {item['action']} "
                  f"{json.dumps(item['intent'], ensure_ascii=False)}{why} "
                  f"(free transcript {item['free_text']!r})")
    return 1 if report.to_fix else 0


def _ask_for_a_call(  # noqa: ANN001 - a Config
    config, seconds: float, *, quiet: bool
) -> tuple[float, float] | None:
    """Say the check's prompt as a game says its lines (the live `Announcer`); its deaf
    window, by the monotonic clock the live loop gates its own voice by (None: it did
    not play to the end)."""
    from voice_ref.dialogue.prompts import Prompts
    from voice_ref.voice.announcer import make_announcer

    line = Prompts.load().say("check.ask")
    if not quiet:
        print(f"referee: {line}", file=sys.stderr)
    announcer = make_announcer(config.voice, silent=False,
                               output_device=config.audio.output_device,
                               holdoff_s=config.audio.holdoff_s)
    try:
        announcer.say(line)
        played = announcer.last_spoken if announcer.wait_idle(timeout=60) else None
        if announcer.errors:  # it said why on stderr
            played = None
    finally:
        announcer.close()
    if played is None:  # the microphone can be checked without a loudspeaker
        print("voice-ref check: the loudspeaker did not say the prompt; say a call, e.g. "
              "\"cuatro quinas\", now.", file=sys.stderr)
    # A program driving the check (the tests) speaks once it reads this line.
    print(f"voice-ref check: recording {seconds:.0f} s now", file=sys.stderr, flush=True)
    return played


def _heard(args: argparse.Namespace, config, audio: np.ndarray) -> list[dict]:  # noqa: ANN001
    """What the configured recognizer and the decision make of the recording, as in a
    game waiting for a bid (`voice-ref listen` shows more)."""
    from voice_ref.language.expecting import Expecting
    from voice_ref.voice.asr.select import RecognizerUnavailable
    from voice_ref.voice.listen import listening, stream

    try:
        recognizer, handle = listening(config, args.backend, args.model,
                                       list(config.game.players), Expecting.TURN)
    except RecognizerUnavailable as exc:
        print(f"voice-ref check: not recognized ({exc})", file=sys.stderr)
        return []
    results, _ = stream(recognizer, audio, handle)
    return [
        {
            "text": item.result.heard,
            "free_text": item.utterance.free_text,
            "action": str(item.result.action),
            "intent": None if item.result.intent is None else item.result.intent.to_json(),
            "why": item.result.why,
        }
        for item in results
    ]
