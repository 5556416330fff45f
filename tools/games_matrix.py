"""Whole simulated games as decisions are chosen since session 47: the same seeds spoken by
four kinds of voices, each in three ways of answering a count, then two code trees compared.

Decisions are *chosen* on espeak-ng, Festival and (since session 52) MBROLA mx1/mx2 games
and *reported* on SVOX Pico games
(BENCHMARKS.md, "Method"); a count is answered at once (`ord`), counted aloud (`alo`), or
counted aloud after a hesitation (`hes`); on request (`--styles …,tlk`), half the counts
come after table talk while the dice are shown ("a ver, levanten los cachos"). Each run
is `voice-ref bench --games 2` of the tree given (its code first on PYTHONPATH), so a
candidate in a git worktree runs beside main:

    python tools/games_matrix.py run --tree . --name main --seeds 1,2,3
    python tools/games_matrix.py run --tree ../wt/cand --name cand --seeds 1,2,3
    python tools/games_matrix.py compare build/games/main build/games/cand --seeds 1,2,3

`run` keeps `--jobs` benches going at once (2 on a 2-core machine: an espeak or MBROLA
pair of games takes about 1.5 min, Festival or Pico 3-4 min) and writes, per run, the
bench's JSON summary, its rows (`--rows`) and its stderr under `--out`/NAME, and the load average
before and after each run to `loads.txt` there. `compare` prints, per voice and way of
counting, the games that ended with the table's true state, lines per intended call,
wrong accepts and what became of them, summed over the seeds both sides have, then each
side's total over the voices asked for.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]  # the checkout this tool belongs to

# The bench's `--voices` per kind of voice (espeak-ng: the bench's own DEV voices).
VOICES: dict[str, tuple[str, ...]] = {
    "espeak": (),
    "festival": ("--voices", "festival:es"),
    "pico": ("--voices", "pico:es-ES"),
    # MBROLA's two Mexican diphone voices (session 52): not in the adaptation clips.
    "mbrola": ("--voices", "mbrola:mx1,mbrola:mx2"),
}
# The voices decisions are chosen on (the default); Pico's games are reported only.
CHOOSE_VOICES = ("espeak", "festival", "mbrola")
# How a count is answered (simulated players, `voice-ref bench --count-aloud ...`).
STYLES: dict[str, tuple[str, ...]] = {
    "ord": (),
    "alo": ("--count-aloud", "0.5"),
    "hes": ("--count-aloud", "0.5", "--count-hesitation", "1.0"),
    # Table talk while the count is awaited (session 49); not in the default matrix.
    "tlk": ("--count-talk", "0.5"),
}
DEFAULT_STYLES = ("ord", "alo", "hes")
TABLE = ("--games", "2", "--rules", "chile", "--players", "Ana,Beto,Carla", "--snr", "12",
         "--backend", "whisper")
# Summed over runs; "lines per call" is utterances / intended_actions.
TOTALS = ("games_correct", "games", "intended_actions", "utterances", "wrong_accepts",
          "uncorrected", "confirmations", "repeats")


@dataclass(frozen=True, slots=True)
class Run:
    """One bench run: a kind of voice, a way of counting, a seed."""

    voice: str
    style: str
    seed: int

    @property
    def name(self) -> str:
        return f"{self.voice}_{self.style}_s{self.seed}"

    def arguments(self, model: Path, noise: Path, out: Path) -> list[str]:
        """The `voice-ref bench` arguments of this run, writing into `out`."""
        return ["bench", *TABLE, "--seed", str(self.seed), "--model", str(model),
                "--noise", str(noise), *VOICES[self.voice], *STYLES[self.style],
                "--rows", str(out / f"{self.name}.jsonl"), "--json"]


def matrix(voices: Iterable[str], styles: Iterable[str], seeds: Iterable[int]) -> list[Run]:
    """Every run of the matrix, voice by voice (the slow voices last when listed last)."""
    return [Run(v, st, s) for v in voices for st in styles for s in seeds]


def _load() -> str:
    return f"{os.getloadavg()[0]:.2f}"


def _run_one(run: Run, tree: Path, model: Path, noise: Path, out: Path) -> int:
    before = _load()
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, "-m", "voice_ref", *run.arguments(model, noise, out)]
    with (out / f"{run.name}.json").open("w") as stdout, \
            (out / f"{run.name}.err").open("w") as stderr:
        code = subprocess.call(command, cwd=tree, env=env, stdout=stdout, stderr=stderr)
    with (out / "loads.txt").open("a") as loads:
        loads.write(f"{run.name} exit {code} load {before} {_load()}\n")
    return code


def run_matrix(runs: Sequence[Run], tree: Path, model: Path, noise: Path, out: Path,
               jobs: int) -> int:
    """Run `runs`, `jobs` at a time; the number of runs that failed."""
    out.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        codes = list(pool.map(lambda r: _run_one(r, tree, model, noise, out), runs))
    return sum(code != 0 for code in codes)


def summary(folder: Path, run: Run) -> dict | None:
    """A run's JSON summary, or None when it is missing or empty (not run, or failed)."""
    path = folder / f"{run.name}.json"
    if not path.is_file() or path.stat().st_size == 0:
        return None
    return json.loads(path.read_text())


