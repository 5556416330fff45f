"""End to end on a virtual sound card: a short 3-player game spoken into a microphone.

PulseAudio runs without hardware (tests/pulse_helpers.py). The players' voices (espeak-ng,
generated here) and the referee's own loudspeaker sound into the same null sink, whose
monitor is the microphone that `voice-ref play` (live mode: no --text, no --input) listens
to through sounddevice. So the referee hears itself exactly as at a real table; the game
must still come out exactly as the same words typed into text mode: same intents, same
announcements, same states, same game log, and no extra actions.
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from pulse_helpers import VirtualSoundCard
from table_audio import (
    SHORT_GAME,
    espeak_available,
    read_log,
    short_game_config,
    typed_game,
    utterance_wav,
    voice_of,
    without_heard,
)

from voice_ref.config import load_config
from voice_ref.voice.session import listening_line

REPO = Path(__file__).resolve().parents[1]
WHISPER = REPO / "models" / "whisper-base"

pytestmark = [pytest.mark.slow]


@pytest.fixture(autouse=True)
def _needs_espeak():
    if not espeak_available():
        pytest.skip("espeak-ng is not installed (apt install espeak-ng)")


class Lines:
    """Reads a pipe on a thread so the test can wait for lines with a timeout."""

    def __init__(self, stream) -> None:
        self.queue: queue.Queue[str] = queue.Queue()
        self.all: list[str] = []
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream) -> None:
        for line in stream:
            self.all.append(line)
            self.queue.put(line)

    def next(self, timeout: float) -> str:
        return self.queue.get(timeout=timeout)

    def read_to_end(self, timeout: float) -> None:
        """After the program exited: wait until its last line has been read."""
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "the pipe did not close"

    def wait_for(self, text: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.next(max(0.01, deadline - time.monotonic())):
            pass


@pytest.mark.audio_devices
def test_live_audio_path_with_a_script_reading_recognizer(card, tmp_path):
    """Devices, timing and the self-hearing guard, with a recognizer that takes any sound
    for the next line of the script (tests/oracle_recognizer.py): one leaked announcement
    and the game goes out of step. Each player speaks once, when the referee says it listens
    again; no line is ever repeated."""
    lines = tmp_path / "lines.json"
    lines.write_text(json.dumps([text for _, text in SHORT_GAME]), encoding="utf-8")
    oracle = Path(__file__).with_name("oracle_recognizer.py")
    stderr, repeats = play_live(card, tmp_path,
                                [sys.executable, str(oracle), str(lines), "--"],
                                repeat_after_s=None)
    assert repeats == 0
    assert stderr.count("oracle: sound") == len(SHORT_GAME)  # it heard the players only


@pytest.mark.whisper_model
def test_a_short_game_spoken_at_a_simulated_table(tmp_path):
    """The real thing: Whisper listens to a whole simulated game (`voice-ref bench --games`:
    2 players with 2 dice each, espeak-ng voices, clean audio) through the same VoiceSession
    as the microphone, with the referee's own voice in the room. Players repeat, answer
    "¿Dijiste ...?" and say "me equivoqué" as people do; the game must end exactly as they
    meant it, with no wrong action left in the log."""
    if not (WHISPER / "model.bin").exists():
        pytest.skip("models/whisper-base is missing: run `voice-ref models install whisper-base`")
    from voice_ref.simulation.bench import BenchOptions, run

    path = tmp_path / "config.toml"
    path.write_text(f"""
[rules]
preset = "chile"
[rules.overrides]
start_dice = 2
[asr]
backend = "whisper"
whisper_model = "{WHISPER}"
""", encoding="utf-8")
    options = BenchOptions(games=1, preset="chile", players=("Ana", "Beto"),
                           voices=("es+m1", "es-419+f2"), seed=3, backend="whisper",
                           rows=tmp_path / "lines.jsonl")
    summary = run(options, load_config(path))
    print(summary)
    assert summary["games"] == 1
    assert summary["games_correct"] == 1, summary
    assert summary["uncorrected"] == 0, summary
    rows = [json.loads(line) for line in (tmp_path / "lines.jsonl").read_text().splitlines()]
    spoken = summary["utterances"] + summary["extra_utterances"]
    assert len(rows) == spoken and all(row["game"] == 1 for row in rows)
    assert sum(row["wrong_accept"] for row in rows) == summary["wrong_accepts"]


@pytest.mark.whisper_model
@pytest.mark.audio_devices
def test_a_new_table_starts_at_once_and_prepares_in_the_background(card, tmp_path):
    """New players' phrases need minutes of text prior: the live game opens without waiting,
    a child process at the lowest priority does the work, and Ctrl-C ends both."""
    if not (WHISPER / "model.bin").exists():
        pytest.skip("models/whisper-base is missing: run `voice-ref models install whisper-base`")
    model = tmp_path / "model"  # the same weights with an empty text prior store
    model.mkdir()
    for name in ("config.json", "model.bin", "tokenizer.json", "vocabulary.json"):
        (model / name).symlink_to(WHISPER / name)
    config = short_game_config(tmp_path / "config.toml", model)
    live = subprocess.Popen(
        [sys.executable, "-m", "voice_ref", "--config", str(config), "play", "--json",
         "--players", "Zoe,Yago,Xime", "--starter", "Zoe", "--state-dir", str(tmp_path / "live")],
        env=card.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        encoding="utf-8", preexec_fn=ctrl_c_works,
    )
    out, err = Lines(live.stdout), Lines(live.stderr)
    try:
        opening = json.loads(out.next(timeout=180.0))
        assert opening["state"]["players"][0]["name"] == "Zoe"
        workers = children_running(live.pid, "prior_worker")
        assert len(workers) == 1, "".join(err.all)  # still at it: minutes of work
        assert niceness(workers[0]) == 19
        live.send_signal(signal.SIGINT)
        assert live.wait(timeout=60) == 0, "".join(err.all)
    finally:
        if live.poll() is None:
            live.kill()
    err.read_to_end(timeout=30)
    assert "preparing this table's phrases in the background" in "".join(err.all)
    deadline = time.monotonic() + 10  # the worker is stopped on exit (SIGTERM)
    while Path(f"/proc/{workers[0]}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not Path(f"/proc/{workers[0]}").exists() or zombie(workers[0])


def children_running(parent: int, text: str) -> list[int]:
    """The pids of `parent`'s child processes whose command line contains `text`."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(fields[1]) == parent and text in cmdline:
            found.append(int(stat.parent.name))
    return found


