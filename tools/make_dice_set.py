"""Build a clip set of **dice**: the noise every round of Dudo starts with, which no other
set has (BENCHMARKS.md, session 37).

Real recordings of dice from Debian packages (no set, no training ever heard them):
shaking dice (basic256's example `shakedice.mp3`, Mike Koenig, CC-BY 3.0), dice rolled
(ksirk and gnubg, GPL; qabcs-data) and pieces knocked on a board (gnubg's `drop`, `take`,
`chequer`, `double`: a cup put down). Two parts, both `"split": "heldout"`:

- `noise_only`: each sound (and three sequences: a shake then a roll, three rolls, the
  knocks) alone at peaks of -1, -8, -16 and -24 dBFS over a -65 dBFS hiss; any game action
  is a false one.
- speech: the DEV set's clean clips of its held-out voices with dice rattling under the
  whole clip (a recording looped) at 6 and 12 dB (active speech power, `render.mix`), the
  label kept; one recording per clip in turn.

Deterministic (seeded). Needs `apt-get download` (or `--debs` with the four .deb files),
`dpkg-deb` and sox with MP3/OGG support (`libsox-fmt-all`). WAVs go outside git.

    python tools/make_dice_set.py ../shared/audio/dev build/dice
    voice-ref bench --audio build/dice --backend whisper
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from voice_ref.simulation.render import RATE, NoiseBank, mix
from voice_ref.voice.audio_in import read_wav, write_wav
from voice_ref.voice.bench import HELDOUT_VOICES, load_labels

# name -> (Debian package, path inside it)
RECORDINGS = {
    "shake": ("basic256", "usr/share/doc/basic256/examples/dice/shakedice.mp3"),
    "roll_ksirk": ("ksirk", "usr/share/ksirk/skins/default/Sounds/roll.wav"),
    "dice_qabcs": ("qabcs-data", "usr/share/qabcs/abcs/all/noises/dice.ogg"),
    "roll_gnubg": ("gnubg-data", "usr/share/gnubg/sounds/roll.wav"),
    "drop": ("gnubg-data", "usr/share/gnubg/sounds/drop.wav"),
    "take": ("gnubg-data", "usr/share/gnubg/sounds/take.wav"),
    "chequer": ("gnubg-data", "usr/share/gnubg/sounds/chequer.wav"),
    "double": ("gnubg-data", "usr/share/gnubg/sounds/double.wav"),
}
PEAKS_DBFS = (-1.0, -8.0, -16.0, -24.0)
HISS_DBFS = -65.0
GAP_S = 0.25
SNRS_DB = (6, 12)
UNDER_SPEECH = ("shake", "roll_ksirk", "dice_qabcs", "roll_gnubg")


def fetch(debs: Path, work: Path) -> dict[str, np.ndarray]:
    """Every recording as float32 at `RATE`, mono, from the packages in `debs` (downloaded
    there first when missing)."""
    packages = sorted({package for package, _ in RECORDINGS.values()})
    missing = [p for p in packages if not list(debs.glob(f"{p}_*.deb"))]
    if missing:
        subprocess.run(["apt-get", "download", *missing], cwd=debs, check=True)
    sounds = {}
    for name, (package, inside) in RECORDINGS.items():
        root = work / package
        if not root.is_dir():
            deb = sorted(debs.glob(f"{package}_*.deb"))[-1]
            subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
        wav = work / f"{name}.wav"
        subprocess.run(["sox", str(root / inside), "-r", str(RATE), "-c", "1", "-b", "16",
                        str(wav)], check=True, capture_output=True)
        sounds[name] = read_wav(wav, RATE)
    return sounds


def arrangements(sounds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """What the table hears between calls: each dice sound, and three sequences."""
    gap = np.zeros(int(GAP_S * RATE), np.float32)

    def joined(*parts: np.ndarray) -> np.ndarray:
        out = [parts[0]]
        for part in parts[1:]:
            out += [gap, part]
        return np.concatenate(out)

    return {
        **{name: sounds[name] for name in (*UNDER_SPEECH, "drop")},
        "shake_then_roll": joined(sounds["shake"], sounds["roll_gnubg"]),
        "three_rolls": joined(sounds["roll_gnubg"], sounds["roll_gnubg"][::-1].copy(),
                              sounds["roll_gnubg"]),
        "knocks": joined(*(sounds[n] for n in ("drop", "take", "chequer", "double"))),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", type=Path, help="the DEV set (labels.jsonl, wav/)")
    ap.add_argument("out", type=Path)
    ap.add_argument("--debs", type=Path, help="a folder with (or for) the four .deb files")
    ap.add_argument("--seed", type=int, default=20261206)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    np_rng = np.random.default_rng(args.seed)
    with tempfile.TemporaryDirectory(prefix="voice_ref_dice_") as tmp:
        debs = args.debs or Path(tmp)
        debs.mkdir(parents=True, exist_ok=True)
        sounds = fetch(debs, Path(tmp))
    (args.out / "wav").mkdir(parents=True, exist_ok=True)
    labels: list[dict] = []

    def write(samples: np.ndarray, label: dict) -> None:
        name = f"wav/dice{len(labels):04d}.wav"
        write_wav(args.out / name, samples, RATE)
        labels.append({**label, "file": name, "split": "heldout",
                       "duration": round(len(samples) / RATE, 3)})

    for name, sound in arrangements(sounds).items():
        for peak in PEAKS_DBFS:
            loud = sound / float(np.max(np.abs(sound))) * 10 ** (peak / 20)
            before = np.zeros(int(rng.uniform(0.2, 0.5) * RATE), np.float32)
            clip = np.concatenate([before, loud, np.zeros(int(0.6 * RATE), np.float32)])
            clip += np_rng.normal(0.0, 10 ** (HISS_DBFS / 20), len(clip)).astype(np.float32)
            write(clip, {"text": "", "intent": {"type": "none"}, "voice": None, "noise": name,
                         "snr": None, "source": "recorded", "category": "noise_only",
                         "tags": ["noise_only", f"peak{peak:g}"], "speech_start": None,
                         "speech_end": None})
    clean = [row for row in load_labels(args.src)
             if row.get("voice") in HELDOUT_VOICES and row.get("noise") is None
             and row.get("category") != "noise_only"]
    for snr in SNRS_DB:
        for k, row in enumerate(clean):
            name = UNDER_SPEECH[(k + snr) % len(UNDER_SPEECH)]
            speech = read_wav(args.src / row["file"], RATE)
            rattle = NoiseBank([sounds[name]]).stretch(rng, len(speech))
            write(np.clip(mix(speech, rattle, snr), -1.0, 1.0),
                  {**row, "noise": name, "snr": snr})
    with (args.out / "labels.jsonl").open("w", encoding="utf-8") as out:
        out.writelines(json.dumps(label, ensure_ascii=False) + "\n" for label in labels)
    alone = sum(label["category"] == "noise_only" for label in labels)
    print(f"{len(labels)} clips ({alone} dice alone) -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
