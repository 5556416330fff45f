"""The bench's summary: one object that says how a spoken game felt at the table."""

from __future__ import annotations

import resource
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from voice_ref.simulation.players import TableStats


@dataclass(frozen=True, slots=True)
class GameScore:
    """The numbers of one game that the summary adds up."""

    correct: bool
    intended_actions: int
    uncorrected: int
    stats: TableStats
    busy_s: float
    audio_s: float


def summarize(games: Sequence[GameScore], *, backend: str, model: str) -> dict[str, object]:
    """The issue's keys (plus a few that explain them); ratios are None when undefined."""
    actions = sum(g.intended_actions for g in games)
    utterances = sum(g.stats.utterances for g in games)
    latencies = [ms for g in games for ms in g.stats.latencies_ms]
    busy = sum(g.busy_s for g in games)
    audio = sum(g.audio_s for g in games)
    return {
        "games": len(games),
        "games_correct": sum(g.correct for g in games),
        "intended_actions": actions,
        "utterances": utterances,
        "utterances_per_action": round(utterances / actions, 3) if actions else None,
        "wrong_accepts": sum(g.stats.wrong_accepts for g in games),
        "uncorrected": sum(g.uncorrected for g in games),
        "confirmations": sum(g.stats.confirmations for g in games),
        "latency_ms_mean": round(float(np.mean(latencies)), 1) if latencies else None,
        "latency_ms_p95": round(float(np.percentile(latencies, 95)), 1) if latencies else None,
        "rtf": round(busy / audio, 3) if audio else None,
        "rss_peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "backend": backend,
        "model": model,
        "repeats": sum(g.stats.repeats for g in games),
        "corrections": sum(g.stats.corrections for g in games),
        "extra_utterances": sum(g.stats.extra_utterances for g in games),
        "illegal_raises_refused": sum(g.stats.refused_extras for g in games),
        "legal_calls_refused": sum(g.stats.refused_calls for g in games),
        "interruptions": sum(g.stats.interruptions for g in games),
        "table_minutes": round(audio / 60, 1),
    }
