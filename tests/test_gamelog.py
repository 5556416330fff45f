"""The game log: nothing accepted is lost, `--resume` rebuilds the exact state.

Runs the real command in-process (`voice_ref.cli.main` with stdin/stdout swapped),
so every prefix of a scripted game can be cut and resumed quickly.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from voice_ref.cli import main as cli_main
from voice_ref.dialogue.gamelog import GameLog, LogError, read_log
from voice_ref.dialogue.referee import Referee, TableSetup

sys.path.insert(0, str(Path(__file__).parent))
from dialogue_bot import TableBot, play_game  # noqa: E402

ARGS = ["--players", "Ana,Beto,Carla", "--rules", "chile", "--starter", "Ana"]


def run(state_dir: Path, lines: list[str], *extra: str, capsys=None) -> list[dict]:
    """`voice-ref play --text --json --silent ...` with `lines` on stdin; the JSON replies."""
    argv = ["play", "--text", "--json", "--silent", "--state-dir", str(state_dir), *extra]
    old_in, old_out = sys.stdin, sys.stdout
    sys.stdin = io.StringIO("".join(line + "\n" for line in lines))
    sys.stdout = out = io.StringIO()
    try:
        assert cli_main(argv) == 0
    finally:
        sys.stdin, sys.stdout = old_in, old_out
    return [json.loads(raw) for raw in out.getvalue().splitlines()]


@pytest.fixture(scope="module")
def script() -> list[str]:
    """A short chile game with a pass, an obligar, undos and queries (which are not logged)."""
    ref = Referee(TableSetup(("Ana", "Beto", "Carla"), "chile", starter="Ana"))
    bot = TableBot(["Carla", ("pass_ok", "Ana")] + ["Carla"] * 4 + ["Beto"] * 6)
    play_game(lambda line: ref.handle_text(line).to_json(), ref.opening().to_json(), bot)
    lines = list(bot.lines)
    # Mistakes corrected on the spot, and lines that change nothing.
    lines[4:4] = ["seis trenes", "me equivoqué", "me equivoqué", lines[2], lines[3]]
    lines[10:10] = ["¿cuántos dados hay?", "repite", "blabla", "nueva partida", "no"]
    return lines


@pytest.fixture(scope="module")
def whole(script, tmp_path_factory) -> list[dict]:
    state_dir = tmp_path_factory.mktemp("whole")
    replies = run(state_dir, script, *ARGS)
    refused = [r["heard"] for r in replies if not r["accepted"]]
    assert refused == ["seis trenes", "blabla"]
    assert replies[-1]["state"]["winner"] == "Ana"
    return replies


def test_resume_after_every_prefix(script, whole, tmp_path):
    """Cut after any line: the resumed game says and does exactly what the whole game did."""
    for cut in range(len(script) + 1):
        state_dir = tmp_path / f"cut{cut}"
        first = run(state_dir, script[:cut], *ARGS)
        assert first == whole[: cut + 1]
        second = run(state_dir, script[cut:], "--resume")
        assert second[0]["state"] == whole[cut]["state"], f"resume after line {cut}"
        rest = second[1:]
        for i, reply in enumerate(rest):
            if reply["accepted"] and reply["intent"]["type"] not in ("query", "repeat"):
                break
            if reply["intent"] == {"type": "repeat"}:
                # Before anything new happens, "repite" repeats the resume announcement.
                assert reply["say"] == second[0]["say"]
                rest[i] = {**reply, "say": whole[cut + 1 + i]["say"]}
        assert rest == whole[cut + 1 :], f"resume after line {cut}"


def test_truncated_last_line_is_ignored_with_a_warning(script, whole, tmp_path, capsys):
    cut = 12
    state_dir = tmp_path / "t"
    run(state_dir, script[:cut], *ARGS)
    log = state_dir / "game.jsonl"
    data = log.read_bytes()
    last_start = data.rstrip(b"\n").rfind(b"\n") + 1
    for end in range(last_start + 1, len(data) - 1, 7):  # a crash in the middle of a write
        log.write_bytes(data[:end])
        replies = run(state_dir, [], "--resume")
        err = capsys.readouterr().err
        assert "warning" in err and "incomplete last line" in err
        assert replies[0]["state"] == whole[_last_logged(whole, cut) - 1]["state"]
        assert log.read_bytes() == data[:last_start]  # the broken tail is cut off
    # After the repair the game goes on and is logged normally.
    log.write_bytes(data[:last_start] + b'{"intent": {"ty')
    replies = run(state_dir, script[_last_logged(whole, cut) - 1 :], "--resume")
    assert replies[-1]["state"] == whole[-1]["state"]
    assert all(json.loads(line) for line in log.read_text(encoding="utf-8").splitlines())


def _last_logged(whole, cut):
    """Index (in `whole`) of the last accepted, state-changing reply among the first `cut`."""
    for i in range(cut, 0, -1):
        reply = whole[i]
        if reply["accepted"] and reply["intent"]["type"] not in ("query", "repeat"):
            return i
    raise AssertionError("nothing logged")


def test_new_game_keeps_the_previous_log(tmp_path):
    run(tmp_path, ["cinco quinas"], *ARGS, "--direction", "izquierda")
    run(tmp_path, ["dos trenes"], *ARGS, "--direction", "izquierda")
    old = sorted(tmp_path.glob("game-*.jsonl"))
    assert len(old) == 1
    assert "cinco quinas" in old[0].read_text(encoding="utf-8")
    current = (tmp_path / "game.jsonl").read_text(encoding="utf-8")
    assert "dos trenes" in current and "cinco quinas" not in current


def test_log_header_and_lines(tmp_path):
    lines = ["a la izquierda", "cinco quinas", "¿a quién le toca?", "blabla", "dudo"]
    run(tmp_path, lines, *ARGS, "--seed", "7")
    lines = [json.loads(x) for x in (tmp_path / "game.jsonl").read_text("utf-8").splitlines()]
    header = lines[0]
    assert header["players"] == ["Ana", "Beto", "Carla"]
    assert header["rules"] == {"preset": "chile", "overrides": {}}
    assert header["starter"] == "Ana" and header["seed"] == 7
    assert [x["intent"]["type"] for x in lines[1:]] == ["choice", "bid", "dudo"]
    assert lines[2] == {
        "intent": {"type": "bid", "quantity": 5, "face": 5, "clean": False},
        "heard": "cinco quinas",
    }


def test_random_starter_survives_resume(tmp_path):
    first = run(tmp_path, ["a la derecha"], "--players", "Ana,Beto,Carla,Diego",
                "--starter", "random")
    again = run(tmp_path, [], "--resume")
    assert again[0]["state"] == first[-1]["state"]


def test_resume_without_a_log_starts_a_new_game(tmp_path, capsys):
    replies = run(tmp_path, ["parte Beto"], "--resume", "--players", "Ana,Beto")
    assert "no saved game" in capsys.readouterr().err.lower()
    assert replies[-1]["state"]["turn"] == "Beto"


def test_append_is_on_disk_before_returning(tmp_path):
    log = GameLog.create(tmp_path, {"players": ["Ana", "Beto"]})
    log.append({"intent": {"type": "dudo"}})
    # A second reader sees the line at once: it was flushed (and fsynced) by append.
    loaded = read_log(tmp_path / "game.jsonl")
    assert loaded.records == [{"intent": {"type": "dudo"}}] and not loaded.warnings
    log.close()


def test_garbage_log_is_refused_in_plain_words(tmp_path):
    (tmp_path / "game.jsonl").write_text("hello\nworld\n", encoding="utf-8")
    with pytest.raises(LogError, match="not valid JSON|header"):
        read_log(tmp_path / "game.jsonl")
