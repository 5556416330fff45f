"""Compare two code trees' answer time on the same clips, answered in turn in one run.

On a shared VM, runs made one after another differed by up to 50% for the very same code
(BENCHMARKS.md, session 15), more than most speed changes gain. Here one worker process
per tree (its `voice_ref` first on PYTHONPATH) loads the Whisper recognizer, then both
answer every clip, one at a time, in the order A B, B A, A B, ...: a slow spell of the
machine hits both. Prints per tree the wall time of `recognize()` (mean, p95), its CPU
time, and how many best phrases differ between the trees (a pure speed change: none).

    git worktree add /tmp/before HEAD~1
    python tools/ab_speed.py --a /tmp/before --b . --every 8

Each clip is cut as the recognizer gets it from the VAD (0.2 s around the labelled speech)
and decided in its label's context, like `voice-ref bench`, without the VAD or the
decision layer. The first clip warms up and is not counted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
AROUND_S = 0.2  # audio kept before and after the labelled speech (the VAD's padding)


def worker(folder: Path, model: Path, threads: int) -> None:
    """Answer clips named on stdin (one JSON label a line) with this tree's recognizer."""
    from voice_ref.config import load_config
    from voice_ref.language.inventory import PhraseInventory
    from voice_ref.voice.asr.vad import SAMPLE_RATE
    from voice_ref.voice.asr.whisper_backend import WhisperRecognizer
    from voice_ref.voice.audio_in import read_wav
    from voice_ref.voice.bench import expecting_for, label_players, listen_contexts, load_labels

    players = label_players(load_labels(folder), load_config(None).game.players)
    recognizer = WhisperRecognizer(model, threads=threads, players=players)
    context = listen_contexts(PhraseInventory(players))
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        label = json.loads(line)
        recognizer.set_context(context(expecting_for(label.get("category", ""))))
        audio = read_wav(folder / label["file"])
        start, end = label.get("speech_start"), label.get("speech_end")
        lo = max(0, int((start - AROUND_S) * SAMPLE_RATE)) if start is not None else 0
        hi = int((end + AROUND_S) * SAMPLE_RATE) if end is not None else len(audio)
        wall, cpu = time.perf_counter(), time.process_time()
        utterance = recognizer.recognize(audio[lo:hi])
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        best = utterance.best
        print(json.dumps({"wall": wall, "cpu": cpu, "best": best.text if best else "",
                          "share": best.score if best else 0.0}), flush=True)


class Tree:
    """A worker process running one code tree."""

    def __init__(self, name: str, tree: Path, args: argparse.Namespace) -> None:
        self.name, self.tree = name, tree
        env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--worker", "--audio", str(args.audio),
             "--model", str(args.model), "--threads", str(args.threads)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
        )
        self.results: list[dict] = []
        self._read()  # loaded

    def answer(self, label: dict) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(label, ensure_ascii=False) + "\n")
        self.process.stdin.flush()
        self.results.append(self._read())

    def _read(self) -> dict:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"the worker for {self.tree} stopped (see its error above)")
        return json.loads(line)

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def summary(results: list[dict]) -> dict:
    import numpy as np

    wall = np.array([r["wall"] for r in results[1:]]) * 1000
    cpu = np.array([r["cpu"] for r in results[1:]]) * 1000
    return {"clips": len(wall), "wall_mean_ms": round(float(wall.mean())),
            "wall_p95_ms": round(float(np.percentile(wall, 95))),
            "cpu_mean_ms": round(float(cpu.mean()))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", type=Path, help="code tree A (a folder holding voice_ref/)")
    ap.add_argument("--b", type=Path, help="code tree B")
    ap.add_argument("--audio", type=Path, default=REPO.parent / "shared/audio/dev")
    ap.add_argument("--model", type=Path, default=REPO / "models/whisper-base")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--every", type=int, default=8, help="every N-th clip of each category")
    ap.add_argument("--split", default="all", help="tuning, heldout or all")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.audio, args.model, args.threads)
        return 0
    if args.a is None or args.b is None:
        ap.error("give both trees: --a PATH --b PATH")
    for tree in (args.a, args.b):
        if not (tree / "voice_ref").is_dir():
            ap.error(f"{tree} holds no voice_ref/ folder")
    from voice_ref.voice.bench import load_labels, select

    labels = select(load_labels(args.audio), args.split, args.every)
    trees = [Tree("A", args.a, args), Tree("B", args.b, args)]
    for i, label in enumerate(labels):
        for tree in trees if i % 2 == 0 else trees[::-1]:
            tree.answer(label)
    for tree in trees:
        tree.close()
    a, b = (t.results for t in trees)
    differ = [(lb["text"], x["best"], y["best"]) for lb, x, y in zip(labels, a, b, strict=True)
              if x["best"] != y["best"]]
    load = os.getloadavg()[0]
    for tree in trees:
        print(json.dumps({"tree": tree.name, "path": str(tree.tree), **summary(tree.results)}))
    print(json.dumps({"best_phrases_differ": len(differ), "load": round(load, 2)}))
    for said, x, y in differ:
        print(f"  {said!r}: A {x!r}  B {y!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
