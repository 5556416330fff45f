"""`voice-ref bench`: speech-to-intent accuracy, false actions, latency, memory on labelled audio.

Every clip goes through the same streaming path as a microphone
(`listen.stream`: 0.1 s blocks into `Recognizer.accept`, then 0.5 s of silence,
as the room goes on after the speaker stops, and `flush`). The referee's context
comes from the clip's category (a count answer is expected after "¿cuántas
hay?", etc.), or with `--talk-in` from the question the table talk is played under;
the players are the names in the labels (a table knows its players).

Latency is simulated without waiting in real time: a block "arrives" when its
last sample would have been recorded, processing starts when both the block has
arrived and the previous block is done, and the decision is ready when `decide`
returns. Latency = when the clip's last decision was ready - end of speech (the
label's `speech_end`, else the end of the file), both on the clip's own clock, so
it includes the VAD's wait for silence. A clip decided before its labelled end
(the VAD closed on a quiet last syllable) counts as 0 ms, never negative.

Splits (`--split`): the DEV voices are split 4/4 by voice once and for all
(`TUNING_VOICES` / `HELDOUT_VOICES`, both dialects and both sexes on each side).
Every threshold is chosen on the tuning voices; the held-out voices and any other
folder (dev-real: a real human voice) are only reported.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from voice_ref.language.expecting import Expecting
from voice_ref.voice.asr.base import Hypothesis, ListenContext, Utterance
from voice_ref.voice.audio_in import read_wav
from voice_ref.voice.decision import Action, Decision
from voice_ref.voice.listen import stream

# Fixed 4/4 split of the DEV set's espeak-ng voices (BENCHMARKS.md, "Method").
TUNING_VOICES = frozenset({"es+m1", "es+f2", "es-419+m3", "es-419+f4"})
HELDOUT_VOICES = frozenset({"es+m3", "es+f4", "es-419+m1", "es-419+f2"})
SPLITS = ("tuning", "heldout", "all")


def split_of(label: dict[str, Any]) -> str:
    """ "tuning" or "heldout". Only the DEV voices listed in `TUNING_VOICES` tune; a clip
    without a voice (noise only) goes by the parity of its file number; any other voice
    (dev-real, unseen sets) is held out, unless its label says `"split": "tuning"`
    (tuning-real: real voices built for tuning, `tools/make_tuning_real.py`)."""
    if label.get("split") in ("tuning", "heldout"):
        return str(label["split"])
    voice = label.get("voice")
    if voice is None and label.get("source") != "real":
        digits = "".join(ch for ch in Path(label["file"]).stem if ch.isdigit())
        return "tuning" if digits and int(digits) % 2 == 0 else "heldout"
    return "tuning" if voice in TUNING_VOICES else "heldout"


def select(
    labels: list[dict[str, Any]],
    split: str = "all",
    every: int = 1,
    categories: frozenset[str] | None = None,
) -> list[dict]:
    """The clips of one split (and of some categories); `every` > 1 keeps every n-th clip
    of each category (a stratified subset for quick iterations)."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    chosen = [
        lb
        for lb in labels
        if (split == "all" or split_of(lb) == split)
        and (categories is None or lb.get("category") in categories)
    ]
    if every > 1:
        seen: dict[str, int] = defaultdict(int)
        kept = []
        for lb in chosen:
            key = lb.get("category", "")
            if seen[key] % every == 0:
                kept.append(lb)
            seen[key] += 1
        chosen = kept
    return chosen


EXPECTING_BY_CATEGORY: dict[str, Expecting] = {
    "answer_number": Expecting.COUNT,
    "answer_yesno": Expecting.YES_NO,
    "answer_choice": Expecting.CHOICE,
}


def expecting_for(category: str) -> Expecting:
    return EXPECTING_BY_CATEGORY.get(category, Expecting.TURN)


def expecting_of(label: dict[str, Any]) -> Expecting:
    """The context a clip is played in: the question it was asked (`talk_asked`), else
    the one its category implies."""
    asked = label.get("asked")
    return Expecting(asked) if asked else expecting_for(label.get("category", ""))


def talk_asked(labels: list[dict[str, Any]], asked: Expecting) -> list[dict[str, Any]]:
    """The table-talk clips (no game action expected) as if said while the referee waits
    for an answer to `asked` ("¿cuántas quinas hay?": the table talks then too, and a count
    taken from talk decides who loses a die). A name said alone answers no question, so
    it is expected to give nothing as well."""
    out = []
    for label in labels:
        if label["intent"].get("type") != "none" or label.get("category") in EXPECTING_BY_CATEGORY:
            continue
        out.append({**label, "intent": {"type": "none"}, "asked": str(asked)})
    return out


