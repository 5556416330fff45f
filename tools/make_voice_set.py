"""Build the DEV set's lines **re-spoken by another synthesizer**: SVOX Pico (es-ES) by
default, or any voice the games bench speaks (`--voices`, e.g. MBROLA's Mexican
`mbrola:mx1,mbrola:mx2`), voices no part of the project was built, tuned or trained on
(BENCHMARKS.md, sessions 28 and 52).

The DEV set is espeak-ng throughout, so a recognizer adapted to espeak-ng can look far
better on DEV's held-out voices than it hears anything else; this set asks the same
lines of another engine. Each speech clip of SRC is said again by one of the voices
(trimmed, scaled to the DEV clip's speech level, 0.25-0.5 s of room before and after)
and mixed with the same noise type at the same SNR (on active speech power), the noise
taken only from SRC's noise-only clips of `--split` (held-out by default); noise-only
clips are left out. Every label keeps its text and intent, with the voice (its name,
":" as "-") and `"split"`: a held-out set is only reported, never chosen on; a tuning
set (other noise) is material to choose decisions on.

Deterministic (seeded). Needs the voice's engine (Pico: Debian non-free `apt install
libttspico-utils`; MBROLA: `apt install mbrola mbrola-mx1 mbrola-mx2`). WAVs go outside git.

    python tools/make_voice_set.py ../shared/audio/dev build/pico-dev
    python tools/make_voice_set.py ../shared/audio/dev build/mbrola-dev \
        --voices mbrola:mx1,mbrola:mx2 --split tuning
    voice-ref bench --audio build/pico-dev --backend whisper
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import numpy as np

from voice_ref.simulation.bench import check_voice
from voice_ref.simulation.render import RATE, NoiseBank, Voice, active_power, speak
from voice_ref.voice.audio_in import read_wav, write_wav
from voice_ref.voice.bench import load_labels, split_of

ROOM_S = (0.25, 0.5)
# How the DEV clip's espeak-ng voice spoke: not how the new voice does.
ESPEAK_ONLY = ("rate", "pitch")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", type=Path, help="a labelled clip folder (labels.jsonl, wav/)")
    ap.add_argument("out", type=Path)
    ap.add_argument("--voices", default="pico:es-ES",
                    help="comma-separated games-bench voices, one drawn per line")
    ap.add_argument("--split", choices=("heldout", "tuning"), default="heldout",
                    help="whose noise-only clips go under the lines, and the labels' split")
    ap.add_argument("--seed", type=int, default=20261205)
    args = ap.parse_args(argv)
    voices = [Voice(name.strip()) for name in args.voices.split(",") if name.strip()]
    try:
        for voice in voices:
            check_voice(voice)
    except ValueError as exc:
        ap.error(str(exc))
    rng = random.Random(args.seed)
    labels = load_labels(args.src)
    recordings: dict[str, list[np.ndarray]] = {}
    for label in labels:
        if label.get("category") == "noise_only" and split_of(label) == args.split:
            recording = read_wav(args.src / label["file"], RATE)
            recordings.setdefault(label["noise"], []).append(recording)
    noises = {kind: NoiseBank(clips) for kind, clips in recordings.items()}
    (args.out / "wav").mkdir(parents=True, exist_ok=True)
    written = 0
    with (args.out / "labels.jsonl").open("w", encoding="utf-8") as out:
        for label in labels:
            if label.get("category") == "noise_only":
                continue
            # one voice: no draw, so the Pico set of session 28 comes out the same
            voice = voices[0] if len(voices) == 1 else rng.choice(voices)
            speech = speak(label["text"], voice, RATE)
            speech *= np.sqrt(10 ** (label["level_dbfs"] / 10) / active_power(speech))
            before, after = (int(RATE * rng.uniform(*ROOM_S)) for _ in range(2))
            clip = np.concatenate([np.zeros(before, np.float32), speech.astype(np.float32),
                                   np.zeros(after, np.float32)])
            if label.get("noise") and label.get("snr") is not None:
                noise = noises[label["noise"]].stretch(rng, len(clip))
                clip = clip + _at_snr(noise, active_power(speech), label["snr"])
            write_wav(args.out / label["file"], clip, RATE)
            kept = {k: v for k, v in label.items() if k not in ESPEAK_ONLY}
            out.write(json.dumps({
                **kept, "voice": voice.name.replace(":", "-"), "split": args.split,
                "duration": round(len(clip) / RATE, 3),
                "speech_start": round(before / RATE, 3),
                "speech_end": round((before + len(speech)) / RATE, 3),
            }, ensure_ascii=False) + "\n")
            written += 1
    print(f"{written} lines said by {', '.join(v.name for v in voices)} -> {args.out}")
    return 0


def _at_snr(noise: np.ndarray, speech_power: float, snr_db: float) -> np.ndarray:
    """`noise` scaled to `snr_db` below `speech_power`: the DEV set's rule, SNR on the active
    speech, the noise over the whole clip (`render.mix` measures the clip it is given, here
    the line with its silence around it)."""
    gain = np.sqrt(speech_power / (float(np.mean(noise**2)) * 10 ** (snr_db / 10)))
    return (gain * noise).astype(np.float32)


if __name__ == "__main__":
    raise SystemExit(main())
