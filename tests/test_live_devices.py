"""`voice-ref devices` and `voice-ref say` against a virtual sound card, and without one."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import pytest
from pulse_helpers import SINK

VOICE_REF = [sys.executable, "-m", "voice_ref"]


def no_sound_server_env() -> dict[str, str]:
    env = dict(os.environ)
    env["XDG_RUNTIME_DIR"] = tempfile.mkdtemp()
    env.pop("PULSE_SERVER", None)
    return env


@pytest.mark.audio_devices
def test_devices_lists_the_virtual_microphone_and_loudspeaker(card):
    run = subprocess.run([*VOICE_REF, "devices"], env=card.env(), capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "microphone (default)" in run.stdout
    assert "loudspeaker (default)" in run.stdout


@pytest.mark.audio_devices
def test_say_is_heard_on_the_table(card):
    """What `voice-ref say` plays really reaches the air the microphone listens to."""
    recorder = subprocess.Popen(
        ["parec", f"--device={SINK}.monitor", "--raw", "--format=s16le", "--rate=16000",
         "--channels=1"],
        env=card.env(), stdout=subprocess.PIPE,
    )
    chunks: list[bytes] = []
    recording = threading.Event()

    def collect() -> None:
        while chunk := recorder.stdout.read1(4096):
            chunks.append(chunk)
            recording.set()

    reader = threading.Thread(target=collect, daemon=True)
    reader.start()
    try:
        # Speak only once the recorder really delivers audio (slow to start on a busy machine).
        assert recording.wait(15), "parec delivered no audio from the virtual card"
        # The timeout only bounds a hang: on a saturated machine (load 15 on 2 cores) the
        # sound server plays far slower than real time and one sentence took over 60 s.
        run = subprocess.run([*VOICE_REF, "say", "Cinco quinas. Beto, te toca."],
                             env=card.env(), capture_output=True, text=True, timeout=300)
        # The recorder may lag behind the sink on a busy machine: wait for the speech to
        # come through (or for a deadline that only bounds a broken setup).
        deadline = time.monotonic() + 30
        while loud_seconds(chunks) <= 0.3 and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        recorder.terminate()
        reader.join(timeout=10)
    assert run.returncode == 0, run.stderr
    assert loud_seconds(chunks) > 0.3  # more than 0.3 s of speech came through


def loud_seconds(chunks: list[bytes]) -> float:
    """How much of the 16 kHz s16le recording is louder than background."""
    data = b"".join(list(chunks))
    audio = np.frombuffer(data[: len(data) // 2 * 2], dtype="<i2") / 32768.0
    return float((np.abs(audio) > 0.05).sum()) / 16000


def test_devices_and_say_explain_a_missing_sound_system():
    env = no_sound_server_env()
    devices = subprocess.run([*VOICE_REF, "devices"], env=env, capture_output=True, text=True,
                             timeout=60)
    if devices.returncode == 0:
        pytest.skip("this machine has sound hardware even without a sound server")
    assert devices.returncode == 2
    assert "--text" in devices.stdout and "Traceback" not in devices.stderr
    say = subprocess.run([*VOICE_REF, "say", "hola"], env=env, capture_output=True, text=True,
                         timeout=60)
    assert say.returncode == 2
    assert "--out" in say.stderr and "Traceback" not in say.stderr


@pytest.mark.parametrize(
    ("audio", "live", "says"),
    [
        ('output_device = "altavoz que no existe"', False,
         "Loudspeaker 'altavoz que no existe' (config.toml [audio] output_device) not found"),
        ('input_device = "micrófono que no existe"', True,
         "Microphone 'micrófono que no existe' (config.toml [audio] input_device) not found"),
    ],
)
def test_a_device_setting_that_names_nothing_is_said_before_anything_loads(
    tmp_path, audio, live, says
):
    """Whoever set the table up reads which setting names no device, and how to go on,
    at once (no model is loaded, nothing is said), instead of a silent referee."""
    from voice_ref.voice.audio_in import write_wav

    config = tmp_path / "config.toml"
    config.write_text(f"[audio]\n{audio}\n", encoding="utf-8")
    clip = tmp_path / "table.wav"
    write_wav(clip, np.zeros(16000, np.float32), 16000)
    source = [] if live else ["--input", str(clip)]
    run = subprocess.run([*VOICE_REF, "--config", str(config), "play", *source,
                          "--state-dir", str(tmp_path / "state")],
                         env=no_sound_server_env(), capture_output=True, text=True, timeout=60)
    assert run.returncode == 2, run.stderr
    assert says in run.stderr and "Traceback" not in run.stderr
    assert ("--silent" if not live else "--text") in run.stderr
    assert "voice-ref devices" in run.stderr
    assert "Árbitro" not in run.stdout and not (tmp_path / "state" / "game.jsonl").exists()
