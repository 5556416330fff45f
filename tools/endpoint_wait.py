"""The end-pointing wait, by VAD alone: how long after the end of speech recognition can start.

Streams every clip of a labelled folder through `listen.stream` (the bench's blocks and
trailing silence) with the Whisper recognizer's VAD and speculative reuse, but a
recognizer that costs nothing: so the numbers are the wait the VAD imposes (tentative
or final end, rounded up to the block), independent of load and of the model. For each
`tail_s` (and "off": today's end at `end_silence_s`): utterances, how many finals reuse a
tentative result, the wasted tentative runs, and the wait (start of recognition minus the
end of speech) mean / p95.

    python tools/endpoint_wait.py ../shared/audio/dev --split tuning --tails off,0.032,0.064
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from voice_ref.voice.asr.base import Utterance
from voice_ref.voice.asr.speculative import SpeculativeSegments
from voice_ref.voice.asr.vad import Segment, StreamingVad
from voice_ref.voice.audio_in import read_wav
from voice_ref.voice.bench import split_of
from voice_ref.voice.listen import stream


class VadOnly:
    """The Whisper recognizer's accept/flush/reset with recognition replaced by nothing."""

    sample_rate = 16000

    def __init__(self, tail_s: float | None) -> None:
        self._vad = StreamingVad(tail_s=tail_s)
        self._early = SpeculativeSegments(self._recognize)

    def _recognize(self, seg: Segment) -> Utterance:
        return Utterance((), seg.start_s, seg.end_s, extra={"started_at_s": self._vad.consumed_s})

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
    args = ap.parse_args()
    labels = [json.loads(x) for x in (args.folder / "labels.jsonl").read_text().splitlines()]
    labels = [lb for lb in labels if args.split == "all" or split_of(lb) == args.split]
    audios = [read_wav(args.folder / lb["file"]) for lb in labels]
    ends: dict[str, list[tuple[float, float]]] = {}
    for tail in args.tails.split(","):
        rec = VadOnly(None if tail == "off" else float(tail))
        waits, early, wasted, spans = [], 0, 0, []
        for audio in audios:
            rec.reset()
            for item in stream(rec, audio, lambda u: u)[0]:
                u = item.utterance
                waits.append(u.extra["started_at_s"] - u.end_s)
                early += u.extra["early"]
                wasted += u.extra["tentative_runs"] - u.extra["early"]
                spans.append((round(u.start_s, 3), round(u.end_s, 3)))
        ends[tail] = spans
        w = np.array(waits) * 1000
        print(
            json.dumps(
                {
                    "tail_s": tail,
                    "clips": len(audios),
                    "utterances": len(waits),
                    "early": early,
                    "wasted_runs": wasted,
                    "wait_ms_mean": round(float(w.mean()), 1),
                    "wait_ms_p95": round(float(np.percentile(w, 95)), 1),
                    "same_utterances_as_first": spans == next(iter(ends.values())),
                }
            )
        )


if __name__ == "__main__":
    main()
