"""A live microphone that stops delivering audio mid-game (unplugged, muted): the table
hears so, whoever set it up reads why, and both hear when it is back."""

from __future__ import annotations

import itertools
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from voice_ref.app import told_when_silent
from voice_ref.dialogue.prompts import Prompts
from voice_ref.voice.microphone import (
    SILENT_DEVICE_S,
    Microphone,
    native_noise_hidden,
    watched,
)

BLOCK = np.zeros(1600, np.float32)


def ticks(spec: list[tuple[float, float, bool]]) -> list[tuple[float, np.ndarray | None]]:
    """Blocks every 0.1 s from `start` to `end`: audio when the flag is set, else the
    idle ticks a silent device gives."""
    out = []
    for start, end, audio in spec:
        for i in range(round((end - start) * 10)):
            out.append((start + i / 10, BLOCK if audio else None))
    return out


def run(blocks, silent_s: float = SILENT_DEVICE_S) -> tuple[list, list[tuple[str, float]]]:
    """The blocks passed on, and what was told at which block's time (a callback runs
    before the block it fires on is passed on)."""
    events: list[tuple[str, float]] = []
    passed: list = []

    def at() -> float:
        return blocks[len(passed)][0]

    stream = watched(blocks, lambda: events.append(("silent", at())),
                     lambda: events.append(("back", at())), silent_s)
    for item in stream:
        passed.append(item)
    return passed, events


@pytest.mark.parametrize(
    ("spec", "events"),
    [
        ([(0, 10, True)], []),
        ([(0, 2, True), (2, 4.8, False), (4.8, 6, True)], []),  # 2.8 s: a stutter, no more
        ([(0, 2, True), (2, 8, False), (8, 9, True)], [("silent", 4.9), ("back", 8.0)]),
        ([(0, 2, True), (2, 12, False)], [("silent", 4.9)]),  # told once
        ([(0, 1, True), (1, 5, False), (5, 6, True), (6, 10, False)],
         [("silent", 3.9), ("back", 5.0), ("silent", 8.9)]),  # and again if it goes again
        ([(0, 10, False)], []),  # never delivered: the start-up check reports that
    ],
)
def test_a_silent_device_is_told_once_and_its_return_too(spec, events):
    blocks = ticks(spec)
    passed, told = run(blocks)
    assert passed == blocks  # every block goes on to the loop unchanged
    assert [(e, round(t, 1)) for e, t in told] == events


class SaidLines:
    def __init__(self) -> None:
        self.said: list[str] = []
        self.speaking = False

    def say(self, text: str, *, urgent: bool = False) -> None:
        self.said.append(text)

    def deaf_at(self, t: float) -> bool:
        return False


def test_the_table_hears_it_in_spanish_and_the_operator_reads_why(capsys):
    announcer = SaidLines()
    prompts = Prompts.load()
    list(told_when_silent(ticks([(0, 1, True), (1, 6, False), (6, 7, True)]), announcer,
                          prompts))
    assert announcer.said == [prompts.say("device.microphone_silent"),
                              prompts.say("device.microphone_back")]
    assert "No escucho el micrófono" in announcer.said[0]
    err = capsys.readouterr().err
    assert "the microphone has delivered no audio for 3 s" in err
    assert "voice-ref devices" in err
    assert "the microphone delivers audio again" in err


@pytest.mark.audio_devices
def test_a_microphone_that_goes_quiet_mid_game_is_reported(card, tmp_path):
    """Live `play` on the virtual card (the script-reading recognizer: no model); the
    card's sink is suspended for 5 s, so its monitor, the microphone, delivers nothing."""
    live, _out, err = oracle_play(card, tmp_path)
    pactl = ["pactl", "suspend-sink", "table_air"]
    try:
        subprocess.run([*pactl, "1"], env=card.env(), check=True, timeout=20)
        err.wait_for("has delivered no audio", timeout=60.0)
        subprocess.run([*pactl, "0"], env=card.env(), check=True, timeout=20)
        err.wait_for("delivers audio again", timeout=60.0)
        live.send_signal(signal.SIGINT)
        assert live.wait(timeout=120) == 0, "".join(err.all)
    finally:
        subprocess.run([*pactl, "0"], env=card.env(), timeout=20)
        if live.poll() is None:
            live.kill()
    err.read_to_end(timeout=30)
    stderr = "".join(err.all)
    # Whoever set the table up reads which devices the referee took (the card's, via ALSA's
    # PulseAudio plugin: "default").
    assert "voice-ref: microphone: default; loudspeaker: default" in stderr
    assert stderr.count("has delivered no audio") == 1
    assert stderr.count("delivers audio again") == 1