def niceness(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


def zombie(pid: int) -> bool:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"


def ctrl_c_works() -> None:
    """In the child, before it starts: Ctrl-C (SIGINT) acts as in a terminal. A test run
    started in the background (`cmd &`, CI) inherits SIGINT *ignored*, and Python then
    never raises KeyboardInterrupt: the program would not stop."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def play_live(card: VirtualSoundCard, tmp_path: Path, command: list[str],
              repeat_after_s: float | None = 10.0) -> tuple[str, int]:
    """Speak SHORT_GAME into the card while `command ... play --json` (live) referees it;
    the result must equal the typed game: objects, announcements, log, no extra actions.
    A player speaks when the program says it listens again after its last reply (stderr,
    `listening_line`). With `repeat_after_s`, a line that got no reply in that time is
    said once more, as a player would; returns the program's stderr and how many lines
    had to be repeated."""
    config = short_game_config(tmp_path / "config.toml", WHISPER)
    expected, expected_log = typed_game(tmp_path / "typed", config)
    assert expected[-1]["state"]["winner"] == "Ana"  # the script really is a whole game

    clips = [utterance_wav(text, tmp_path / f"u{i}.wav", voice_of(who))
             for i, (who, text) in enumerate(SHORT_GAME)]
    patience_s = 180.0  # only bounds a hung program; nothing waits this long on success

    live = subprocess.Popen(
        [command[0], "-X", "faulthandler", *command[1:], "--config", str(config), "play",
         "--json", "--state-dir", str(tmp_path / "live")],
        env=card.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        encoding="utf-8", preexec_fn=ctrl_c_works,
    )
    out, err = Lines(live.stdout), Lines(live.stderr)
    objects: list[dict] = []
    repeats = 0
    try:
        objects.append(json.loads(out.next(timeout=patience_s)))  # the opening (model loaded)
        err.wait_for(listening_line(1), timeout=patience_s)  # the opening has been said
        for clip, (_who, text) in zip(clips, SHORT_GAME, strict=True):
            # Nobody has spoken since the last reply: any new object came from the referee's
            # own voice (or a line spoken twice).
            assert out.queue.empty(), f"a reply nobody asked for: {out.queue.get()}"
            card.play(clip)
            try:
                reply = out.next(timeout=repeat_after_s or patience_s)
            except queue.Empty:  # not understood (table talk to the referee): say it again
                if repeat_after_s is None:
                    pytest.fail(f"no reply to {text!r}; stderr: {''.join(err.all)}")
                repeats += 1
                card.play(clip)
                try:
                    reply = out.next(timeout=patience_s)
                except queue.Empty:
                    pytest.fail(f"no reply to {text!r}, said twice; heard so far: "
                                f"{[o['heard'] for o in objects]}; stderr: {''.join(err.all)}")
            objects.append(json.loads(reply))
            # Players wait until the referee has finished speaking and listens again.
            err.wait_for(listening_line(len(objects)), timeout=patience_s)
        time.sleep(2.0)  # a chance for any leak of the referee's last words to show
        live.send_signal(signal.SIGINT)
        try:
            live.wait(timeout=patience_s)
        except subprocess.TimeoutExpired:  # a hang at exit: show where every thread is
            live.send_signal(signal.SIGABRT)  # faulthandler (-X faulthandler) dumps them
            live.wait(timeout=30)
            err.read_to_end(timeout=30)
            pytest.fail("the program did not exit after Ctrl-C; its threads:\n"
                        + "".join(err.all)[-6000:])
    finally:
        if live.poll() is None:
            live.kill()
    out.read_to_end(timeout=30)
    err.read_to_end(timeout=30)
    extra = [json.loads(x) for x in out.all[len(objects):] if x.strip()]
    stderr = "".join(err.all)

    assert extra == [], f"extra actions (self-hearing?): {extra}"
    assert "could not speak" not in stderr and "Traceback" not in stderr, stderr
    assert live.returncode == 0, stderr
    assert [without_heard(o) for o in objects] == [without_heard(o) for o in expected]
    assert all(o["heard"] for o in objects[1:])
    live_log = read_log(tmp_path / "live")
    assert [r.get("intent") for r in live_log[1:]] == [r.get("intent") for r in expected_log[1:]]
    assert objects[-1]["state"]["winner"] == "Ana"
    return stderr, repeats
