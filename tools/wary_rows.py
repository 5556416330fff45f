"""What wariness after a correction would have changed in a recorded games run.

    python tools/wary_rows.py build/s7games/base-s1.rows.jsonl [--need 0.7]

Reads the `--rows` file of `voice-ref bench --games` made *without* the rule and lists
every game move accepted right after a correction (an undo the referee carried out, or a
"no" to the loop's "¿Dijiste …?", with no move accepted since): those with a share below
`--need` would have been asked about instead. Only the first such decision after each
correction is a fair counterfactual (the game's path changes from there), so this is an
estimate; the games bench with the rule is the measure.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

NO_MOVE = {"undo", "query", "repeat", "new_game", "none"}


def accepts_after_corrections(rows: list[dict]) -> list[tuple[dict, dict]]:
    """(row, verdict) of every game move accepted while wary."""
    out = []
    wary = pending = False
    for row in rows:
        for h in row["heard"]:
            kind = (h["intent"] or {}).get("type")
            if h["action"] == "confirm":
                pending = True
                continue
            if h["action"] != "accept":
                continue
            if pending and kind in ("yes", "no"):
                pending = False
                wary = kind == "no"  # "sí": the confirmed call is played, the game moved
                continue
            if kind == "undo":
                if any(s.startswith("Deshecho") for s in row["referee_said"]):
                    wary = True
                continue
            if kind in NO_MOVE:
                continue
            if wary:
                out.append((row, h))
            wary = False
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("rows", type=Path, nargs="+")
    ap.add_argument("--need", type=float, default=0.7)
    args = ap.parse_args()
    for path in args.rows:
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        found = accepts_after_corrections(rows)
        wrong = [(r, h) for r, h in found if r["wrong_accept"]]
        asked_wrong = sum(h["score"] < args.need for _, h in wrong)
        asked_right = sum(h["score"] < args.need for r, h in found if not r["wrong_accept"])
        print(f"{path}: {len(rows)} lines, {sum(r['wrong_accept'] for r in rows)} wrong accepts;"
              f" {len(found)} moves accepted right after a correction, {len(wrong)} wrong;"
              f" below {args.need}: {asked_wrong} wrong (asked instead),"
              f" {asked_right} right (one more 'sí')")
        for r, h in found:
            mark = "WRONG" if r["wrong_accept"] else "right"
            print(f"  {mark} said {r['said']!r:24} heard {h['text']!r:24} share {h['score']}"
                  f" free {h['free']!r}")


if __name__ == "__main__":
    main()
