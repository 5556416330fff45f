"""Build a **background-talk** clip set: the DEV set's clean clips with people talking
behind them, as at a sobremesa where others chat while a player calls.

The DEV noises (dishes, tap, pink noise) are not speech, so Silero's VAD ignores them;
background talk is speech to it, and an utterance then runs on until the talk pauses.
Each clip here starts with `--lead` seconds of talk before the call (the talk was going
on already) and the talk covers the whole clip, at `--snr` dB below the call's active
speech power.

The talk is six talkers summed, each a long stream:
- `--talkers tuning`: two streams of the Colombian Asterisk prompts (Debian
  `asterisk-prompt-es-co`, tuning-real's real voice) and espeak-ng voices that are not
  DEV voices (`es+m2`, `es-419+f1`, `es+klatt`, `es-419+m4`) reading random word-list
  sentences (`/usr/share/dict/spanish`, Debian `wspanish`);
- `--talkers heldout`: two streams of dev-real's table-talk clips (the real es-MX
  voice; used as noise only) and other espeak-ng voices (`es+m6`, `es-419+f3`, `es+f5`,
  `es-419+m7`).
Choose on a tuning-clip set with tuning talkers, report on a held-out-clip set with
held-out talkers (BENCHMARKS.md, session 25).

Labels are the DEV labels with `noise` "babble", `snr`, and the speech times moved by
the lead. Deterministic (seeded). Needs sox and espeak-ng. WAVs go outside git.

    python tools/make_babble.py --out build/babble-tuning-12 --snr 12 --split tuning
    python tools/make_babble.py --out build/babble-heldout-12 --snr 12 --split heldout \\
        --talkers heldout
    python tools/make_babble.py --talk-only build/talk-tuning.wav
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from make_tuning_real import load  # noqa: E402  (sox: any file, also the GSM prompts)

from voice_ref.voice.audio_in import write_wav  # noqa: E402
from voice_ref.voice.bench import split_of  # noqa: E402

RATE = 16000
DEV = ROOT.parent / "shared/audio/dev"
DEV_REAL = ROOT.parent / "shared/audio/dev-real"
ASTERISK_ES = Path("/usr/share/asterisk/sounds/es")
WORD_LIST = Path("/usr/share/dict/spanish")
ESPEAK_VOICES = {
    "tuning": ("es+m2", "es-419+f1", "es+klatt", "es-419+m4"),
    "heldout": ("es+m6", "es-419+f3", "es+f5", "es-419+m7"),
}
STREAM_S = 120.0


def unit_power(audio: np.ndarray) -> np.ndarray:
    return audio / (np.sqrt(np.mean(audio**2)) + 1e-9)


def recordings_stream(files: list[Path], rng: random.Random) -> np.ndarray:
    """Recordings picked at random, one after another with 0.1-0.6 s gaps."""
    parts: list[np.ndarray] = []
    while sum(map(len, parts)) < STREAM_S * RATE:
        parts.append(load(rng.choice(files)))
        parts.append(np.zeros(int(rng.uniform(0.1, 0.6) * RATE), np.float32))
    return np.concatenate(parts)


def espeak_stream(voice: str, words: list[str], rng: random.Random) -> np.ndarray:
    """An espeak-ng voice reading random word-list sentences."""
    sentences = (
        " ".join(rng.choice(words) for _ in range(rng.randint(4, 9)))
        for _ in range(int(STREAM_S / 2))
    )
    with tempfile.TemporaryDirectory() as tmp:
        wav = Path(tmp) / "talk.wav"
        speed = str(rng.randint(150, 180))
        text = ". ".join(sentences)
        subprocess.run(["espeak-ng", "-v", voice, "-s", speed, "-w", str(wav), text], check=True)
        return load(wav)


def talk(talkers: str, rng: random.Random) -> np.ndarray:
    """Six talkers summed, each at a random weight, at unit power."""
    if talkers == "tuning":
        real = sorted(ASTERISK_ES.glob("*.gsm"))
        if not real:
            sys.exit(f"No Asterisk prompts in {ASTERISK_ES}: apt install asterisk-prompt-es-co")
    else:
        labels = [json.loads(line) for line in (DEV_REAL / "labels.jsonl").open()]
        real = [DEV_REAL / lb["file"] for lb in labels if lb["category"] == "chatter"]
    text = WORD_LIST.read_text("utf-8", "ignore")
    words = [w for w in text.split() if w.isalpha() and len(w) > 3]
    streams = [recordings_stream(real, rng) for _ in range(2)]
    streams += [espeak_stream(voice, words, rng) for voice in ESPEAK_VOICES[talkers]]
    n = min(map(len, streams))
    return unit_power(sum(unit_power(s[:n]) * rng.uniform(0.6, 1.0) for s in streams))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="folder for the clips and labels.jsonl")
    ap.add_argument("--snr", type=float, help="dB of the call above the talk")
    ap.add_argument("--talk-only", type=Path, metavar="WAV", help="write only the talk "
                    f"({STREAM_S:.0f} s, for `voice-ref bench --games --background`) and stop")
    ap.add_argument("--split", choices=("tuning", "heldout"), default="tuning")
    ap.add_argument("--talkers", choices=("tuning", "heldout"), default=None,
                    help="who talks behind (default: as --split)")
    ap.add_argument("--lead", type=float, default=3.0, help="seconds of talk before the clip")
    ap.add_argument("--seed", type=int, default=20261204)
    args = ap.parse_args()
    if args.talk_only is None and (args.out is None or args.snr is None):
        ap.error("give --out and --snr (a clip set), or --talk-only WAV")
    rng = random.Random(args.seed)
    babble = talk(args.talkers or args.split, rng)
    if args.talk_only is not None:
        write_wav(args.talk_only, babble * 10 ** (-24 / 20), RATE)  # any level: the bench sets it
        print(f"{len(babble) / RATE:.0f} s of talk -> {args.talk_only}")
        return
    labels = [json.loads(line) for line in (DEV / "labels.jsonl").open()]
    keep = [lb for lb in labels if lb["noise"] is None and split_of(lb) == args.split]
    (args.out / "wav").mkdir(parents=True, exist_ok=True)
    with (args.out / "labels.jsonl").open("w", encoding="utf-8") as out:
        for label in keep:
            clip = load(DEV / label["file"])
            speech = clip[int(label["speech_start"] * RATE) : int(label["speech_end"] * RATE)]
            power = np.sqrt(np.mean(speech**2)) if len(speech) else np.sqrt(np.mean(clip**2))
            clip = np.concatenate([np.zeros(int(args.lead * RATE), np.float32), clip])
            at = rng.randint(0, len(babble) - len(clip) - 1)
            mixed = clip + babble[at : at + len(clip)] * power * 10 ** (-args.snr / 20)
            write_wav(args.out / label["file"], mixed, RATE)
            moved = {
                "noise": "babble",
                "snr": args.snr,
                "speech_start": round(label["speech_start"] + args.lead, 3),
                "speech_end": round(label["speech_end"] + args.lead, 3),
                "duration": round(len(clip) / RATE, 3),
            }
            out.write(json.dumps({**label, **moved}, ensure_ascii=False) + "\n")
    print(f"{len(keep)} clips -> {args.out}")


if __name__ == "__main__":
    main()
