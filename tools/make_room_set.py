"""Build a **dining-room** copy of a labelled clip set: every clip as a microphone in the
middle of a table hears it, with the room's echo (BENCHMARKS.md, session 27).

`--rooms` rooms (`voice_ref.simulation.room`, the rooms of `voice-ref bench --games
--room`: shoe boxes 4-6 x 3.5-5 x 2.5-2.8 m, the talker 0.6-1.1 m from the microphone),
reverberation times drawn from `--rt60 LO HI`; clip i is heard in room i mod `--rooms`.
The whole clip (speech and its noise) is convolved, then scaled back to the dry clip's
active speech level, so only the echo differs (the level is `--mic-gain`'s condition).
Labels are copied with `"room": {"rt60_s": ...}` added; a label's split is kept, so
`voice-ref bench --split tuning|heldout` still chooses and reports on the same clips.

Deterministic (seeded). Needs pyroomacoustics (the dev extra). WAVs go outside git.

    python tools/make_room_set.py ../shared/audio/dev build/room-dev
    python tools/make_room_set.py build/tuning-real build/room-treal
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from voice_ref.simulation.render import RATE, reverberant
from voice_ref.simulation.room import room_responses
from voice_ref.voice.audio_in import read_wav, write_wav
from voice_ref.voice.bench import load_labels


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", type=Path, help="a labelled clip folder (labels.jsonl, wav/)")
    ap.add_argument("out", type=Path)
    ap.add_argument("--rt60", type=float, nargs=2, default=(0.4, 0.7), metavar=("LO", "HI"))
    ap.add_argument("--rooms", type=int, default=24)
    ap.add_argument("--seed", type=int, default=20261205)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    rooms = []
    for k in range(args.rooms):
        rt60_s = round(rng.uniform(*args.rt60), 2)
        rooms.append((rt60_s, room_responses(rt60_s, args.seed + k, 1)[0]))
    labels = load_labels(args.src)
    (args.out / "wav").mkdir(parents=True, exist_ok=True)
    with (args.out / "labels.jsonl").open("w", encoding="utf-8") as out:
        for i, label in enumerate(labels):
            rt60_s, response = rooms[i % len(rooms)]
            dry = read_wav(args.src / label["file"], RATE)
            write_wav(args.out / label["file"], reverberant(dry, response, RATE).clip(-1, 1), RATE)
            out.write(json.dumps({**label, "room": {"rt60_s": rt60_s}}, ensure_ascii=False) + "\n")
    print(f"{len(labels)} clips in {len(rooms)} rooms -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
