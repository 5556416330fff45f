"""The announcer: real Spanish synthesis, queueing, urgent interruption, and the deaf window."""

from __future__ import annotations

import threading
import time
import wave

import numpy as np

from voice_ref.cli import main as cli_main
from voice_ref.config import VoiceSettings
from voice_ref.voice.announcer import Announcer, PrintOutput, Speech, Synthesizer

SETTINGS = VoiceSettings(voice="es-419", rate=165, volume=1.0)


def test_synthesizer_renders_audible_speech_that_grows_with_the_text():
    synth = Synthesizer(SETTINGS)
    short = synth.render("Dudo.")
    long = synth.render("Cinco quinas. Le toca a Beto. Mínimo: tres ases o cinco sextos.")
    assert short.duration_s > 0.2
    assert long.duration_s > 2 * short.duration_s
    assert np.abs(long.samples).max() > 0.05  # not silence


def test_espeak_fallback_gives_the_same_kind_of_audio():
    synth = Synthesizer(SETTINGS)
    synth._use_cli = True  # what happens when pyttsx3 cannot start
    speech = synth.render("Tres ases")
    assert speech.duration_s > 0.3
    assert np.abs(speech.samples).max() > 0.05


def test_faster_rate_gives_shorter_speech():
    text = "Siete trenes, le toca a Carla"
    slow = Synthesizer(VoiceSettings(rate=120)).render(text)
    fast = Synthesizer(VoiceSettings(rate=240)).render(text)
    assert fast.duration_s < slow.duration_s


def test_say_writes_a_wav_and_keeps_stdout_clean(tmp_path, capsys):
    out = tmp_path / "say.wav"
    assert cli_main(["say", "Cinco quinas", "--rate", "180", "--out", str(out)]) == 0
    with wave.open(str(out)) as wav:
        assert wav.getnframes() / wav.getframerate() > 0.3
    printed = capsys.readouterr().out
    assert "Audio saved" not in printed  # pyttsx3's own print must not reach stdout
    assert str(out) in printed


class FakeSpeaker:
    """Plays for `speech.duration_s` real seconds unless stopped; records what happened."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def play(self, speech: Speech, stop: threading.Event, on_start=lambda: None) -> bool:
        on_start()
        self.events.append(("start", speech.text))
        finished = not stop.wait(speech.duration_s)
        self.events.append(("end" if finished else "cut", speech.text))
        return finished


def fixed_length(seconds: float):
    return lambda text: Speech(text, np.zeros(int(16000 * seconds), np.float32), 16000)


def test_announcements_are_spoken_in_order():
    speaker = FakeSpeaker()
    ann = Announcer(SETTINGS, speaker, holdoff_s=0.0, render=fixed_length(0.05))
    for text in ("uno", "dos", "tres"):
        ann.say(text)
    assert ann.wait_idle(timeout=5)
    assert ann.spoken_texts == ["uno", "dos", "tres"]
    assert [e for e in speaker.events if e[0] == "cut"] == []
    ann.close()


def test_urgent_announcement_cuts_the_current_one_and_drops_the_queue():
    speaker = FakeSpeaker()
    ann = Announcer(SETTINGS, speaker, holdoff_s=0.0, render=fixed_length(2.0))
    ann.say("largo")
    ann.say("en cola")
    deadline = time.monotonic() + 5
    while not speaker.events and time.monotonic() < deadline:
        time.sleep(0.01)
    ann.say("urgente", urgent=True)
    ann.wait_idle(timeout=10)
    assert ("cut", "largo") in speaker.events
    assert ann.spoken_texts == ["largo", "urgente"]  # "en cola" was never said
    ann.close()


def test_urgent_announcement_cancels_one_still_being_rendered():
    rendering = threading.Event()

    def slow_render(text: str) -> Speech:
        rendering.set()
        time.sleep(0.3)
        return fixed_length(0.5)(text)

    speaker = FakeSpeaker()
    ann = Announcer(SETTINGS, speaker, holdoff_s=0.0, render=slow_render)
    ann.say("viejo")
    assert rendering.wait(5)
    ann.say("urgente", urgent=True)
    assert ann.wait_idle(timeout=10)
    assert ann.spoken_texts == ["urgente"]
    ann.close()


def test_deaf_while_speaking_and_for_the_holdoff_after():
    speaker = FakeSpeaker()
    ann = Announcer(SETTINGS, speaker, holdoff_s=0.3, render=fixed_length(0.2))
    before = time.monotonic()
    time.sleep(0.01)
    ann.say("cinco quinas")
    assert ann.deaf_at(time.monotonic())  # queued counts as speaking
    assert ann.wait_idle(timeout=5)
    start, end = ann._spoken[-1]
    assert not ann.deaf_at(before)
    assert ann.deaf_at((start + end) / 2)
    assert ann.deaf_at(end + 0.25)
    assert not ann.deaf_at(end + 0.35)
    ann.close()


def test_silent_mode_prints_instead_of_speaking():
    printed: list[str] = []
    ann = Announcer(SETTINGS, PrintOutput(printed.append), holdoff_s=0.3)
    ann.say("Le toca a Ana.")
    ann.say("   ")  # nothing to say: ignored
    assert ann.wait_idle(timeout=5)
    assert printed == ["Le toca a Ana."]
    ann.close()


def test_a_failing_speaker_does_not_stop_the_announcer(capsys):
    class Broken(FakeSpeaker):
        def play(self, speech, stop, on_start=lambda: None):
            raise OSError("no device")

    ann = Announcer(SETTINGS, Broken(), holdoff_s=0.0, render=fixed_length(0.01))
    ann.say("hola")
    ann.say("chao")
    assert ann.wait_idle(timeout=5)
    assert len(ann.errors) == 2
    assert "chao" in capsys.readouterr().err
    ann.close()
