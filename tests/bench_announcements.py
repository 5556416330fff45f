"""How long the referee talks in a typical game: words per announcement, by kind.

Run: `python tests/bench_announcements.py`. Plays the scripted 4-player `chile` game of the
text-mode end-to-end test through the real referee and prints the numbers (no assertions:
performance-like figures are printed, never tested).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from argparse import Namespace
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dialogue_bot import TableBot, play_game  # noqa: E402

from voice_ref.app import open_referee  # noqa: E402
from voice_ref.config import load_config  # noqa: E402
from voice_ref.voice.announcer import Synthesizer  # noqa: E402

PLAN = ["Diego", ("pass_lose", "Carla"), ("pass_ok", "Ana"), "Diego", ("calzo", "Beto"),
        "Diego", "Carla", "Diego", "Diego", "Beto", "Carla", "Carla", "Carla", *["Beto"] * 6]


def main() -> None:
    config = load_config()
    with tempfile.TemporaryDirectory() as tmp:
        args = Namespace(players="Ana,Beto,Carla,Diego", rules="chile", starter=None,
                         direction=None, seed=None, state_dir=tmp, resume=False)
        referee, opening = open_referee(args, config)
        replies = []

        def send(line: str) -> dict:
            reply = referee.handle_text(line)
            replies.append(reply)
            return reply.to_json()

        play_game(send, opening.to_json(), TableBot(PLAN))
    words: dict[str, list[int]] = defaultdict(list)
    for reply in replies:
        words[reply.kind].append(len(reply.say.split()))
    synth = Synthesizer(config.voice)
    routine = [r.say for r in replies if r.kind == "routine"]
    seconds = [synth.render(s).duration_s for s in routine[:20]]
    print(f"{len(replies)} replies in a 4-player chile game to a winner")
    for kind, counts in sorted(words.items()):
        print(f"  {kind:10s} n={len(counts):3d}  words: mean {statistics.mean(counts):.1f}, "
              f"max {max(counts)}")
    print(f"routine announcements: {statistics.mean(words['routine']):.2f} words on average, "
          f"{statistics.mean(seconds):.2f} s spoken at {config.voice.rate} words/min "
          f"(first {len(seconds)})")


if __name__ == "__main__":
    main()
