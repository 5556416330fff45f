"""Build a clip set of **dice**: the noise every round of Dudo starts with, which no other
set has (BENCHMARKS.md, session 37).

Real recordings of dice from Debian packages (no set, no training ever heard them):
shaking dice (basic256's example `shakedice.mp3`, Mike Koenig, CC-BY 3.0), dice rolled
(ksirk and gnubg, GPL; qabcs-data) and pieces knocked on a board (gnubg's `drop`, `take`,
`chequer`, `double`: a cup put down). Built as `held_out_noise` writes every such set:
each dice sound (and three sequences: a shake then a roll, three rolls, the knocks) alone
at four peaks, and the DEV set's clean held-out-voice lines with dice rattling under them
at 6 and 12 dB.

Deterministic (seeded). Needs `apt-get download` (or `--debs` with the four .deb files),
`dpkg-deb` and sox with MP3/OGG support (`libsox-fmt-all`). WAVs go outside git.

    python tools/make_dice_set.py ../shared/audio/dev build/dice
    voice-ref bench --audio build/dice --backend whisper
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from held_out_noise import extract, fetched, write_set  # noqa: E402

from voice_ref.simulation.render import RATE  # noqa: E402

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
GAP_S = 0.25
UNDER_SPEECH = ("shake", "roll_ksirk", "dice_qabcs", "roll_gnubg")


def fetch(debs: Path, work: Path) -> dict[str, np.ndarray]:
    """Every dice recording (16 kHz mono float32) from the packages in `debs`."""
    return extract(RECORDINGS, debs, work)


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
    sounds = fetched(fetch, args.debs)
    labels = write_set(args.src, args.out, alone=arrangements(sounds),
                       under=[(name, sounds[name]) for name in UNDER_SPEECH],
                       stem="dice", seed=args.seed)
    alone = sum(label["category"] == "noise_only" for label in labels)
    print(f"{len(labels)} clips ({alone} dice alone) -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
