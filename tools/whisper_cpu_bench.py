"""CPU seconds per utterance of the Whisper recognizer, load-independent.

`time.process_time()` of `WhisperRecognizer.recognize()` (no VAD) on every n-th
clip of a DEV split, each with the bench's context for its category (the large
"turn" context: all phrasings, quantities 1-40). Used for BENCHMARKS.md, "Speed":
while other processes share the cores, wall latency says little, CPU time does.

    python tools/whisper_cpu_bench.py --split tuning --every 12 --threads 1
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from voice_ref.language.inventory import PhraseInventory
from voice_ref.voice.asr.base import ListenContext
from voice_ref.voice.asr.whisper_backend import WhisperRecognizer
from voice_ref.voice.audio_in import read_wav
from voice_ref.voice.bench import expecting_for, load_labels, select

REPO = Path(__file__).parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--audio", default=str(REPO.parent / "shared/audio/dev"))
    ap.add_argument("--split", default="tuning")
    ap.add_argument("--every", type=int, default=12)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args()
    folder = Path(args.audio)
    labels = load_labels(folder)
    players = sorted({lb["intent"]["player"] for lb in labels if lb["intent"].get("player")})
    chosen = select(labels, args.split, args.every)
    if args.limit:
        chosen = chosen[: args.limit]
    rec = WhisperRecognizer(REPO / "models/whisper-base", threads=args.threads, players=players)
    inventory = PhraseInventory(players)
    contexts: dict[str, ListenContext] = {}
    cpu, rows = [], []
    for i, lb in enumerate(chosen):
        expecting = expecting_for(lb.get("category", ""))
        if expecting not in contexts:
            phrases = tuple(inventory.phrases(expecting, canonical=False))
            contexts[expecting] = ListenContext(expecting, phrases)
        rec.set_context(contexts[expecting])
        audio = read_wav(folder / lb["file"])
        start, end = lb.get("speech_start"), lb.get("speech_end")
        a = max(0, int((start - 0.2) * 16000)) if start is not None else 0
        b = int((end + 0.2) * 16000) if end is not None else len(audio)
        t = time.process_time()
        utt = rec.recognize(audio[a:b])
        spent = time.process_time() - t
        if i > 0:  # the first one warms caches (prior of a new context)
            cpu.append(spent)
        rows.append(
            {"file": lb["file"], "text": lb["text"], "best": utt.best.text if utt.best else "",
             "cpu_s": round(spent, 3), "calls": utt.extra.get("decoder_calls")}
        )
    print(json.dumps(rows, ensure_ascii=False, indent=0))
    print(
        json.dumps(
            {"clips": len(cpu), "cpu_s_mean": round(float(np.mean(cpu)), 3),
             "cpu_s_p95": round(float(np.percentile(cpu, 95)), 3), "threads": args.threads}
        )
    )


if __name__ == "__main__":
    main()