class Stream:
    """A PortAudio stream: a live one, or one its device took away with it."""

    def __init__(self, active: bool) -> None:
        self.active = active

    def close(self) -> None:
        pass


def test_an_ended_stream_is_opened_again_until_its_device_is_back():
    """The device comes back on the third try; meanwhile the loop gets its idle ticks."""
    import sounddevice as sd

    mic = Microphone(reopen_every_s=0.05)
    mic._device_rate = mic.sample_rate
    mic._stream = Stream(active=False)
    tries: list[float] = []

    def start_stream() -> None:
        tries.append(time.monotonic())
        if len(tries) < 3:
            raise sd.PortAudioError("Unanticipated host error")
        mic._stream = Stream(active=True)  # its first block is in the queue
        mic._queue.put((time.monotonic(), BLOCK))

    mic._start_stream = start_stream
    assert mic.ended
    got = []
    for _t, samples in mic.blocks(poll_s=0.01):
        got.append(samples)
        if samples is not None:
            break
    assert len(tries) == 3 and mic.reopens == 1
    assert min(b - a for a, b in itertools.pairwise(tries)) >= 0.05  # not a busy loop
    assert got[:-1] == [None] * (len(got) - 1) and len(got) > 3


def test_native_diagnostics_are_hidden_and_other_messages_kept(capfd):
    import os

    with native_noise_hidden():
        os.write(2, b"ALSA lib pcm_pulse.c:758:(pulse_prepare) PulseAudio: Unable\n\n")
        os.write(2, b"Expression 'r' failed in 'src/hostapi/alsa/pa_linux_alsa.c'\n")
        print("voice-ref: could not speak", file=sys.stderr)  # another thread's, say
    print("after", file=sys.stderr)
    assert capfd.readouterr().err == "voice-ref: could not speak\nafter\n"


def oracle_play(card, tmp_path: Path) -> tuple[subprocess.Popen, object, object]:
    """Live `play --json` on the card with the script-reading recognizer (no model), once
    the opening has been said: the process and its stdout / stderr lines."""
    from table_audio import SHORT_GAME, short_game_config
    from test_live_table import Lines, ctrl_c_works

    from voice_ref.voice.session import listening_line

    lines = tmp_path / "lines.json"
    lines.write_text(json.dumps([text for _, text in SHORT_GAME]), encoding="utf-8")
    oracle = Path(__file__).with_name("oracle_recognizer.py")
    config = short_game_config(tmp_path / "config.toml", tmp_path / "no-model")
    live = subprocess.Popen(
        [sys.executable, str(oracle), str(lines), "--", "--config", str(config), "play",
         "--json", "--state-dir", str(tmp_path / "live")],
        env=card.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        encoding="utf-8", preexec_fn=ctrl_c_works,
    )
    out, err = Lines(live.stdout), Lines(live.stderr)
    json.loads(out.next(timeout=180.0))  # the opening
    err.wait_for(listening_line(1), timeout=180.0)
    return live, out, err


@pytest.mark.audio_devices
def test_a_microphone_unplugged_and_plugged_back_is_heard_again(own_card, tmp_path):
    """The card's air (microphone and loudspeaker) taken away mid-game and put back, as a
    USB speakerphone pulled out and plugged in: PortAudio ends the stream for good, so
    only a stream opened again hears the next player, without restarting the referee."""
    from table_audio import SHORT_GAME, utterance_wav, voice_of

    who, text = SHORT_GAME[0]
    clip = utterance_wav(text, tmp_path / "first.wav", voice_of(who))
    live, out, err = oracle_play(own_card, tmp_path)
    try:
        own_card.unplug()
        err.wait_for("has delivered no audio", timeout=60.0)
        time.sleep(2.5)  # a try to open it again while it is away
        own_card.plug_back()
        err.wait_for("delivers audio again", timeout=60.0)
        time.sleep(4.0)  # "Ya escucho de nuevo…" is said; players wait for it to end
        own_card.play(clip)
        reply = json.loads(out.next(timeout=60.0))
        live.send_signal(signal.SIGINT)
        assert live.wait(timeout=120) == 0, "".join(err.all)
    finally:
        if live.poll() is None:
            live.kill()
    err.read_to_end(timeout=30)
    assert reply["heard"] == text and reply["accepted"], reply
    # The tries while it was away said nothing of their own (PortAudio's C diagnostics of a
    # failed open are several lines each); its warning said that it is tried again.
    stderr = "".join(err.all)
    assert "FinishConfigure( &self->capture" not in stderr
    assert "opened again every 2 s" in stderr
    assert reply["state"]["bid"]["by"] == who
