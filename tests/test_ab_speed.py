"""tools/ab_speed.py: the set-up mistakes it explains, and what it sums up."""

from __future__ import annotations

from pathlib import Path

import pytest
from tool_loader import load_tool

TOOL = Path(__file__).parents[1] / "tools/ab_speed.py"


@pytest.fixture(scope="module")
def ab():  # noqa: ANN201 - a module loaded from its file (tools/ is no package)
    return load_tool("ab_speed")


def test_both_trees_are_needed(ab, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    with pytest.raises(SystemExit):
        ab.main(["--a", "."])
    assert "give both trees" in capsys.readouterr().err


def test_a_tree_without_the_package_is_named(
    ab, tmp_path: Path, capsys: pytest.CaptureFixture[str]  # noqa: ANN001
) -> None:
    with pytest.raises(SystemExit):
        ab.main(["--a", str(TOOL.parents[1]), "--b", str(tmp_path)])
    assert f"{tmp_path} holds no voice_ref/ folder" in capsys.readouterr().err


def test_the_summary_leaves_out_the_warm_up_clip(ab) -> None:  # noqa: ANN001
    results = [{"wall": 5.0, "cpu": 5.0}] + [{"wall": w, "cpu": w / 2} for w in (0.1, 0.3)]
    s = ab.summary(results)
    assert s["clips"] == 2
    assert s["wall_mean_ms"] == 200
    assert s["cpu_mean_ms"] == 100