def label_players(labels: list[dict[str, Any]], default: list[str]) -> list[str]:
    """The table's players for a bench: every name in the labels (the whole folder's,
    whatever part of it is run), else `default` (the config's)."""
    names = {lb["intent"]["player"] for lb in labels if lb["intent"].get("player")}
    return sorted(names) or list(default)


def load_labels(folder: Path) -> list[dict[str, Any]]:
    path = folder / "labels.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: the folder needs labels.jsonl (see README)")
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


# The packages whose versions move the numbers (the recognizer's arithmetic, the VAD).
MEASURED_PACKAGES = ("ctranslate2", "faster-whisper", "onnxruntime", "numpy", "tokenizers",
                     "vosk", "rapidfuzz")


def package_versions() -> dict[str, str]:
    """Versions behind a measurement: a fresh install gave main's own code dev-real 90.9%
    where the day before it had measured 94.7%, and nobody had written them down."""
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for name in MEASURED_PACKAGES:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "absent"
    return found


def clip_intent(decisions: list[Decision]) -> dict | None:
    """The clip's result: the first game action, else a name alone, else nothing."""
    for want_action in (True, False):
        for d in decisions:
            accepted = d.action == Action.ACCEPT and d.intent is not None
            if accepted and d.is_game_action == want_action:
                return d.intent.to_json()
    return None


def clip_latency_ms(done_s: list[float], speech_end_s: float) -> float | None:
    """From the end of speech to the clip's last decision, on the clip's clock (>= 0)."""
    if not done_s:
        return None
    return max(0.0, (max(done_s) - speech_end_s) * 1000)


def run_clip(recognizer, decider, audio: np.ndarray, speech_end: float | None) -> dict:  # noqa: ANN001
    """Stream one clip; returns its decisions, latency (ms) and processing time."""
    recognizer.reset()
    results, busy = stream(recognizer, audio, decider)
    audio_s = len(audio) / recognizer.sample_rate
    end = speech_end if speech_end is not None else audio_s
    return {
        "decisions": [item.result for item in results],
        "latency_ms": clip_latency_ms([item.done_s for item in results], end),
        "utterances": [r.utterance for r in results],
        "busy_s": busy,
        "audio_s": audio_s,
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
        "confirmed_on_none": round(
            sum(bool(r["confirmed"]) and r["got"] is None for r in none_rows) / len(none_rows), 4
        )
        if none_rows
        else float("nan"),
        "confirmed_right": round(
            sum(not r["correct"] and r["expected"] in r["confirmed"] for r in rows) / len(rows), 4
        )
        if rows
        else float("nan"),
        "latency_ms_mean": round(float(np.mean(lat)), 1) if lat else None,
        "latency_ms_p95": round(float(np.percentile(lat, 95)), 1) if lat else None,
        "rtf": round(busy / audio, 3) if audio else None,
        "rss_peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        **meta,
    }


def _utterance_record(utt: Utterance) -> dict:
    """Everything the decision layer saw, so decisions can be re-run offline (`--rows`)."""
    return {
        "start_s": round(utt.start_s, 3),
        "end_s": round(utt.end_s, 3),
        "free": utt.free_text,
        "fluency": utt.free_fluency,
        "hypotheses": [(h.text, h.score) for h in utt.hypotheses],
        "phrasings": {h.text: list(h.phrasings) for h in utt.hypotheses if h.phrasings},
        "scored": utt.extra.get("scored", []),
        "free_value": utt.extra.get("free_value"),  # Whisper: before the garbage penalty
        "level_dbfs": utt.extra.get("level_dbfs"),  # Whisper: the speech level as recorded
        "compute_ms": utt.extra.get("compute_ms"),
        # Compute that does not depend on the load (Whisper; None for other backends):
        # decoder rows on the audio and on silence (the text prior's, computed because
        # the store lacked them).
        "decoder_rows": utt.extra.get("decoder_rows"),
        "prior_rows": utt.extra.get("prior_rows"),
        # End-pointing: the stream time recognition started (its wait after `end_s` does
        # not depend on load), whether that was at a tentative end, and how many
        # tentative recognitions the speech caused (Whisper; None for other backends).
        "started_at_s": utt.extra.get("started_at_s"),
        "early": utt.extra.get("early"),
        "tentative_runs": utt.extra.get("tentative_runs"),
    }


