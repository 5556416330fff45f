"""Feeding a simulated table through the live listening loop, in simulated time.

Everything the microphone would hear goes onto one `Tape`: the players' rendered lines and
the referee's own announcements (the loudspeaker is in the room). The tape is read in
microphone-sized blocks into the same `VoiceSession` as `voice-ref play`, with the
self-hearing guard on. Nothing waits in real time: a block "arrives" when its last sample
would have been recorded; the referee is ready when the block has arrived and the previous
one is processed, plus the processing time actually measured (as `voice-ref bench` on clips
does). Latency = that ready time - the end of the player's speech.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from voice_ref.config import Config
from voice_ref.dialogue.referee import Referee, TableSetup
from voice_ref.rules.moves import Move
from voice_ref.simulation.announcer import SimulatedAnnouncer
from voice_ref.simulation.phrasing import Line
from voice_ref.simulation.players import Table, TableStats
from voice_ref.simulation.script import IntendedGame, plain
from voice_ref.voice.asr.base import Recognizer, Utterance
from voice_ref.voice.decision import Heard, heard_record, make_decider
from voice_ref.voice.session import VoiceSession

BLOCK_S = 0.1  # as the microphone delivers
WAIT_S = 3.0  # how long a player waits for an answer before saying it again
REFEREE_PEAK = 0.3  # the loudspeaker as the microphone hears it
# A reply that starts this long before the end of the line's speech talked over the player
# or collided with a repeat they began as it spoke (`TableStats.interruptions`); a little
# earlier is the VAD closing on a quiet last syllable. Either way the latency counts 0 ms,
# as in the clip bench: never negative.
INTERRUPTION_S = 0.25
REACTION_S = (0.3, 0.9)  # pause between the referee's last word and the next player's


def wire(
    config: Config,
    setup: TableSetup,
    announcer: SimulatedAnnouncer,
    recognizer: Recognizer | None = None,
    backend: str | None = None,
    model: str | None = None,
) -> tuple[VoiceSession, Referee, Recognizer]:
    """The one place a simulated table is wired like `voice-ref play` (microphone mode): the
    recognizer (made once, reused across games), the referee and the listening loop."""
    from voice_ref.voice.asr.select import model_and_recognizer, with_model_decision

    if recognizer is None:
        config, recognizer = model_and_recognizer(config, backend, model, setup.players)
    else:  # reused across games: its decider still needs the model's thresholds
        config = with_model_decision(config, backend, model)
    referee = Referee(setup)
    session = VoiceSession(
        referee, recognizer, announcer, make_decider(config),
        gate_self_hearing=True, reask_after_s=config.audio.reask_after_s,
        count_hold_s=config.audio.count_hold_s,
    )
    return session, referee, recognizer


class Tape:
    """What the microphone hears: sounds placed at stream times, summed where they overlap,
    over a `background` that loops for the whole game (people talking at the next table),
    times the microphone's `gain` (below 1: a quiet microphone)."""

    def __init__(
        self, sample_rate: int, background: np.ndarray | None = None, gain: float = 1.0
    ) -> None:
        self.sample_rate = sample_rate
        self.gain = np.float32(gain)
        self._sounds: list[tuple[int, np.ndarray]] = []
        self._background = background if background is not None and len(background) else None

    def add(self, start_s: float, samples: np.ndarray) -> None:
        self._sounds.append((round(start_s * self.sample_rate), samples.astype(np.float32)))

    def read(self, start_s: float, n: int) -> np.ndarray:
        a = round(start_s * self.sample_rate)
        out = np.zeros(n, np.float32)
        if self._background is not None:
            out += np.take(self._background, np.arange(a, a + n), mode="wrap")
        keep = []
        for s, samples in self._sounds:
            end = s + len(samples)
            if end <= a:
                continue  # already heard: forget it
            keep.append((s, samples))
            lo, hi = max(a, s), min(a + n, end)
            if lo < hi:
                out[lo - a : hi - a] += samples[lo - s : hi - s]
        self._sounds = keep
        return np.clip(out * self.gain if self.gain != 1 else out, -1.0, 1.0)


@dataclass
class GameResult:
    intended: IntendedGame
    correct: bool
    finished: bool  # the referee reached the intended end (it may still be wrong if not correct)
    uncorrected: int
    stats: TableStats
    busy_s: float  # processing time of the listening loop
    audio_s: float  # simulated table time
    transcript: list[str] = field(default_factory=list)