def totals(summaries: Iterable[dict]) -> dict[str, int]:
    out = dict.fromkeys(TOTALS, 0)
    for s in summaries:
        for key in TOTALS:
            out[key] += int(s.get(key) or 0)
    return out


def describe(t: dict[str, int]) -> str:
    calls = t["intended_actions"]
    per_call = f"{t['utterances'] / calls:.4f}" if calls else "-"
    return (f"{t['games_correct']}/{t['games']} right, lines/call {per_call}, "
            f"wrong {t['wrong_accepts']} (uncorrected {t['uncorrected']}), "
            f"questions {t['confirmations']}, repeats {t['repeats']}")


def compare(a: Path, b: Path, voices: Sequence[str], seeds: Sequence[int]) -> list[str]:
    """The comparison's lines: per voice and style over the seeds both sides have, then
    each side's total."""
    lines = []
    pooled: dict[Path, list[dict]] = {a: [], b: []}
    for voice in voices:
        for style in STYLES:
            pairs = [(summary(a, r), summary(b, r)) for r in matrix([voice], [style], seeds)]
            both = [(x, y) for x, y in pairs if x is not None and y is not None]
            if not both:
                continue
            pooled[a] += [x for x, _ in both]
            pooled[b] += [y for _, y in both]
            lines.append(f"{voice} {style} ({len(both)} seeds): {a.name}: "
                         f"{describe(totals(x for x, _ in both))} | {b.name}: "
                         f"{describe(totals(y for _, y in both))}")
    for side in (a, b):
        lines.append(f"{side.name} total: {describe(totals(pooled[side]))}")
    return lines


def _numbers(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


def _names(text: str, known: dict[str, tuple[str, ...]]) -> list[str]:
    names = [x for x in text.split(",") if x]
    unknown = [x for x in names if x not in known]
    if unknown:
        raise SystemExit(f"unknown: {', '.join(unknown)} (known: {', '.join(known)})")
    return names


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run the matrix for one code tree")
    run.add_argument("--tree", default=".", help="the code tree (a checkout or worktree)")
    run.add_argument("--name", required=True, help="the folder under --out for this tree")
    run.add_argument("--out", default="build/games", help="where run folders go")
    # Defaults from this checkout, not TREE: a worktree under test has no model of its own
    # (and two runs racing to assemble one there failed, session 49).
    run.add_argument("--model", default=str(HERE / "models" / "whisper-base-table"),
                     help="Whisper model (default: this checkout's models/whisper-base-table)")
    run.add_argument("--noise", default=str(HERE / ".." / "shared" / "audio" / "dev"),
                     help="noise folder (default: this checkout's ../shared/audio/dev)")
    run.add_argument("--jobs", type=int, default=2)
    run.add_argument("--styles", default=",".join(DEFAULT_STYLES),
                     help=f"comma-separated: {', '.join(STYLES)} (default: "
                          f"{', '.join(DEFAULT_STYLES)})")
    both = sub.add_parser("compare", help="compare two run folders")
    both.add_argument("a", type=Path)
    both.add_argument("b", type=Path)
    for p in (run, both):
        p.add_argument("--seeds", default="1,2,3")
        p.add_argument("--voices", default=",".join(CHOOSE_VOICES),
                       help=f"comma-separated: {', '.join(VOICES)} (choose on "
                            f"{' + '.join(CHOOSE_VOICES)}; report pico)")
    args = ap.parse_args(argv)
    voices, seeds = _names(args.voices, VOICES), _numbers(args.seeds)
    if args.command == "compare":
        print("\n".join(compare(args.a, args.b, voices, seeds)))
        return 0
    tree = Path(args.tree).resolve()
    model, noise = Path(args.model).resolve(), Path(args.noise).resolve()
    runs = matrix(voices, _names(args.styles, STYLES), seeds)
    failed = run_matrix(runs, tree, model, noise, Path(args.out).resolve() / args.name, args.jobs)
    print(f"{len(runs) - failed} of {len(runs)} runs done; {failed} failed (see their .err)")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
