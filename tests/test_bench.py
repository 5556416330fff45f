"""`voice-ref bench`: scoring rules on synthetic rows, and the real command on a tiny folder."""

from __future__ import annotations

import json
import shutil
from argparse import Namespace
from pathlib import Path

import pytest

from voice_ref.voice.bench import _same, expecting_for, main, summarize

REPO = Path(__file__).parents[1]
DEV = REPO.parent / "shared/audio/dev"
MODEL = REPO / "models/whisper-base"

BID = {"type": "bid", "quantity": 5, "face": 5, "clean": False}


@pytest.mark.parametrize(
    ("got", "expected", "correct"),
    [
        (BID, BID, True),
        ({**BID, "face": 4}, BID, False),
        (None, {"type": "none"}, True),
        ({"type": "dudo"}, {"type": "none"}, False),
        ({"type": "none", "player": "Ana"}, {"type": "none", "player": "Ana"}, True),
        (None, {"type": "none", "player": "Ana"}, False),
        ({"type": "none", "player": "Beto"}, {"type": "none", "player": "Ana"}, False),
        ({"type": "dudo"}, {"type": "dudo", "player": "Ana"}, False),
    ],
)
def test_exact_protocol_equality(got, expected, correct) -> None:  # noqa: ANN001
    assert _same(got, expected) is correct


@pytest.mark.parametrize(
    ("category", "expecting"),
    [("answer_number", "count"), ("answer_yesno", "yes_no"), ("answer_choice", "choice"),
     ("bid", "turn"), ("chatter", "turn"), ("name", "turn"), ("", "turn")],
)
def test_context_from_category(category: str, expecting: str) -> None:
    assert expecting_for(category) == expecting


def _row(expected: dict, got: dict | None, noise: str | None, snr: int | None,
         latency: float) -> dict:
    return {"expected": expected, "got": got, "correct": _same(got, expected),
            "false_action": expected["type"] == "none" and got is not None
            and got["type"] != "none", "noise": noise, "snr": snr, "latency_ms": latency,
            "busy_s": 0.5, "audio_s": 2.0}


def test_summary_groups_and_rates() -> None:
    rows = [
        _row(BID, BID, None, None, 100),
        _row(BID, None, "pink_noise", 6, 300),
        _row({"type": "none"}, {"type": "paso"}, "pink_noise", 6, 200),
        _row({"type": "none"}, None, "running_tap", 12, 400),
    ]
    s = summarize(rows, {})
    assert s["clips"] == 4
    assert s["accuracy"] == 0.5
    assert s["accuracy_by_snr"] == {"12": 1.0, "6": 0.0, "clean": 1.0}
    noise_only = summarize([_row({"type": "none"}, None, "pink_noise", None, 1)], {})
    assert noise_only["accuracy_by_snr"] == {"noise only": 1.0}
    assert s["accuracy_by_noise"]["pink_noise"] == 0.0
    assert s["accuracy_by_type"] == {"bid": 0.5, "none": 0.5}
    assert s["false_action_rate"] == 0.5
    assert s["latency_ms_mean"] == 250.0
    assert s["rtf"] == 0.25


def test_missing_labels_is_explained(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    args = Namespace(audio=str(tmp_path), backend="whisper", model=None, json=True, limit=None)
    assert main(args) == 2
    assert "labels.jsonl" in capsys.readouterr().err


@pytest.mark.whisper_model
@pytest.mark.slow
def test_bench_json_on_a_tiny_folder(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    if not (MODEL / "model.bin").exists():
        pytest.skip("models/whisper-base missing: run `voice-ref models install whisper-base`")
    if not (DEV / "labels.jsonl").exists():
        pytest.skip(f"dev audio set not found at {DEV}")
    labels = [json.loads(line) for line in (DEV / "labels.jsonl").read_text().splitlines()]
    picked = [next(lb for lb in labels if lb["category"] == c)
              for c in ("bid", "command", "chatter")]
    (tmp_path / "wav").mkdir()
    for lb in picked:
        shutil.copy(DEV / lb["file"], tmp_path / lb["file"])
    (tmp_path / "labels.jsonl").write_text("".join(json.dumps(lb) + "\n" for lb in picked))
    args = Namespace(audio=str(tmp_path), backend="whisper", model=None, json=True, limit=None)
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("clips", "accuracy", "accuracy_by_noise", "accuracy_by_snr", "accuracy_by_type",
                "false_action_rate", "latency_ms_mean", "latency_ms_p95", "rtf",
                "rss_peak_mb", "load_s", "backend", "model"):
        assert key in out, key
    assert out["clips"] == 3 and out["backend"] == "whisper"
    assert 0.0 <= out["accuracy"] <= 1.0 and out["latency_ms_p95"] > 0 and out["rss_peak_mb"] > 0