def clip_row(label: dict[str, Any], expecting: str, out: dict[str, Any]) -> dict[str, Any]:
    """One clip's result (also what `--rows` writes, one JSON object per line)."""
    got = clip_intent(out["decisions"])
    expected = label["intent"]
    return {
        "file": label["file"],
        "text": label.get("text", ""),
        "voice": label.get("voice"),
        "source": label.get("source"),
        "split": split_of(label),
        "expecting": expecting,
        "expected": expected,
        "got": got,
        "confirmed": [d.intent.to_json() for d in out["decisions"] if d.action == Action.CONFIRM],
        "why": [d.why for d in out["decisions"]],
        "correct": _same(got, expected),
        "false_action": expected["type"] == "none"
        and got is not None
        and got.get("type") != "none",
        "heard": [u.best.text if u.best else "" for u in out["utterances"]],
        "free": [u.free_text for u in out["utterances"]],
        "utterances": [_utterance_record(u) for u in out["utterances"]],
        "latency_ms": out["latency_ms"],
        "busy_s": out["busy_s"],
        "audio_s": out["audio_s"],
        "noise": label.get("noise"),
        "snr": label.get("snr"),
        "category": label.get("category"),
        "tags": label.get("tags", []),
    }


def listen_contexts(inventory) -> Callable[[str], ListenContext]:  # noqa: ANN001 - PhraseInventory
    """One listening context per expectation, built once (a bench asks for each many times)."""
    contexts: dict[str, ListenContext] = {}

    def context(expecting: str) -> ListenContext:
        if expecting not in contexts:
            phrases = tuple(inventory.phrases(expecting, canonical=False))
            contexts[expecting] = ListenContext(expecting, phrases)
        return contexts[expecting]

    return context


def replay(rows: list[dict[str, Any]], make_decider, inventory) -> list[dict[str, Any]]:  # noqa: ANN001
    """Decide again from recorded recognizer output (`--rows` files): the decision layer's
    thresholds can be chosen offline without running the recognizer again."""
    context = listen_contexts(inventory)
    out_rows = []
    for row in rows:
        expecting = row["expecting"]
        decide = make_decider(context(expecting))
        utterances = [
            Utterance(
                tuple(
                    Hypothesis(t, s, phrasings=tuple(u.get("phrasings", {}).get(t, ())))
                    for t, s in u["hypotheses"]
                ),
                u["start_s"],
                u["end_s"],
                free_text=u["free"],
                free_fluency=u.get("fluency"),
            )
            for u in row["utterances"]
        ]
        label = {
            "file": row["file"],
            "text": row["text"],
            "voice": row["voice"],
            "source": row.get("source"),
            "intent": row["expected"],
            "noise": row["noise"],
            "snr": row["snr"],
            "category": row["category"],
            "tags": row.get("tags", []),
        }
        out = {
            "decisions": [decide(u) for u in utterances],
            "utterances": utterances,
            "latency_ms": row["latency_ms"],
            "busy_s": row["busy_s"],
            "audio_s": row["audio_s"],
        }
        new = clip_row(label, expecting, out)
        new["split"] = row["split"]
        out_rows.append(new)
    return out_rows


