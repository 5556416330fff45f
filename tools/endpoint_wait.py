"""The end-pointing wait, by VAD alone: how long after the end of speech recognition can start.

Streams every clip of a labelled folder through `listen.stream` (the bench's blocks and
trailing silence) with the Whisper recognizer's VAD and speculative reuse, but a
recognizer that costs nothing: so the numbers are the wait the VAD imposes (tentative
or final end, rounded up to the block), independent of load and of the model. For each
`tail_s` (and "off": today's end at `end_silence_s`): utterances, how many finals reuse a
tentative result, the wasted tentative runs, and the wait (start of recognition minus the
end of speech) mean / p95.

    python tools/endpoint_wait.py ../shared/audio/dev --split tuning --tails off,0.032,0.064

`--costs ROWS.jsonl` (a bench's `--rows` of an idle machine) also simulates the latency:
each recognition of a clip costs, on the stream's clock, the `compute_ms` that clip's last
utterance took in those rows (VAD blocks cost nothing), so a wasted tentative run delays
what follows as it would at that speed. Latency as the bench's: the clip's speech end to
its last answer, never negative. With "off" it should reproduce the rows' own latencies.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from voice_ref.voice import listen
from voice_ref.voice.asr.base import Utterance
from voice_ref.voice.asr.speculative import SpeculativeSegments
from voice_ref.voice.asr.vad import Segment, StreamingVad
from voice_ref.voice.audio_in import read_wav
from voice_ref.voice.bench import split_of
from voice_ref.voice.listen import stream


class Clock:
    """A stand-in for `time.perf_counter` in `listen.stream`: only recognitions advance it."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


class VadOnly:
    """The Whisper recognizer's accept/flush/reset with recognition replaced by nothing
    (or, with `clock`, by `cost_s` on that clock)."""

    sample_rate = 16000

    def __init__(self, tail_s: float | None, clock: Clock | None = None) -> None:
        self._vad = StreamingVad(tail_s=tail_s)
        self._early = SpeculativeSegments(self._recognize)
        self.clock = clock
        self.cost_s = 0.0

    def _recognize(self, seg: Segment) -> Utterance:
        started = self._vad.consumed_s
        if self.clock is not None:
            self.clock.now += self.cost_s
        return Utterance((), seg.start_s, seg.end_s, extra={"started_at_s": started})

    def accept(self, samples: np.ndarray) -> list[Utterance]:
        return self._early(self._vad.feed(samples))

    def flush(self) -> list[Utterance]:
        return self._early(self._vad.flush())

    def reset(self) -> None:
        self._vad.reset(keep_time=False)
        self._early.reset()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder", type=Path)
    ap.add_argument("--split", default="all")
    ap.add_argument("--tails", default="off,0.032,0.064,0.096")
    ap.add_argument("--costs", type=Path, help="bench rows of an idle machine: simulate latency")
    args = ap.parse_args()
    labels = [json.loads(x) for x in (args.folder / "labels.jsonl").read_text().splitlines()]
    labels = [lb for lb in labels if args.split == "all" or split_of(lb) == args.split]
    costs = clip_costs(args.costs) if args.costs else None
    if costs is not None:
        labels = [lb for lb in labels if lb["file"] in costs]
    audios = [read_wav(args.folder / lb["file"]) for lb in labels]
    ends: dict[str, list[tuple[float, float]]] = {}
    for tail in args.tails.split(","):
        clock = Clock() if costs is not None else None
        rec = VadOnly(None if tail == "off" else float(tail), clock)
        waits, early, wasted, spans, latencies = [], 0, 0, [], []
        for label, audio in zip(labels, audios, strict=True):
            rec.reset()
            if costs is not None:
                rec.cost_s = costs[label["file"]]
            with simulated(clock):
                items = stream(rec, audio, lambda u: u)[0]
            for item in items:
                u = item.utterance
                waits.append(u.extra["started_at_s"] - u.end_s)
                early += u.extra["early"]
                wasted += u.extra["tentative_runs"] - u.extra["early"]
                spans.append((round(u.start_s, 3), round(u.end_s, 3)))
            if items and costs is not None:
                end = label.get("speech_end", len(audio) / rec.sample_rate)
                latencies.append(max(0.0, items[-1].done_s - end) * 1000)
        ends[tail] = spans
        w = np.array(waits) * 1000
        line = {
            "tail_s": tail,
            "clips": len(audios),
            "utterances": len(waits),
            "early": early,
            "wasted_runs": wasted,
            "wait_ms_mean": round(float(w.mean()), 1),
            "wait_ms_p95": round(float(np.percentile(w, 95)), 1),
            "same_utterances_as_first": spans == next(iter(ends.values())),
        }
        if latencies:
            line["latency_ms_mean"] = round(float(np.mean(latencies)), 1)
            line["latency_ms_p95"] = round(float(np.percentile(latencies, 95)), 1)
        print(json.dumps(line))


def clip_costs(rows_file: Path) -> dict[str, float]:
    """Seconds one recognition of each clip costs: its last utterance's `compute_ms`."""
    costs = {}
    for line in rows_file.read_text().splitlines():
        row = json.loads(line)
        timed = [u["compute_ms"] for u in row["utterances"] if u.get("compute_ms") is not None]
        if timed:
            costs[row["file"]] = timed[-1] / 1000
    return costs


@contextmanager
def simulated(clock: Clock | None) -> Iterator[None]:
    """`listen.stream` reads the simulated clock instead of the real one."""
    if clock is None:
        yield
        return
    real = listen.time
    listen.time = clock  # type: ignore[assignment]  # only perf_counter is read
    try:
        yield
    finally:
        listen.time = real


if __name__ == "__main__":
    main()
