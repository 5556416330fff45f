"""`voice-ref bench`: speech-to-intent accuracy, false actions, latency, memory on labelled audio.

Every clip goes through the same streaming path as a microphone
(`listen.stream`: 0.1 s blocks into `Recognizer.accept`, then 0.5 s of silence,
as the room goes on after the speaker stops, and `flush`). The referee's context
comes from the clip's category (a count answer is expected after "¿cuántas
hay?", etc.); the players are the names in the labels (a table knows its players).

Latency is simulated without waiting in real time: a block "arrives" when its
last sample would have been recorded, processing starts when both the block has
arrived and the previous block is done, and the decision is ready when `decide`
returns. Latency = decision time - end of speech (the label's `speech_end`), so
it includes the VAD's wait for silence.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from voice_ref.language.expecting import Expecting
from voice_ref.voice.asr.base import ListenContext, Utterance
from voice_ref.voice.audio_in import read_wav
from voice_ref.voice.decision import Decision, decide
from voice_ref.voice.listen import stream

EXPECTING_BY_CATEGORY: dict[str, Expecting] = {
    "answer_number": Expecting.COUNT,
    "answer_yesno": Expecting.YES_NO,
    "answer_choice": Expecting.CHOICE,
}


def expecting_for(category: str) -> Expecting:
    return EXPECTING_BY_CATEGORY.get(category, Expecting.TURN)


def load_labels(folder: Path) -> list[dict[str, Any]]:
    path = folder / "labels.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: the folder needs labels.jsonl (see README)")
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def clip_intent(decisions: list[tuple[Decision, float]]) -> tuple[dict | None, float | None]:
    """The clip's result: the first game action, else a name alone, else nothing."""
    for want_action in (True, False):
        for d, latency in decisions:
            if d.action == "accept" and d.intent is not None and d.is_game_action == want_action:
                return d.intent.to_json(), latency
    return None, (decisions[-1][1] if decisions else None)


def run_clip(recognizer, parser, audio: np.ndarray, speech_end: float | None, settings) -> dict:  # noqa: ANN001
    """Stream one clip; returns the decisions with latencies (ms) and the processing time."""
    recognizer.reset()

    def handle(utt: Utterance) -> Decision:
        return decide(
            utt, parser, accept_score=settings.accept_score, confirm_margin=settings.confirm_margin
        )

    results, busy = stream(recognizer, audio, handle)
    decisions = []
    for item in results:
        end = speech_end if speech_end is not None else item.utterance.end_s
        decisions.append((item.result, (item.done_s - end) * 1000))
    return {
        "decisions": decisions,
        "utterances": [r.utterance for r in results],
        "busy_s": busy,
        "audio_s": len(audio) / recognizer.sample_rate,
    }


def _same(a: dict | None, b: dict) -> bool:
    if b.get("type") == "none":  # any game action is wrong; a name alone must match
        return a is None and "player" not in b or a == b
    return a == b


def summarize(rows: list[dict], meta: dict) -> dict:
    def acc(sel: list[dict]) -> float:
        return round(sum(r["correct"] for r in sel) / len(sel), 4) if sel else float("nan")

    groups: dict[str, dict[str, list]] = {
        "noise": defaultdict(list),
        "snr": defaultdict(list),
        "type": defaultdict(list),
    }
    for r in rows:
        groups["noise"][r["noise"] or "clean"].append(r)
        snr = "clean" if r["noise"] is None else "noise only" if r["snr"] is None else r["snr"]
        groups["snr"][str(snr)].append(r)
        groups["type"][r["expected"]["type"]].append(r)
    none_rows = [r for r in rows if r["expected"]["type"] == "none"]
    lat = [r["latency_ms"] for r in rows if r["latency_ms"] is not None]
    busy = sum(r["busy_s"] for r in rows)
    audio = sum(r["audio_s"] for r in rows)
    return {
        "clips": len(rows),
        "accuracy": acc(rows),
        "accuracy_by_noise": {k: acc(v) for k, v in sorted(groups["noise"].items())},
        "accuracy_by_snr": {k: acc(v) for k, v in sorted(groups["snr"].items())},
        "accuracy_by_type": {k: acc(v) for k, v in sorted(groups["type"].items())},
        "false_action_rate": round(sum(r["false_action"] for r in none_rows) / len(none_rows), 4)
        if none_rows
        else float("nan"),
        "latency_ms_mean": round(float(np.mean(lat)), 1) if lat else None,
        "latency_ms_p95": round(float(np.percentile(lat, 95)), 1) if lat else None,
        "rtf": round(busy / audio, 3) if audio else None,
        "rss_peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        **meta,
    }


