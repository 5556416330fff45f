"""Choose the table-talk thresholds offline: replay recorded bench rows over a grid.

`voice-ref bench --rows FILE` records everything the decision layer saw; this replays
those rows (`bench.replay`) with other `Thresholds` and prints, per rows file, accuracy,
table talk that gave a game action and table talk answered by a question. Only tuning
rows (DEV `--split tuning`, tuning-real) may be used to choose; held-out rows are only
reported with the chosen values (BENCHMARKS.md, "Method").

    python tools/tune_talk.py build/rows/dev-tuning.jsonl=../shared/audio/dev \\
        build/rows/tuning-real.jsonl=build/tuning-real --grid fluent_words=-0.8,-1.2,-1.6

`--pick` prints the combination the selection rule chooses over all sets pooled: the
lowest rate of table talk giving a game action, then the highest accuracy, then the
least aggressive values. List each axis from least to most aggressive (e.g.
`sound_alike=1.01,0.8,0.7`: 1.01 is off); ties go to the earliest values.

`--garbage P1,P2,...` also replays the recognizer's garbage penalty (nats against the free
transcript, `SearchLimits.garbage_penalty`): each utterance's shares are recomputed from
its `scored` phrases (the best 12) and its `free_value` (rows written since session 30),
so compare with the same replay at 18, not with the recorded shares.

The replay starts from the thresholds the live bench used: the config's, then those of
the model's `decision.toml` (`--model`, default the config's Whisper model), so a replay
without `--grid` decides as `voice-ref bench` did. Run it with the `--model` the rows
were recorded with.

`--pick-cost` chooses by the table's cost instead (session 6): a wrong game action
(table talk acted on, or a call taken as another) costs `WRONG_COST` utterances (the
referee's wrong reply, "me equivoqué", the call again), any other clip not decided
right (a question, or nothing understood) one utterance. The plain rule above buys any
cut in table talk at any price in questions; this one weighs them.
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Iterable
from dataclasses import fields, replace
from pathlib import Path

from voice_ref.config import load_config
from voice_ref.language.inventory import PhraseInventory
from voice_ref.language.parser import Parser
from voice_ref.voice.asr.select import with_model_decision
from voice_ref.voice.asr.whisper_backend import pooled_shares
from voice_ref.voice.bench import label_players, load_labels, replay, summarize
from voice_ref.voice.decision import Decider, GameView, Thresholds, thresholds_from

WRONG_COST = 3  # utterances a wrong action costs the table; a question or a repeat costs 1
GARBAGE = "garbage_penalty"


def with_penalty(rows: list[dict], penalty: float) -> list[dict]:
    """The rows as the recognizer would have shared them with another garbage penalty."""
    def reshared(u: dict) -> dict:
        if u.get("free_value") is None:
            return u
        items = [(t, json.dumps(intent, sort_keys=True), v)
                 for t, intent, v in u["scored"] if intent is not None]
        items.append((u["free"], "free:" + u["free"], u["free_value"] - penalty))
        hyps = pooled_shares(items)
        return {**u, "hypotheses": [(h.text, h.score) for h in hyps],
                "phrasings": {h.text: list(h.phrasings) for h in hyps if h.phrasings}}

    return [{**row, "utterances": [reshared(u) for u in row["utterances"]]} for row in rows]


def measure(rows: list[dict], folder: Path, limits: Thresholds) -> dict:
    config = load_config(None)
    players = label_players(load_labels(folder), config.game.players)
    inventory = PhraseInventory(players, config.dialect)
    decider = Decider(Parser(players), limits)

    def for_context(context):  # noqa: ANN001, ANN202
        decider.forget()
        view = GameView.of_context(context)
        return lambda utt: decider(utt, view)

    out = replay(rows, for_context, inventory)
    s = summarize(out, {})
    by_type = s["accuracy_by_type"]
    game = [r for r in out if r["expected"]["type"] != "none"]
    wrong = sum(r["got"] is not None and not r["correct"] for r in game)
    talk = [r for r in out if r["expected"]["type"] == "none"]
    asked_talk = sum(bool(r["confirmed"]) and not r["false_action"] for r in talk)
    false_actions = sum(r["false_action"] for r in out)
    unsettled = sum(not r["correct"] for r in game) - wrong
    return {
        "clips": s["clips"],
        "acc": s["accuracy"],
        "talk->action": s["false_action_rate"],
        "talk->question": s["confirmed_on_none"],
        "right_after_q": s["confirmed_right"],
        "none": sum(r["expected"]["type"] == "none" for r in out),
        "false_actions": sum(r["false_action"] for r in out),
        "right": sum(r["correct"] for r in out),
        "number": by_type.get("number"),
        "bid": by_type.get("bid"),
        "dudo": by_type.get("dudo"),
        "wrong_game_actions": wrong,
        "cost": WRONG_COST * (false_actions + wrong) + asked_talk + unsettled,
        "wrong": [(r["file"], r["text"], r["got"]) for r in out if not r["correct"]],
    }


def base_thresholds(model: str | None) -> Thresholds:
    """The thresholds the live bench decides with for `model`: the config's, then the
    model's `decision.toml`."""
    return thresholds_from(with_model_decision(load_config(None), "whisper", model))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="+", help="ROWS.jsonl=LABEL_FOLDER")
    ap.add_argument("--grid", action="append", default=[], help="field=v1,v2,... (Thresholds)")
    ap.add_argument("--garbage", help="garbage penalties to replay, e.g. 18,14,10 (docstring)")
    ap.add_argument("--show-wrong", action="store_true")
    ap.add_argument("--pick", action="store_true", help="print the rule's choice (docstring)")
    ap.add_argument("--pick-cost", action="store_true", help="choose by the table's cost")
    ap.add_argument("--model", help="the Whisper model folder the rows were recorded with "
                    "(its decision.toml; default: the config's)")
    args = ap.parse_args(argv)
    base = base_thresholds(args.model)
    names = {f.name for f in fields(Thresholds)}
    axes = []
    for item in args.grid:
        key, _, values = item.partition("=")
        if key not in names:
            ap.error(f"{key} is no Thresholds field ({', '.join(sorted(names))})")
        axes.append([(key, float(v)) for v in values.split(",")])
    if args.garbage:
        axes.append([(GARBAGE, float(v)) for v in args.garbage.split(",")])
    data = []
    for spec in args.sets:
        path, _, folder = spec.partition("=")
        with open(path, encoding="utf-8") as f:
            data.append((Path(path).stem, [json.loads(x) for x in f if x.strip()], Path(folder)))
    ranked = []
    for order, combo in enumerate(itertools.product(*axes) if axes else [()]):
        settings = dict(combo)
        penalty = settings.pop(GARBAGE, None)
        limits = replace(base, **settings)
        line: dict = {k: v for k, v in combo}
        for name, rows, folder in data:
            m = measure(rows if penalty is None else with_penalty(rows, penalty), folder, limits)
            wrong = m.pop("wrong")
            line[name] = m
            if args.show_wrong:
                for w in wrong:
                    print("   ", name, w)
        line["pooled"] = pooled(line[name] for name, _, _ in data)
        print(json.dumps(line, ensure_ascii=False))
        ranked.append((line["pooled"]["talk->action"], -line["pooled"]["acc"], order, line))
    if args.pick and ranked:
        print("pick:", json.dumps(min(ranked, key=lambda item: item[:3])[3], ensure_ascii=False))
    if args.pick_cost and ranked:
        best = min(ranked, key=lambda item: (item[3]["pooled"]["cost"], item[2]))
        print("pick-cost:", json.dumps(best[3], ensure_ascii=False))
    return 0


def pooled(parts: Iterable[dict]) -> dict:
    """All sets as one: accuracy over all clips, talk → action over all table-talk clips."""
    parts = list(parts)
    clips = sum(p["clips"] for p in parts)
    none = sum(p["none"] for p in parts)
    return {
        "clips": clips,
        "acc": round(sum(p["right"] for p in parts) / clips, 4) if clips else 0.0,
        "talk->action": round(sum(p["false_actions"] for p in parts) / none, 4) if none else 0.0,
        "cost": sum(p["cost"] for p in parts),
    }


if __name__ == "__main__":
    raise SystemExit(main())
