"""tools/endpoint_wait.py's latency simulation on a real DEV clip (Silero VAD, no Whisper):
a recognition costs a fixed time on a simulated clock, so the numbers are deterministic."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tool_loader import load_tool

from voice_ref.voice.audio_in import read_wav
from voice_ref.voice.listen import stream

REPO = Path(__file__).parents[1]
DEV = REPO.parent / "shared/audio/dev"
COST_S = 0.5


def _tool():  # noqa: ANN202 - the tools folder is no package
    return load_tool("endpoint_wait")


@pytest.fixture(scope="module")
def clip() -> tuple[np.ndarray, dict]:
    pytest.importorskip("faster_whisper")
    if not (DEV / "labels.jsonl").exists():
        pytest.skip(f"dev audio set not found at {DEV}")
    labels = [json.loads(line) for line in (DEV / "labels.jsonl").read_text().splitlines()]
    label = next(lb for lb in labels if lb["category"] == "bid" and lb["noise"] is None)
    return read_wav(DEV / label["file"]), label


def _answer(tool, tail_s: float | None, audio: np.ndarray):  # noqa: ANN001, ANN202
    clock = tool.Clock()
    rec = tool.VadOnly(tail_s, clock)
    rec.reset()
    rec.cost_s = COST_S
    with tool.simulated(clock):
        (item,) = stream(rec, audio, lambda u: u)[0]
    return item, clock.now


def test_the_simulated_answer_comes_a_recognition_after_it_starts(clip) -> None:  # noqa: ANN001
    tool = _tool()
    audio, label = clip
    final, spent = _answer(tool, None, audio)
    early, spent_early = _answer(tool, 0.032, audio)
    for item in (final, early):
        started = item.utterance.extra["started_at_s"]
        # Recognition starts at the end of the 0.1 s block that ended the utterance
        # (the VAD has classified that block's whole 32 ms chunks), the answer COST_S later.
        assert 0 <= item.done_s - COST_S - started < 0.1
        assert abs(item.utterance.end_s - label["speech_end"]) < 0.2
    assert spent == spent_early == COST_S  # one recognition each, nothing wasted
    # One chunk of silence instead of 0.2 s: the answer is a block or more sooner.
    assert early.utterance.extra["early"] and not final.utterance.extra["early"]
    assert final.done_s - early.done_s >= 0.1 - 1e-9
    import time

    assert _tool().listen.time is time  # the real clock is back after the simulation


def test_clip_costs_are_the_last_utterances_compute(tmp_path) -> None:  # noqa: ANN001
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        json.dumps({"file": "a.wav", "utterances": [{"compute_ms": 100.0}, {"compute_ms": 450.0}]})
        + "\n"
        + json.dumps({"file": "b.wav", "utterances": []})
        + "\n"
    )
    assert _tool().clip_costs(rows) == {"a.wav": 0.45}
