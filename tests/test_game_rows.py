"""tools/game_rows.py: where a games run's extra lines went, counted from its rows."""

from __future__ import annotations

import json

import pytest
from tool_loader import load_tool

BID = {"type": "bid", "quantity": 2, "face": 4, "clean": False}


@pytest.fixture(scope="module")
def rows_tool():  # noqa: ANN201 - a module loaded from its file (tools/ is no package)
    return load_tool("game_rows")


@pytest.mark.parametrize(
    ("why", "folded"),
    [
        ("free transcript 'Tuna' is no game phrase", "free transcript '…' is no game phrase"),
        ("share 0.55 below 0.6", "share N below N"),
        ("'dudo' does not fit 0.10 s of speech", "'…' does not fit N s of speech"),
        ("", "(none)"),
    ],
)
def test_reasons_fold_their_particulars(rows_tool, why: str, folded: str) -> None:  # noqa: ANN001
    assert rows_tool.reason(why) == folded


@pytest.mark.parametrize(
    ("heard", "meant", "same"),
    [
        ({**BID, "player": "Ana"}, BID, True),  # a name before the call does not matter
        ({**BID, "quantity": 3}, BID, False),
        (BID, {"type": "number", "value": 2}, True),  # a count asked back with a face
        (None, BID, False),
        # A starter names who opens: there the player is the content, not a name before it.
        ({"type": "starter", "player": "Ana"}, {"type": "starter", "player": "Beto"}, False),
    ],
)
def test_a_reading_means_the_call_said(rows_tool, heard, meant, same: bool) -> None:  # noqa: ANN001
    assert rows_tool.means(heard, meant) is same


def test_questions_ignores_wrong_accepts_and_refusals_are_counted(rows_tool, tmp_path) -> None:  # noqa: ANN001
    def verdict(action: str, intent: dict | None, why: str = "") -> dict:
        return {"action": action, "intent": intent, "why": why}

    quinas = {**BID, "face": 5}
    rows = [
        {"kind": "action", "meant": BID, "wrong_accept": True, "refused_call": False,
         "heard": [verdict("confirm", BID, "free transcript 'Los' is no game phrase"),
                   verdict("accept", quinas)]},
        {"kind": "action", "meant": BID, "wrong_accept": False, "refused_call": True,
         "heard": [verdict("ignore", None, "table talk")]},
        {"kind": "talk", "meant": None, "heard": [verdict("ignore", None, "table talk")]},
    ]
    path = tmp_path / "g.rows"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    counts = rows_tool.tally(rows_tool.read_rows([path]))
    assert counts["lines"] == {"actions": 2, "refused calls": 1}
    assert counts["questions"] == {("free transcript '…' is no game phrase", "right"): 1}
    assert counts["ignored"] == {"table talk": 1}  # the talk line is no action
    assert counts["wrong"] == {"bid face 4 -> 5": 1}
    assert "legal calls refused 1" in rows_tool.report(counts)


def test_a_missing_rows_file_is_named(rows_tool, tmp_path, capsys) -> None:  # noqa: ANN001
    with pytest.raises(SystemExit):
        rows_tool.main([str(tmp_path / "none.rows")])
    assert "no such rows file" in capsys.readouterr().err
