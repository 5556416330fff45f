"""tools/tune_talk.py: rows replayed with another garbage penalty share the utterance
between the game phrases and the free transcript as the recognizer would have."""

from __future__ import annotations

import pytest
from tool_loader import load_tool

tune_talk = load_tool("tune_talk")

BID = {"type": "bid", "quantity": 1, "face": 2, "clean": False}


def _row(free_value: float | None) -> dict:
    utterance = {
        "free": "Punto.",
        "free_value": free_value,
        "hypotheses": [["un tonto", 0.99]],
        "scored": [["un tonto", BID, 2.5], ["1 tonto", BID, 1.5], ["paso", {"type": "paso"}, -3.0],
                   ["Punto.", None, -8.0]],
    }
    return {"file": "a.wav", "utterances": [utterance]}


@pytest.mark.parametrize(
    ("penalty", "best", "best_share"),
    [
        (18.0, "un tonto", 0.99),  # 10 - 18 = -8: the phrases keep the mass
        (6.0, "Punto.", 0.75),  # 10 - 6 = 4 > 2.5: the transcript takes most
    ],
)
def test_the_free_transcript_is_weighed_with_the_penalty_given(
    penalty: float, best: str, best_share: float
) -> None:
    (row,) = tune_talk.with_penalty([_row(10.0)], penalty)
    hypotheses = row["utterances"][0]["hypotheses"]
    assert hypotheses[0][0] == best and hypotheses[0][1] >= best_share
    assert len(hypotheses) == 3  # the two phrasings of one bid pooled: bid, paso, transcript
    assert sum(share for _, share in hypotheses) == pytest.approx(1.0, abs=1e-3)


def test_rows_without_the_free_value_are_left_as_recorded() -> None:
    row = _row(None)
    assert tune_talk.with_penalty([row], 6.0) == [row]


def test_the_replay_starts_from_the_models_own_thresholds(tmp_path) -> None:
    """A replay without a grid decides as the live bench did: with the thresholds of the
    model's decision.toml, not the defaults (replays of session 47 ignored it)."""
    (tmp_path / "decision.toml").write_text("[thresholds]\ntalk_similarity = 0.65\n")
    assert tune_talk.base_thresholds(str(tmp_path)).talk_similarity == 0.65
    default = tune_talk.Thresholds().talk_similarity
    assert default != 0.65
    assert tune_talk.base_thresholds(str(tmp_path / "none")).talk_similarity == default
