"""What wariness after a correction, and the memory of misheard bids, would have changed
in a recorded games run.

    python tools/wary_rows.py build/s7games/base-s1.rows.jsonl [--need 0.7]

Reads the `--rows` file of `voice-ref bench --games` made *without* the rule and lists
every game move accepted right after a correction (an undo the referee carried out, or a
"no" to the loop's "¿Dijiste …?", with no move accepted since): those with a share below
`--need` would have been asked about instead. Only the first such decision after each
correction is a fair counterfactual (the game's path changes from there), so this is an
estimate; the games bench with the rule is the measure. Likewise every bid accepted that
the table had taken back (undone) earlier in the same game: it would have been asked.
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


def _bare(intent: dict) -> tuple:
    return tuple(sorted((k, v) for k, v in intent.items() if k != "player"))


def accepts_of_misheard_bids(rows: list[dict]) -> list[tuple[dict, dict]]:
    """(row, verdict) of every bid accepted that was undone earlier in the same game (a
    new game starts where the table's clock starts again)."""
    out: list[tuple[dict, dict]] = []
    misheard: set[tuple] = set()
    last_bid: tuple | None = None
    at = -1.0
    for row in rows:
        if row["at_s"] < at:
            misheard.clear()
        at = row["at_s"]
        for h in row["heard"]:
            intent = h["intent"] or {}
            if h["action"] != "accept":
                continue
            if intent.get("type") == "undo" and last_bid is not None and any(
                s.startswith("Deshecho") for s in row["referee_said"]
            ):
                misheard.add(last_bid)
            elif intent.get("type") == "bid":
                if _bare(intent) in misheard:
                    out.append((row, h))
                last_bid = _bare(intent)
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
        again = accepts_of_misheard_bids(rows)
        print(f"  bids accepted that were undone earlier in the game: {len(again)},"
              f" {sum(r['wrong_accept'] for r, _ in again)} wrong")
        for r, h in again:
            mark = "WRONG" if r["wrong_accept"] else "right"
            print(f"  {mark} said {r['said']!r:24} heard {h['text']!r:24} share {h['score']}")


if __name__ == "__main__":
    main()