def run(
    labels: list[dict[str, Any]],
    folder: Path,
    recognizer,  # noqa: ANN001 - a Recognizer
    make_decider,  # noqa: ANN001 - expecting -> (Utterance -> Decision)
    inventory,  # noqa: ANN001 - language.inventory.PhraseInventory
    progress=None,  # noqa: ANN001
    prepare: bool = False,
) -> tuple[dict, list[dict]]:
    """Stream every clip of `labels` with the context its category implies. `prepare`:
    first let the recognizer prepare every context the clips use, as `voice-ref play`
    does before a game (its time is `prepare_s` in the summary, not in any latency)."""
    context = listen_contexts(inventory)
    prepare_s = 0.0
    if prepare:
        t0 = time.perf_counter()
        needed = dict.fromkeys(expecting_of(lb) for lb in labels)
        recognizer.prepare([context(e) for e in needed])
        prepare_s = time.perf_counter() - t0
    rows = []
    for i, label in enumerate(labels):
        expecting = expecting_of(label)
        recognizer.set_context(context(expecting))
        audio = read_wav(folder / label["file"], recognizer.sample_rate)
        out = run_clip(recognizer, make_decider(context(expecting)), audio, label.get("speech_end"))
        row = clip_row(label, expecting, out)
        rows.append(row)
        if progress:
            progress(i, row)
    # Decoder rows of preparing (Whisper): its cost whatever the load.
    meta = {"prepare_s": round(prepare_s, 1),
            "prepare_rows": getattr(recognizer, "prepare_rows", None)}
    return summarize(rows, meta), rows


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
    table.add_row("table talk answered by a question", pct(summary["confirmed_on_none"]))
    table.add_row("clips right only after a question", pct(summary["confirmed_right"]))
    for name, part in summary.get("splits", {}).items():
        table.add_row(
            f"split {name}: clips / accuracy / false actions",
            f"{part['clips']} / {pct(part['accuracy'])} / {pct(part['false_action_rate'])}",
        )
    table.add_row(
        "latency mean / p95 (ms)", f"{summary['latency_ms_mean']} / {summary['latency_ms_p95']}"
    )
    table.add_row("real-time factor", str(summary["rtf"]))
    table.add_row("peak RSS (MB)", str(summary["rss_peak_mb"]))
    table.add_row("model load (s)", str(summary["load_s"]))
    Console().print(table)


def main(args: argparse.Namespace) -> int:
    from voice_ref.config import load_config
    from voice_ref.language.inventory import PhraseInventory
    from voice_ref.rules.variants import ConfigError, make_rules
    from voice_ref.voice.asr.select import (
        RecognizerUnavailable,
        model_and_recognizer,
    )
    from voice_ref.voice.decision import bench_decider

    folder = Path(args.audio)
    categories = getattr(args, "categories", None)
    try:
        every_label = load_labels(folder)
        labels = select(
            every_label,
            getattr(args, "split", "all"),
            getattr(args, "every", 1) or 1,
            frozenset(categories.split(",")) if categories else None,
        )
    except (FileNotFoundError, json.JSONDecodeError, OSError, ValueError) as exc:
        print(f"voice-ref bench: {exc}", file=sys.stderr)
        return 2
    talk_in = getattr(args, "talk_in", None)
    if talk_in:
        labels = talk_asked(labels, Expecting(talk_in))
    labels = labels[: args.limit] if args.limit else labels
    config = load_config(getattr(args, "config", None))
    try:
        rules = make_rules(getattr(args, "rules", None) or config.preset)
    except ConfigError as exc:
        print(f"voice-ref bench: {exc}", file=sys.stderr)
        return 2
    players = label_players(every_label, config.game.players)
    t0 = time.perf_counter()
    try:
        config, recognizer = model_and_recognizer(config, args.backend, args.model, players)
    except RecognizerUnavailable as exc:
        print(f"voice-ref bench: {exc}", file=sys.stderr)
        return 2
    load_s = round(time.perf_counter() - t0, 2)
    inventory = PhraseInventory(
        players, config.dialect, clean_bids=rules.clean_bids, faces=config.dialect_faces
    )
    rows_file = open(args.rows, "w", encoding="utf-8") if getattr(args, "rows", None) else None  # noqa: SIM115

    def progress(i: int, row: dict) -> None:
        if rows_file is not None:
            print(json.dumps(row, ensure_ascii=False), file=rows_file, flush=True)
        if getattr(args, "verbose", False) or not args.json:
            mark = "ok " if row["correct"] else "BAD"
            got = json.dumps(row["got"], ensure_ascii=False)
            print(
                f"{i + 1:4d} {mark} {row['text'][:30]:30s} -> {got} "
                f"heard={row['heard']} free={row['free']}",
                file=sys.stderr,
            )

    try:
        summary, rows = run(
            labels, folder, recognizer, bench_decider(config, players), inventory, progress,
            prepare=not getattr(args, "cold", False),
        )
    finally:
        if rows_file is not None:
            rows_file.close()
    summary.update(
        backend=recognizer.name,
        model=str(recognizer.model),
        decision=dict(config.asr.decision),  # the model's own thresholds (decision.toml)
        versions=package_versions(),
        load_s=load_s,
        rules=rules.name,
        split=getattr(args, "split", "all"),
        talk_in=talk_in,  # None: every clip in the context its category implies
        splits={
            k: summarize(sel, {})
            for k in ("tuning", "heldout")
            if (sel := [r for r in rows if r["split"] == k])
        },
    )
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        _print_table(summary)
    return 0
