"""What the held-out noise sets made of Debian packages' recordings share (dice:
`make_dice_set.py`, music: `make_music_set.py`): taking the recordings out of the
packages, and writing the set.

A set has two parts, both `"split": "heldout"` (nothing is ever chosen on them):
- `noise_only`: each sound alone at peaks of -1, -8, -16 and -24 dBFS over a -65 dBFS
  hiss, 0.2-0.5 s of quiet before it and 0.6 s after; any game action is a false one.
- speech: the DEV set's clean clips of its held-out voices with a sound under the whole
  clip (looped, `NoiseBank.stretch`) at 6 and 12 dB (active speech power, `render.mix`),
  the label kept; the sounds taken in turn.
"""

from __future__ import annotations

import json
import random
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from voice_ref.simulation.render import RATE, NoiseBank, mix
from voice_ref.voice.audio_in import read_wav, write_wav
from voice_ref.voice.bench import HELDOUT_VOICES, load_labels

PEAKS_DBFS = (-1.0, -8.0, -16.0, -24.0)
HISS_DBFS = -65.0
SNRS_DB = (6, 12)

# name -> (Debian package, path inside it)
Recordings = Mapping[str, tuple[str, str]]


def extract(recordings: Recordings, debs: Path, work: Path) -> dict[str, np.ndarray]:
    """Every recording as float32 at `RATE`, mono, from the packages' .deb files in `debs`
    (`apt-get download`ed there first when missing), unpacked into `work`."""
    packages = sorted({package for package, _ in recordings.values()})
    missing = [p for p in packages if not list(debs.glob(f"{p}_*.deb"))]
    if missing:
        subprocess.run(["apt-get", "download", *missing], cwd=debs, check=True)
    sounds = {}
    for name, (package, inside) in recordings.items():
        root = work / package
        if not root.is_dir():
            deb = sorted(debs.glob(f"{package}_*.deb"))[-1]
            subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
        wav = work / f"{name}.wav"
        # -D: no dither, which is random and made two builds of a set differ
        subprocess.run(["sox", "-D", str(root / inside), "-r", str(RATE), "-c", "1", "-b", "16",
                        str(wav)], check=True, capture_output=True)
        sounds[name] = read_wav(wav, RATE)
    return sounds


def fetched(fetch: Callable[[Path, Path], dict[str, np.ndarray]],
            debs: Path | None) -> dict[str, np.ndarray]:
    """`fetch(debs, work)` with a temporary `work` folder (and `debs` too, when None: the
    .deb files are then downloaded for this build only)."""
    with tempfile.TemporaryDirectory(prefix="voice_ref_noise_") as tmp:
        folder = debs or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        return fetch(folder, Path(tmp))


def write_set(src: Path, out: Path, *, alone: Mapping[str, np.ndarray],
              under: Sequence[tuple[str, np.ndarray]], stem: str, seed: int) -> list[dict]:
    """Write the set (module docstring) to `out` (`wav/` and `labels.jsonl`) and return
    its labels: `alone` are the sounds heard alone, `under` the ones put under speech, in
    turn. Deterministic for a seed."""
    rng = random.Random(seed)
    np_rng = np.random.default_rng(seed)
    (out / "wav").mkdir(parents=True, exist_ok=True)
    labels: list[dict] = []

    def write(samples: np.ndarray, label: dict) -> None:
        name = f"wav/{stem}{len(labels):04d}.wav"
        write_wav(out / name, samples, RATE)
        labels.append({**label, "file": name, "split": "heldout",
                       "duration": round(len(samples) / RATE, 3)})

    for name, sound in alone.items():
        for peak in PEAKS_DBFS:
            loud = sound / float(np.max(np.abs(sound))) * 10 ** (peak / 20)
            before = np.zeros(int(rng.uniform(0.2, 0.5) * RATE), np.float32)
            clip = np.concatenate([before, loud, np.zeros(int(0.6 * RATE), np.float32)])
            clip += np_rng.normal(0.0, 10 ** (HISS_DBFS / 20), len(clip)).astype(np.float32)
            write(clip, {"text": "", "intent": {"type": "none"}, "voice": None, "noise": name,
                         "snr": None, "source": "recorded", "category": "noise_only",
                         "tags": ["noise_only", f"peak{peak:g}"], "speech_start": None,
                         "speech_end": None})
    clean = [row for row in load_labels(src)
             if row.get("voice") in HELDOUT_VOICES and row.get("noise") is None
             and row.get("category") != "noise_only"]
    for snr in SNRS_DB:
        for k, row in enumerate(clean):
            name, sound = under[(k + snr) % len(under)]
            speech = read_wav(src / row["file"], RATE)
            noise = NoiseBank([sound]).stretch(rng, len(speech))
            write(np.clip(mix(speech, noise, snr), -1.0, 1.0), {**row, "noise": name, "snr": snr})
    with (out / "labels.jsonl").open("w", encoding="utf-8") as f:
        f.writelines(json.dumps(label, ensure_ascii=False) + "\n" for label in labels)
    return labels
