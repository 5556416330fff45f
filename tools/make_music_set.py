"""Build a clip set of **music**: a radio or a playlist on at the sobremesa, which no other
set has (DEV's noises are dishes, a tap and pink noise; babble and dice have their own
sets).

Real recordings from three Debian packages' game soundtracks, three composers:
`drascula-music` (Drascula, a Spanish adventure game), `singularity-music` (Endgame:
Singularity) and `hyperrogue-music` (HyperRogue). Drascula's track 30 has a passage that
the voice detector takes for speech and Whisper writes as Spanish words ("No somos lo
amor se pone"), as a song on the radio would be; the other excerpts sound instrumental.
No set and no training ever heard them. Four tracks of each, one excerpt of `EXCERPT_S`
seconds per track from a seeded place in its middle, written as `held_out_noise` writes
every such set: each excerpt alone at four peaks, and the DEV set's clean held-out-voice
lines with the excerpts in turn under them at 6 and 12 dB.

Deterministic (seeded). Needs `apt-get download` (or `--debs` with the three .deb files,
about 150 MB), `dpkg-deb` and sox with OGG support (`libsox-fmt-all`). WAVs go outside
git.

    python tools/make_music_set.py ../shared/audio/dev build/music
    voice-ref bench --audio build/music --backend whisper

`--playlist WAV` writes only the excerpts one after another (96 s), for a radio on under
whole games: `voice-ref bench --games N --background WAV`.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from held_out_noise import extract, fetched, write_set  # noqa: E402

from voice_ref.simulation.render import RATE  # noqa: E402
from voice_ref.voice.audio_in import write_wav  # noqa: E402

_DRASCULA = "usr/share/scummvm/drascula/audio"
_SINGULARITY = "usr/share/games/singularity/music"
_HYPERROGUE = "usr/share/hyperrogue/music"
# name -> (Debian package, path inside it)
RECORDINGS = {
    "drascula_1": ("drascula-music", f"{_DRASCULA}/track1.ogg"),
    "drascula_11": ("drascula-music", f"{_DRASCULA}/track11.ogg"),
    "drascula_23": ("drascula-music", f"{_DRASCULA}/track23.ogg"),
    "drascula_30": ("drascula-music", f"{_DRASCULA}/track30.ogg"),
    "awakening": ("singularity-music", f"{_SINGULARITY}/Awakening.ogg"),
    "coherence": ("singularity-music", f"{_SINGULARITY}/Coherence.ogg"),
    "nebula": ("singularity-music", f"{_SINGULARITY}/Nebula.ogg"),
    "through_space": ("singularity-music", f"{_SINGULARITY}/Through Space.ogg"),
    "caribbean": ("hyperrogue-music", f"{_HYPERROGUE}/hr-savino-caribbean.ogg"),
    "hunting": ("hyperrogue-music", f"{_HYPERROGUE}/hr-domina-hunting.ogg"),
    "desert": ("hyperrogue-music", f"{_HYPERROGUE}/hr3-desert.ogg"),
    "jungle": ("hyperrogue-music", f"{_HYPERROGUE}/hr3-jungle.ogg"),
}
EXCERPT_S = 8.0
# Where an excerpt may start, as a share of the track: past the intro, before the end.
START_RANGE = (0.2, 0.6)


def fetch(debs: Path, work: Path) -> dict[str, np.ndarray]:
    """Every track (16 kHz mono float32) from the packages in `debs`."""
    return extract(RECORDINGS, debs, work)


def excerpts(tracks: dict[str, np.ndarray], rng: random.Random) -> dict[str, np.ndarray]:
    """`EXCERPT_S` seconds of each track from a random place in `START_RANGE` (the whole
    track when it is shorter)."""
    size = int(EXCERPT_S * RATE)
    out = {}
    for name, track in tracks.items():
        room = max(len(track) - size, 0)
        start = min(int(rng.uniform(*START_RANGE) * len(track)), room)
        out[name] = track[start:start + size]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", type=Path, nargs="?", help="the DEV set (labels.jsonl, wav/)")
    ap.add_argument("out", type=Path, nargs="?")
    ap.add_argument("--playlist", type=Path, metavar="WAV", help="write only the excerpts "
                    "one after another (for `voice-ref bench --games --background`) and stop")
    ap.add_argument("--debs", type=Path, help="a folder with (or for) the three .deb files")
    ap.add_argument("--seed", type=int, default=20261207)
    args = ap.parse_args(argv)
    if args.playlist is None and (args.src is None or args.out is None):
        ap.error("give SRC and OUT (a clip set), or --playlist WAV")
    music = excerpts(fetched(fetch, args.debs), random.Random(args.seed))
    if args.playlist is not None:
        playlist = np.concatenate(list(music.values()))
        write_wav(args.playlist, playlist, RATE)  # its level is the bench's to set
        print(f"{len(playlist) / RATE:.0f} s of music -> {args.playlist}")
        return 0
    labels = write_set(args.src, args.out, alone=music, under=list(music.items()),
                       stem="music", seed=args.seed)
    alone = sum(label["category"] == "noise_only" for label in labels)
    print(f"{len(labels)} clips ({alone} music alone) -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
