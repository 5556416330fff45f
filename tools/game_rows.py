"""Where a games run's extra lines went: questions and ignores by reason, wrong accepts by
what was confused, legal calls refused.

    python tools/game_rows.py res/seed1.rows res/seed2.rows ...

Reads the `--rows` files of `voice-ref bench --games`, where what each line meant is
known (a `play --heard` file has no such truth: read it as it is). A question is "right"
when it asked about the call the player said (a count is asked back as a bid of its
quantity). Reasons are the decision's `why` with quoted words and numbers folded ("free
transcript '…' is no game phrase"), so the same cause counts once.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from voice_ref.language.intents import intent_from_json
from voice_ref.simulation.players import same_meaning


def reason(why: str) -> str:
    """A decision's reason with its particulars folded: the cause, not the clip."""
    folded = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", why or "")
    return re.sub(r"\d+(?:\.\d+)?", "N", folded) or "(none)"


def means(heard: dict | None, meant: dict | None) -> bool:
    """Whether a reading is the call that was said: the simulated players' own test
    (`same_meaning`: a name before a call does not matter, a count is asked back as a bid)."""
    return same_meaning(*(None if i is None else intent_from_json(i) for i in (heard, meant)))


def confusion(heard: dict, meant: dict) -> str:
    """What a wrong accept mistook: the face of a bid, its quantity, or another intent."""
    if heard.get("type") == meant.get("type") == "bid":
        if heard["face"] != meant["face"]:
            return f"bid face {meant['face']} -> {heard['face']}"
        return "bid quantity"
    if heard.get("type") == meant.get("type") == "number":
        return "count"
    return f"{meant.get('type')} -> {heard.get('type')}"


def tally(rows: Iterable[dict]) -> dict[str, Counter]:
    """Counters of the lines meant as game actions: `questions` by (reason, right),
    `ignored` by reason, `wrong` by confusion, and `lines` (actions, refused calls)."""
    out = {"questions": Counter(), "ignored": Counter(), "wrong": Counter(), "lines": Counter()}
    for row in rows:
        if row.get("kind") != "action":
            continue
        out["lines"]["actions"] += 1
        out["lines"]["refused calls"] += bool(row.get("refused_call"))
        meant = row.get("meant")
        for verdict in row.get("heard", []):
            why = reason(verdict.get("why", ""))
            if verdict["action"] == "confirm":
                right = means(verdict.get("intent"), meant)
                out["questions"][(why, "right" if right else "wrong")] += 1
            elif verdict["action"] == "ignore":
                out["ignored"][why] += 1
        if row.get("wrong_accept") and meant is not None:
            accepted = [v for v in row.get("heard", []) if v["action"] == "accept"]
            if accepted and accepted[-1].get("intent") is not None:
                out["wrong"][confusion(accepted[-1]["intent"], meant)] += 1
    return out


def read_rows(paths: Iterable[Path]) -> list[dict]:
    rows = []
    for path in paths:
        with path.open(encoding="utf-8") as f:
            rows += [json.loads(line) for line in f if line.strip()]
    return rows


def report(counts: dict[str, Counter]) -> str:
    lines = [f"action lines {counts['lines']['actions']}, "
             f"legal calls refused {counts['lines']['refused calls']}", "", "questions:"]
    reasons = sorted({r for r, _ in counts["questions"]},
                     key=lambda r: -sum(counts["questions"][(r, k)] for k in ("right", "wrong")))
    for r in reasons:
        right, wrong = counts["questions"][(r, "right")], counts["questions"][(r, "wrong")]
        lines.append(f"  {right:5d} right {wrong:5d} wrong  {r}")
    lines += ["", "ignored:"] + [f"  {n:5d}  {r}" for r, n in counts["ignored"].most_common()]
    lines += ["", "wrong accepts:"] + [f"  {n:5d}  {c}" for c, n in counts["wrong"].most_common()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", nargs="+", type=Path, help="--rows files of bench --games")
    args = parser.parse_args(argv)
    missing = [str(p) for p in args.rows if not p.is_file()]
    if missing:
        parser.error(f"no such rows file: {', '.join(missing)}")
    print(report(tally(read_rows(args.rows))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
