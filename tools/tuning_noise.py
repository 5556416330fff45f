"""Copy a labelled set's **tuning** noise-only clips into a folder of WAVs, the noise the
measured adapted model was trained with (`voice-ref models adapt --noise OUT`).

On the DEV set these are its three even-numbered noise-only clips (dishes, tap, pink);
the odd ones stay held out (`voice_ref.voice.bench.split_of`), so no bench reports on a
noise the model trained on. `.ci/run` uses it to build the adapted model the way
BENCHMARKS.md measured it.

    python tools/tuning_noise.py ../shared/audio/dev build/tuning-noise
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from voice_ref.simulation.render import NoiseBank
from voice_ref.voice.bench import load_labels, split_of


class StrayRecordings(Exception):
    """`out` already holds recordings that are not tuning noise: adapt would train on them too."""


def copy_tuning_noise(source: Path, out: Path) -> list[Path]:
    """The copied files, in label order. Raises `StrayRecordings`, copying nothing, when
    `out` has other WAVs (a re-run into the same folder is fine)."""
    clips = [row for row in load_labels(source)
             if row.get("category") == "noise_only" and split_of(row) == "tuning"]
    targets = {out / Path(row["file"]).name for row in clips}
    # What `models adapt --noise out` would read, beside what this copies.
    stray = ([str(p.relative_to(out)) for p in NoiseBank.recordings(out) if p not in targets]
             if out.is_dir() else [])
    if stray:
        raise StrayRecordings(f"{out} already has recordings that `models adapt --noise` "
                              f"would train on ({', '.join(stray[:3])}"
                              f"{', ...' if len(stray) > 3 else ''}): give a new or empty folder")
    out.mkdir(parents=True, exist_ok=True)
    copied = []
    for row in clips:
        target = out / Path(row["file"]).name
        shutil.copyfile(source / row["file"], target)
        copied.append(target)
    return copied


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="a labelled audio folder (labels.jsonl)")
    parser.add_argument("out", type=Path, help="folder to write the WAVs to")
    args = parser.parse_args()
    try:
        copied = copy_tuning_noise(args.source, args.out)
    except (OSError, StrayRecordings) as exc:  # no labels.jsonl, an unwritable folder, ...
        print(exc, file=sys.stderr)
        return 2
    if not copied:
        print(f"{args.source} has no tuning noise-only clips", file=sys.stderr)
        return 2
    print(" ".join(p.name for p in copied))
    return 0


if __name__ == "__main__":
    sys.exit(main())
