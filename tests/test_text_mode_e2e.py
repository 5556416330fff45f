"""Whole games through the real command: `python -m voice_ref play --text --json --silent`.

A scripted table (tests/dialogue_bot.py) reads each JSON reply and says the next
line, steering who loses each round, until the referee names a winner.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from dialogue_bot import TableBot, play_game  # noqa: E402

COMMAND = [sys.executable, "-m", "voice_ref", "play", "--text", "--json", "--silent"]
STATE_KEYS = {
    "players",
    "turn",
    "bid",
    "dice_on_table",
    "round",
    "direction",
    "awaiting",
    "winner",
}
AWAITING = {
    "starter", "direction", "bid", "count", "pass_check", "obligar", "modality", "game_over"
}


class Session:
    """One running referee process, fed one line at a time."""

    def __init__(self, args: list[str], state_dir: Path) -> None:
        self.proc = subprocess.Popen(
            [*COMMAND, *args, "--state-dir", str(state_dir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        self.opening = self._read()

    def send(self, line: str) -> dict:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self._read()

    def _read(self) -> dict:
        assert self.proc.stdout is not None
        raw = self.proc.stdout.readline()
        if not raw:
            self.proc.wait(timeout=10)
            raise AssertionError(f"referee stopped: {self.proc.stderr.read()}")  # type: ignore[union-attr]
        return json.loads(raw)

    def close(self) -> tuple[int, str]:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        rc = self.proc.wait(timeout=30)
        err = self.proc.stderr.read() if self.proc.stderr else ""
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()
        return rc, err

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()


def check_protocol(reply: dict, opening: bool = False) -> None:
    """Every reply has exactly the protocol's fields with the protocol's types; the opening
    also names the config file that was read."""
    extra = {"config"} if opening else set()
    assert set(reply) == {"heard", "intent", "accepted", "say", "state"} | extra
    if opening:
        assert reply["config"].endswith("config.toml") and Path(reply["config"]).is_file()
    assert isinstance(reply["accepted"], bool) and isinstance(reply["say"], str) and reply["say"]
    state = reply["state"]
    assert set(state) == STATE_KEYS
    assert state["awaiting"] in AWAITING
    assert state["round"] in ("normal", "obligar", "palo_fijo")
    # null until chosen (or fixed by the rules)
    assert state["direction"] in ("izquierda", "derecha") or (
        state["direction"] is None and state["awaiting"] in ("starter", "direction")
    )
    for p in state["players"]:
        assert set(p) == {"name", "dice", "active"}
        assert p["active"] == (p["dice"] > 0)
    if state["bid"] is not None:
        assert set(state["bid"]) == {"quantity", "face", "clean", "by"}
        assert 1 <= state["bid"]["face"] <= 6


def total_dice(reply: dict) -> int:
    return sum(p["dice"] for p in reply["state"]["players"])


def play_through_command(tmp_path: Path, args: list[str], bot: TableBot) -> list[dict]:
    session = Session(args, tmp_path)
    assert session.opening["heard"] is None and session.opening["intent"] is None
    replies = play_game(session.send, session.opening, bot)
    rc, err = session.close()
    assert rc == 0, err
    for i, reply in enumerate(replies):
        check_protocol(reply, opening=i == 0)
    for before, after in zip(replies, replies[1:], strict=False):
        change = total_dice(after) - total_dice(before)
        if after["say"].startswith(("Había", "No había", "La mano")):
            assert change in (-1, 1), after["say"]
        else:
            assert change == 0, after["say"]
    log = (tmp_path / "game.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(log) == 1 + len(bot.lines)  # header + every accepted line
    return replies


def says(replies: list[dict]) -> str:
    return "\n".join(r["say"] for r in replies)


def test_chile_four_players_to_a_winner(tmp_path):
    plan = ["Diego", ("pass_lose", "Carla"), ("pass_ok", "Ana"), "Diego", ("calzo", "Beto")]
    plan += ["Diego", "Carla", "Diego", "Diego", "Beto", "Carla", "Carla", "Carla"]
    plan += ["Beto"] * 6
    bot = TableBot(plan)
    args = ["--players", "Ana,Beto,Carla,Diego", "--rules", "chile"]
    replies = play_through_command(tmp_path, args, bot)
    final = replies[-1]["state"]
    assert final["winner"] == "Ana" and final["awaiting"] == "game_over"
    assert [p["active"] for p in final["players"]] == [True, False, False, False]
    text = says(replies)
    assert replies[0]["say"].endswith("¿Quién parte? Digan, por ejemplo, «parte Ana».")
    assert "Parte Ana: ¿izquierda o derecha?" in text
    assert text.count("queda fuera") == 3
    assert "Diego, ¿obligas?" in text and "¿Abierta o cerrada?" in text
    assert "Beto calza." in text and "justo: Beto gana un dado" in text
    assert "¿La mano de Carla era válida?" in text
    assert replies[-1]["say"].endswith("¡Ana gana la partida!")


def test_dudo_game_with_obliga(tmp_path):
    bot = TableBot(["Carla"] * 5 + ["Beto"] * 5, starter="Beto")
    args = ["--players", "Ana,Beto,Carla", "--rules", "dudo", "--starter", "Beto"]
    replies = play_through_command(tmp_path, args, bot)
    assert replies[-1]["state"]["winner"] == "Ana"
    text = says(replies)
    assert "¿izquierda o derecha?" not in text  # dudo always plays clockwise
    assert text.count(": ¿abierta o cerrada?") == 2  # Carla, then Beto, reach one die
    assert "Obliga Carla: ¿abierta o cerrada?" in text
    assert "Ronda cerrada." in text and "Ronda abierta." in text
    assert any(r["state"]["round"] == "obligar" for r in replies)
    assert "sin ases" in text  # nothing is wild in the obliga round


def test_cachito_game_with_limpio_and_palo_fijo(tmp_path):
    bot = TableBot(["Beto"] * 5 + ["Carla"] * 5, clean_every=2)
    args = ["--players", "Ana,Beto,Carla", "--rules", "cachito", "--starter", "Ana"]
    replies = play_through_command(tmp_path, args, bot)
    assert replies[-1]["state"]["winner"] == "Ana"
    assert any(r["state"]["bid"] and r["state"]["bid"]["clean"] for r in replies)
    assert any(r["state"]["round"] == "palo_fijo" for r in replies)
    assert {r["state"]["direction"] for r in replies} - {None} == {"izquierda", "derecha"}
    text = says(replies)
    assert "Palo fijo: parte" in text and "limpia." in text


BAD_LINES = [
    ("", "No escuché nada."),
    ("blorp zzz", "No entendí."),
    ("tres puntos", "No entendí."),  # reads as "tres unos" (legal) only at 0.45: a guess
    ("x" * 10_000, "No entendí: es demasiado largo."),
    ("cero quinas", "No vale: hay que cantar al menos un dado."),
    ("sesenta y un quinas", "No vale: se puede cantar hasta sesenta dados."),
    ("sí", "No hay ninguna pregunta pendiente. Beto, te toca."),
    ("Xavier, dudo", "No hay nadie llamado Xavier en la mesa."),
    ("Carla, seis quinas", "Espera, Carla: le toca a Beto."),
    ("cuatro quinas", "No vale: después de cinco quinas hay que subir. "
     "Mínimo: cinco sextos, seis de otra pinta o tres ases."),
    ("cinco quinas limpias", "No vale: en estas reglas no se canta limpio."),
]


def test_bad_input_changes_nothing(tmp_path):
    session = Session(["--players", "Ana,Beto,Carla", "--starter", "Ana",
                       "--direction", "izquierda"], tmp_path)
    before = session.send("cinco quinas")
    assert before["accepted"]
    for line, answer in BAD_LINES:
        reply = session.send(line)
        check_protocol(reply)
        assert reply["accepted"] is False, line[:40]
        assert reply["say"] == answer
        assert reply["state"] == before["state"]
        if answer == "No entendí.":
            assert reply["intent"] is None  # a guess is shown as no intent at all
    session.send("dudo")
    high = session.send("dieciséis")  # more than the fifteen dice on the table
    assert not high["accepted"] and high["say"].startswith("No puede ser: hay quince dados")
    assert high["state"]["awaiting"] == "count"
    rc, err = session.close()
    assert rc == 0, err
    log = (tmp_path / "game.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(log) == 3  # header, "cinco quinas", "dudo": nothing refused was logged


def test_bad_setup_is_explained(tmp_path):
    proc = subprocess.run(
        [*COMMAND, "--players", "Ana,Beto", "--starter", "Zoe", "--state-dir", str(tmp_path)],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "Zoe" in proc.stderr and "not one of the players" in proc.stderr


@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.97])
def test_resume_after_kill(tmp_path, fraction):
    """Kill the process part way; `--resume` goes on exactly as if nothing had happened."""
    args = ["--players", "Ana,Beto,Carla", "--starter", "Ana", "--direction", "derecha"]
    bot = TableBot(["Carla", ("pass_lose", "Beto"), "Ana", "Carla"] + ["Beto"] * 5 + ["Carla"] * 5)
    whole = Session(args, tmp_path / "whole")
    replies = play_game(whole.send, whole.opening, bot)
    whole.close()
    lines = bot.lines
    cut = int(len(lines) * fraction)
    first = Session(args, tmp_path / "cut")
    for line in lines[:cut]:
        first.send(line)
    first.kill()
    second = Session(["--resume"], tmp_path / "cut")
    assert second.opening["state"] == replies[cut]["state"]
    assert second.opening["say"].startswith("Seguimos")
    rest = [second.send(line) for line in lines[cut:]]
    second.close()
    assert [r["state"] for r in rest] == [r["state"] for r in replies[cut + 1 :]]
    assert rest[-1]["state"]["winner"] == "Ana"
    assert rest[-1]["state"] == replies[-1]["state"]


def test_plain_text_mode_for_a_person(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "voice_ref", "play", "--text", "--players", "Ana,Beto,Carla",
         "--starter", "Ana", "--direction", "izquierda", "--state-dir", str(tmp_path)],
        input="cinco quinas\nblorp\n",
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert "Cinco quinas. Beto, te toca." in out
    assert "✗ No entendí." in out
    assert any("canto: 5×5 (Ana)" in line and "turno: Beto" in line for line in out)
    assert not any(line.startswith("{") for line in out)
