"""Speculative end-pointing without a model: kept results and the stream's clock."""

from __future__ import annotations

import types

import numpy as np
import pytest

from voice_ref.voice import listen
from voice_ref.voice.asr.base import Hypothesis, Utterance
from voice_ref.voice.asr.speculative import SpeculativeSegments
from voice_ref.voice.asr.vad import Segment

AUDIO = np.arange(8, dtype=np.float32)


def _seg(end_s: float = 1.0, final: bool = True, audio: np.ndarray = AUDIO) -> Segment:
    return Segment(audio.copy(), 0.5, end_s, final)


class Counting:
    """A recognizer step that counts its calls and returns a new utterance each time."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, seg: Segment) -> Utterance:
        self.calls += 1
        return Utterance((Hypothesis(f"run {self.calls}", 1.0),), seg.start_s, seg.end_s)


# (steps, recognize calls, each final's (early, result)). A step is a segment, "drop"
# (another context) or "reset".
CASES = {
    "final only": ([_seg()], 1, [(False, "run 1")]),
    "same audio: reused": ([_seg(final=False), _seg()], 1, [(True, "run 1")]),
    "speech resumed: later end": ([_seg(final=False), _seg(end_s=1.3)], 2, [(False, "run 2")]),
    "other samples": ([_seg(final=False), _seg(audio=AUDIO + 1)], 2, [(False, "run 2")]),
    "context changed": ([_seg(final=False), "drop", _seg()], 2, [(False, "run 2")]),
    "reset": ([_seg(final=False), "reset", _seg()], 2, [(False, "run 2")]),
    "reused once only": (
        [_seg(final=False), _seg(), _seg()],
        2,
        [(True, "run 1"), (False, "run 2")],
    ),
    "the latest tentative": ([_seg(0.8, False), _seg(final=False), _seg()], 2, [(True, "run 2")]),
}


@pytest.mark.parametrize("steps, calls, finals", CASES.values(), ids=CASES.keys())
def test_a_tentative_result_answers_only_the_same_audio(steps, calls, finals) -> None:  # noqa: ANN001
    recognize = Counting()
    spec = SpeculativeSegments(recognize)
    out = []
    for step in steps:
        if step == "drop":
            spec.drop()
        elif step == "reset":
            spec.reset()
        else:
            out += spec([step])
    assert recognize.calls == calls
    assert [(u.extra["early"], u.best.text) for u in out] == finals


def test_wasted_tentative_runs_are_counted_on_the_next_final() -> None:
    spec = SpeculativeSegments(Counting())
    out = spec([_seg(0.8, False), _seg(final=False), _seg()])
    assert [(u.extra["early"], u.extra["tentative_runs"]) for u in out] == [(True, 2)]


class Scripted:
    """A recognizer whose VAD is a script (block number -> segments) and whose
    recognition costs `cost_s` on a fake clock."""

    sample_rate = 10

    def __init__(self, script: dict[int, list[Segment]], clock: list[float], cost_s: float):
        self._script, self._clock, self._cost = script, clock, cost_s
        self._block = 0
        self._early = SpeculativeSegments(self._recognize)

    def _recognize(self, seg: Segment) -> Utterance:
        self._clock[0] += self._cost
        return Utterance((), seg.start_s, seg.end_s)

    def accept(self, samples: np.ndarray) -> list[Utterance]:
        self._block += 1
        return self._early(self._script.get(self._block, []))

    def flush(self) -> list[Utterance]:
        return []


# Blocks of 0.1 s (block n is recorded at n/10 s); recognition costs 0.4 s.
# (script, when the final's decision is ready, busy time)
CLOCK_CASES = {
    "today: recognized at the final end": ({5: [_seg()]}, 0.5 + 0.4, 0.4),
    "early: computed during the wait": ({3: [_seg(final=False)], 5: [_seg()]}, 0.3 + 0.4, 0.4),
    "wasted: the tentative run delays the final": (
        {3: [_seg(final=False)], 5: [_seg(end_s=1.3)]},
        0.3 + 0.4 + 0.4,
        0.8,
    ),
}


@pytest.mark.parametrize("script, done_s, busy_s", CLOCK_CASES.values(), ids=CLOCK_CASES.keys())
def test_the_stream_clock_charges_tentative_compute(monkeypatch, script, done_s, busy_s) -> None:  # noqa: ANN001
    clock = [100.0]
    monkeypatch.setattr(listen, "time", types.SimpleNamespace(perf_counter=lambda: clock[0]))
    recognizer = Scripted(script, clock, cost_s=0.4)
    out, busy = listen.stream(recognizer, np.zeros(10, np.float32), lambda u: u, 0.1, 0.0)
    assert [item.done_s for item in out] == [pytest.approx(done_s)]
    assert busy == pytest.approx(busy_s)