def play_game(
    session: VoiceSession,
    referee: Referee,
    announcer: SimulatedAnnouncer,
    table: Table,
    render: Callable[[str, str], tuple[np.ndarray, float, float]],
    rng: random.Random,
    *,
    max_lines: int | None = None,
    on_line: Callable[[Line], None] = lambda _line: None,
    on_row: Callable[[LineRow], None] = lambda _row: None,
    background: np.ndarray | None = None,
    mic_gain_db: float = 0.0,
) -> GameResult:
    """One whole game, start to winner (or until the players give up after `max_lines`).
    `on_row` gets what became of every line (`LineRow`: `voice-ref bench --games --rows`);
    `background` sounds under the whole game, and the microphone has `mic_gain_db` (`Tape`)."""
    sr = session.recognizer.sample_rate
    step = int(sr * BLOCK_S)
    intended = table.intended
    max_lines = max_lines or 3 * len(intended.actions) + 20
    tape = Tape(sr, background, gain=10 ** (mic_gain_db / 20))
    transcript: list[str] = []
    t = busy_until = busy = 0.0
    lines = 0
    heard: list[tuple[Utterance, Heard]] = []
    session.on_heard = lambda utterance, verdict: heard.append((utterance, verdict))

    def commit(at: float) -> int:
        new = announcer.commit(at)
        for spoken in new:
            peak = float(np.max(np.abs(spoken.samples))) if len(spoken.samples) else 0.0
            if peak > 0:
                tape.add(spoken.start_s, spoken.samples * (REFEREE_PEAK / peak))
            transcript.append(f"{spoken.start_s:8.2f} Árbitro: {spoken.text}")
        return len(new)

    session.recognizer.reset()
    announcer.now = 0.0
    session.start()
    commit(0.0)
    flight: _Flight | None = None
    ready_at = announcer.quiet_from + rng.uniform(*REACTION_S)
    while True:
        if flight is None and t >= ready_at:
            line = table.next_line(referee.game)
            if line is None or lines >= max_lines:
                break
            lines += 1
            on_line(line)
            samples, s0, s1 = render(line.speaker, line.text)
            tape.add(t, samples)
            transcript.append(f"{t + s0:8.2f} {line.speaker}: {line.text}  [{line.kind.value}]")
            flight = _Flight(line, t + s0, t + s1, t + len(samples) / sr,
                             [plain(m) for m in referee.game.move_stack],
                             len(session.replies), len(announcer.lines))
        block = tape.read(t, step)
        t += BLOCK_S
        announcer.now = t
        t0 = time.perf_counter()
        session.feed(t, block)
        dt = time.perf_counter() - t0
        busy += dt
        busy_until = max(t, busy_until) + dt
        said = commit(busy_until)
        if flight is None:
            continue
        if said and flight.answered_at is None:
            flight.answered_at = busy_until
        if t < flight.audio_end:
            continue
        answered = flight.answered_at is not None
        if (answered and t >= announcer.quiet_from) or (not answered
                                                        and t >= flight.audio_end + WAIT_S):
            latency_ms = None
            if flight.answered_at is not None:
                early_s = flight.speech_end - flight.answered_at
                table.stats.interruptions += early_s > INTERRUPTION_S
                latency_ms = max(0.0, -early_s * 1000)
                table.stats.latencies_ms.append(latency_ms)
            wrong_before, refused_before = table.stats.wrong_accepts, table.stats.refused_calls
            said_meanwhile = [x.text for x in announcer.lines[flight.lines_at :]]
            table.observe(flight.line, flight.before, referee.game,
                          session.replies[flight.replies_at :], said_meanwhile)
            on_row(LineRow(flight.line, flight.speech_start, tuple(heard), tuple(said_meanwhile),
                           table.stats.wrong_accepts > wrong_before,
                           table.stats.refused_calls > refused_before, latency_ms))
            heard.clear()
            flight = None
            ready_at = max(t, announcer.quiet_from) + rng.uniform(*REACTION_S)
    session.finish()
    moves = [plain(m) for m in referee.game.move_stack]
    target = [plain(m) for m in intended.moves]
    agree = _common_prefix(moves, target)
    correct = moves == target and referee.game.snapshot() == intended.final.snapshot()
    return GameResult(intended, correct, moves == target, len(moves) - agree, table.stats,
                      busy, t, transcript)


@dataclass(frozen=True)
class LineRow:
    """What became of one line a simulated player said: what the loop heard and decided
    (every utterance decided while the line was in flight), what the referee said, and
    whether the game changed in a way nobody meant."""

    line: Line
    at_s: float  # start of the speech on the table's clock
    heard: tuple[tuple[Utterance, Heard], ...]
    referee_said: tuple[str, ...]
    wrong_accept: bool
    refused_call: bool  # a legal call the referee refused (`TableStats.refused_calls`)
    latency_ms: float | None

    def to_json(self) -> dict[str, object]:
        meant = self.line.meant
        return {
            "at_s": round(self.at_s, 2),
            "speaker": self.line.speaker,
            "said": self.line.text,
            "kind": self.line.kind.value,
            "meant": None if meant is None else meant.to_json(),
            "heard": [heard_record(utterance, verdict) for utterance, verdict in self.heard],
            "referee_said": list(self.referee_said),
            "wrong_accept": self.wrong_accept,
            "refused_call": self.refused_call,
            "latency_ms": None if self.latency_ms is None else round(self.latency_ms, 1),
        }


@dataclass
class _Flight:
    """A line being said and what the referee did about it so far."""

    line: Line
    speech_start: float
    speech_end: float
    audio_end: float
    before: list[Move]
    replies_at: int
    lines_at: int
    answered_at: float | None = None


def _common_prefix(a: list[Move], b: list[Move]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n
