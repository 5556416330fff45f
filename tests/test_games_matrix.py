"""tools/games_matrix.py: the games matrix's runs, and the comparison of two trees' runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tool_loader import load_tool

games = load_tool("games_matrix")


@pytest.mark.parametrize(
    ("voice", "style", "expected"),
    [
        ("espeak", "ord", []),  # the bench's own DEV voices, a count said once
        ("festival", "alo", ["--voices", "festival:es", "--count-aloud", "0.5"]),
        ("pico", "hes", ["--voices", "pico:es-ES", "--count-aloud", "0.5",
                         "--count-hesitation", "1.0"]),
        ("espeak", "tlk", ["--count-talk", "0.5"]),  # talk before the count, on request
        ("mbrola", "ord", ["--voices", "mbrola:mx1,mbrola:mx2"]),  # voices nothing heard
    ],
)
def test_each_run_is_one_bench_of_its_voice_and_counting(voice, style, expected) -> None:
    args = games.Run(voice, style, 4).arguments(Path("m"), Path("n"), Path("out"))
    assert args[:3] == ["bench", "--games", "2"]
    assert args[args.index("--seed") + 1] == "4"
    assert args[args.index("--rows") + 1] == str(Path("out") / f"{voice}_{style}_s4.jsonl")
    between = args[args.index("n") + 1:args.index("--rows")]
    assert between == expected


def _write(folder: Path, name: str, **values: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    summary = {"games": 2, "games_correct": 2, "intended_actions": 100, "utterances": 102,
               "wrong_accepts": 0, "uncorrected": 0, "confirmations": 1, "repeats": 1}
    (folder / f"{name}.json").write_text(json.dumps({**summary, **values}))


def test_compare_sums_the_seeds_both_sides_have(tmp_path) -> None:
    a, b = tmp_path / "main", tmp_path / "cand"
    _write(a, "espeak_ord_s1")
    _write(a, "espeak_ord_s2", wrong_accepts=2, utterances=110)
    _write(b, "espeak_ord_s1", games_correct=1, utterances=104)
    _write(b, "espeak_ord_s2")
    _write(a, "festival_ord_s1")  # the candidate has no Festival run yet: left out
    (b / "festival_ord_s1.json").write_text("")  # a run that failed writes nothing
    lines = games.compare(a, b, ["espeak", "festival"], [1, 2])
    assert lines == [
        "espeak ord (2 seeds): main: 4/4 right, lines/call 1.0600, wrong 2 (uncorrected 0), "
        "questions 2, repeats 2 | cand: 3/4 right, lines/call 1.0300, wrong 0 "
        "(uncorrected 0), questions 2, repeats 2",
        "main total: 4/4 right, lines/call 1.0600, wrong 2 (uncorrected 0), questions 2, "
        "repeats 2",
        "cand total: 3/4 right, lines/call 1.0300, wrong 0 (uncorrected 0), questions 2, "
        "repeats 2",
    ]


def test_run_writes_each_runs_summary_and_the_loads(tmp_path) -> None:
    """A stand-in tree whose `python -m voice_ref` echoes its arguments: each run gets its
    JSON, its stderr and a line in loads.txt; a run that fails is counted."""
    tree = tmp_path / "tree"
    (tree / "voice_ref").mkdir(parents=True)
    (tree / "voice_ref" / "__init__.py").write_text("")
    (tree / "voice_ref" / "__main__.py").write_text(
        "import json, sys\n"
        "seed = sys.argv[sys.argv.index('--seed') + 1]\n"
        "print(json.dumps({'seed': seed, 'argv': sys.argv[1:]}))\n"
        "sys.exit(3 if seed == '2' else 0)\n")
    out = tmp_path / "runs"
    runs = games.matrix(["espeak"], ["ord", "alo"], [1, 2])
    failed = games.run_matrix(runs, tree, Path("model"), Path("noise"), out, jobs=2)
    assert failed == 2  # seed 2 in both styles
    for run in runs:
        echoed = json.loads((out / f"{run.name}.json").read_text())
        assert echoed["seed"] == str(run.seed)
        assert (out / f"{run.name}.err").exists()
    loads = (out / "loads.txt").read_text().splitlines()
    assert sorted(line.split()[0] for line in loads) == sorted(r.name for r in runs)
    assert sum(" exit 3 " in line for line in loads) == 2