def run(
    folder: Path,
    recognizer,
    settings,
    players: list[str],
    dialect: str,  # noqa: ANN001
    limit: int | None = None,
    progress=None,
) -> tuple[dict, list[dict]]:  # noqa: ANN001
    from voice_ref.language.inventory import PhraseInventory
    from voice_ref.language.parser import Parser

    labels = load_labels(folder)[:limit] if limit else load_labels(folder)
    parser = Parser(players)
    inventory = PhraseInventory(players, dialect)
    contexts: dict[str, ListenContext] = {}
    rows = []
    for i, label in enumerate(labels):
        expecting = expecting_for(label.get("category", ""))
        if expecting not in contexts:
            phrases = tuple(
                (p.text, p.intent.to_json()) for p in inventory.phrases(expecting, canonical=False)
            )
            contexts[expecting] = ListenContext(expecting, phrases)
        recognizer.set_context(contexts[expecting])
        audio = read_wav(folder / label["file"], recognizer.sample_rate)
        out = run_clip(recognizer, parser, audio, label.get("speech_end"), settings)
        got, latency = clip_intent(out["decisions"])
        expected = label["intent"]
        row = {
            "file": label["file"],
            "text": label.get("text", ""),
            "expected": expected,
            "got": got,
            "correct": _same(got, expected),
            "false_action": expected["type"] == "none"
            and got is not None
            and got.get("type") != "none",
            "heard": [u.best.text if u.best else "" for u in out["utterances"]],
            "free": [u.free_text for u in out["utterances"]],
            "hypotheses": [
                [(h.text, h.score) for h in u.hypotheses[:5]] for u in out["utterances"]
            ],
            "latency_ms": latency,
            "busy_s": out["busy_s"],
            "audio_s": out["audio_s"],
            "noise": label.get("noise"),
            "snr": label.get("snr"),
            "category": label.get("category"),
        }
        rows.append(row)
        if progress:
            progress(i, row)
    return summarize(rows, {}), rows


def _print_table(summary: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"voice-ref bench: {summary['backend']} ({summary['model']})")
    table.add_column("measure")
    table.add_column("value", justify="right")
    pct = "{:.1%}".format
    table.add_row("clips", str(summary["clips"]))
    table.add_row("accuracy", pct(summary["accuracy"]))
    for group in ("noise", "snr", "type"):
        for k, v in summary[f"accuracy_by_{group}"].items():
            table.add_row(f"  {group} = {k}", pct(v))
    table.add_row("false actions on table talk", pct(summary["false_action_rate"]))
    table.add_row(
        "latency mean / p95 (ms)", f"{summary['latency_ms_mean']} / {summary['latency_ms_p95']}"
    )
    table.add_row("real-time factor", str(summary["rtf"]))
    table.add_row("peak RSS (MB)", str(summary["rss_peak_mb"]))
    table.add_row("model load (s)", str(summary["load_s"]))
    Console().print(table)


def main(args: argparse.Namespace) -> int:
    from voice_ref.config import load_config
    from voice_ref.voice.asr.select import RecognizerUnavailable, make_recognizer

    folder = Path(args.audio)
    try:
        labels = load_labels(folder)
    except (FileNotFoundError, json.JSONDecodeError, OSError) as exc:
        print(f"voice-ref bench: {exc}", file=sys.stderr)
        return 2
    config = load_config(getattr(args, "config", None))
    players = sorted({lb["intent"]["player"] for lb in labels if lb["intent"].get("player")})
    players = players or list(config.game.players)
    t0 = time.perf_counter()
    try:
        recognizer = make_recognizer(
            config, backend=args.backend, model=args.model, players=players
        )
    except RecognizerUnavailable as exc:
        print(f"voice-ref bench: {exc}", file=sys.stderr)
        return 2
    load_s = round(time.perf_counter() - t0, 2)
    rows_out = []

    def progress(i: int, row: dict) -> None:
        rows_out.append(row)
        if getattr(args, "verbose", False) or not args.json:
            mark = "ok " if row["correct"] else "BAD"
            got = json.dumps(row["got"], ensure_ascii=False)
            print(
                f"{i + 1:4d} {mark} {row['text'][:30]:30s} -> {got} "
                f"heard={row['heard']} free={row['free']}",
                file=sys.stderr,
            )

    summary, rows = run(
        folder, recognizer, config.asr, players, config.dialect, limit=args.limit, progress=progress
    )
    summary.update(backend=recognizer.name, model=str(recognizer.model), load_s=load_s)
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        _print_table(summary)
    return 0
