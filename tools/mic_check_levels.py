"""What `voice-ref check` says about labelled clips, made louder, quieter or clipped.

    python tools/mic_check_levels.py ../shared/audio/dev --split tuning

For every clip with speech in the labels (DEV: its `snr` and `noise`), the check's
report (`mic_check.assess` on Silero's spans) as recorded, then with the microphone's
gain changed by each `--gains` dB (samples beyond full scale clipped, as a sound card
does). Prints, per condition, how many clips each problem was reported for, and the
speech's margin over the room per labelled SNR (median and 10th percentile), which is
what `NOISY_MARGIN_DB` is chosen on (the tuning split; the held-out split is reported).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from voice_ref.voice.audio_in import read_wav
from voice_ref.voice.bench import load_labels, select
from voice_ref.voice.mic_check import MicProblem, assess, speech_spans


def with_gain(audio: np.ndarray, gain_db: float) -> np.ndarray:
    """The recording as a microphone `gain_db` hotter (or quieter) would have made it."""
    return np.clip(audio * np.float32(10 ** (gain_db / 20)), -1.0, 1.0).astype(np.float32)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--split", default="all")
    ap.add_argument("--gains", default="-30,-20,-10,6,12,18")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    labels = [lb for lb in select(load_labels(args.folder), args.split)
              if lb["intent"]["type"] != "none"]
    gains = [0.0, *(float(g) for g in args.gains.split(","))]
    flagged: dict[float, Counter] = {g: Counter() for g in gains}
    margins: dict[str, list[float]] = defaultdict(list)
    for label in labels:
        audio = read_wav(args.folder / label["file"])
        spans = speech_spans(audio)  # found once: the detector changes little with level
        for gain in gains:
            report = assess(with_gain(audio, gain), spans)
            flagged[gain].update(report.problems)
            flagged[gain]["clips"] += 1
            if gain == 0.0 and report.margin_db is not None:
                margins["clean" if label.get("snr") is None else f"{label['snr']} dB"].append(
                    report.margin_db)
    out = {
        "clips": len(labels),
        "problems_by_gain_db": {
            str(g): {str(p): c[p] for p in MicProblem if c[p]} for g, c in flagged.items()},
        "margin_db_by_snr": {
            k: {"n": len(v), "median": round(float(np.median(v)), 1),
                "p10": round(float(np.percentile(v, 10)), 1), "min": round(min(v), 1)}
            for k, v in sorted(margins.items())},
    }
    print(json.dumps(out, indent=None if args.json else 1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
