"""The announcer: real Spanish synthesis, queueing, urgent interruption, and the deaf window."""

from __future__ import annotations

import threading
import time
import wave

import numpy as np
import pytest

from voice_ref.cli import main as cli_main
from voice_ref.config import VoiceSettings
from voice_ref.voice.announcer import (
    Announcer,
    PlayEnd,
    PrintOutput,
    SoundOutput,
    Speech,
    Synthesizer,
)

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

    def play(self, speech: Speech, stop: threading.Event, on_start=lambda: None) -> PlayEnd:
        on_start()
        self.events.append(("start", speech.text))
        finished = not stop.wait(speech.duration_s)
        self.events.append(("end" if finished else "cut", speech.text))
        return PlayEnd.FINISHED if finished else PlayEnd.STOPPED


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
    assert ann.last_spoken is None
    before = time.monotonic()
    time.sleep(0.01)
    ann.say("cinco quinas")
    assert ann.deaf_at(time.monotonic())  # queued counts as speaking
    assert ann.wait_idle(timeout=5)
    start, end = ann.last_spoken  # the window `voice-ref check` times its prompt by
    assert before < start < end
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


# ------------------------------------------------------------ SoundOutput's deadline
#
# No real time: the fake device takes one buffer each time the player reads the clock,
# and the clock moves by `step` seconds per read, so "a device at a fifth of real time" or
# "a device that takes nothing" are exact, whatever the machine's load.


class FakeDevice:
    """An output stream pumped by the clock: `speed` buffers of audio per clock step
    (0: stalled, it never asks for audio). Reports `finished` once `fill` says the clip is
    over, unless aborted first."""

    def __init__(self, fill, finished, *, pumping: bool, block: int) -> None:
        self.fill, self.finished, self.pumping, self.block = fill, finished, pumping, block
        self.aborted = False
        self.over = False
        self.played: list[np.ndarray] = []

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass

    def abort(self) -> None:
        self.aborted = True

    def pump(self) -> None:
        if not self.pumping or self.aborted or self.over:
            return
        out = np.full(self.block, np.nan, np.float32)
        self.over = self.fill(out)
        self.played.append(out)
        if self.over:
            self.finished()


class FakeBackend:
    """Opens fake devices; the first `stalled` of them never take audio."""

    def __init__(self, *, stalled: int = 0, rate: int | None = None, block: int = 512) -> None:
        self.stalled, self.rate, self.block = stalled, rate, block
        self.devices: list[FakeDevice] = []
        self.opened = threading.Event()

    def output_rate(self, device, rate: int) -> int:
        return self.rate or rate

    def open(self, device, rate, fill, finished) -> FakeDevice:
        pumping = len(self.devices) >= self.stalled
        self.devices.append(FakeDevice(fill, finished, pumping=pumping, block=self.block))
        self.opened.set()
        return self.devices[-1]


class PumpClock:
    """Moves `step` seconds per read and lets the fake device take one buffer."""

    def __init__(self, backend: FakeBackend, step: float) -> None:
        self.backend, self.step, self.now = backend, step, 100.0

    def __call__(self) -> float:
        for device in self.backend.devices[-1:]:
            device.pump()
        self.now += self.step
        return self.now


def clip(seconds: float, rate: int = 16000) -> Speech:
    return Speech("cinco quinas", np.linspace(-0.5, 0.5, int(rate * seconds), dtype=np.float32),
                  rate)


def output(backend: FakeBackend, step: float, **kw) -> tuple[SoundOutput, PumpClock]:
    clock = PumpClock(backend, step)
    return SoundOutput(backend=backend, clock=clock, poll_s=0.0005, **kw), clock


def test_sound_output_plays_the_whole_clip_and_nothing_after_it():
    backend = FakeBackend()
    out, _ = output(backend, step=512 / 16000)  # a device in real time
    speech = clip(0.5)
    started = []
    end = out.play(speech, threading.Event(), on_start=lambda: started.append(1))
    assert end is PlayEnd.FINISHED
    played = np.concatenate(backend.devices[0].played)
    n = len(speech.samples)
    assert started == [1]
    assert np.array_equal(played[:n], speech.samples)
    assert not played[n:].any()  # the rest of the last buffer is silence
    assert not backend.devices[0].aborted


def test_a_device_that_takes_no_audio_is_given_up_after_the_stall_limit():
    backend = FakeBackend(stalled=1)
    out, clock = output(backend, step=0.25, stall_s=5.0)
    assert out.play(clip(3.0), threading.Event()) is PlayEnd.NO_AUDIO
    assert backend.devices[0].aborted
    opened = 100.25  # the first clock read, once the stream is open
    assert opened + 5.0 <= clock.now <= opened + 5.0 + 0.25  # long before 6 x 3 s + 2 s


class PausingClock(PumpClock):
    """A device in real time that takes nothing for `pause_s` from `pause_at` on."""

    def __init__(self, backend: FakeBackend, pause_at: float, pause_s: float) -> None:
        super().__init__(backend, 512 / 16000)
        self.pause = (pause_at, pause_at + pause_s)

    def __call__(self) -> float:
        if self.pause[0] <= self.now < self.pause[1]:
            self.now += self.step
            return self.now
        return super().__call__()


@pytest.mark.parametrize(("pause_s", "end"), [(4.9, PlayEnd.FINISHED),
                                              (5.1, PlayEnd.TIMED_OUT)])
def test_a_device_pausing_mid_sentence_is_given_up_only_after_the_stall_limit(pause_s, end):
    """PulseAudio on a busy machine pauses up to 2 s between buffers and then plays on."""
    backend = FakeBackend()
    clock = PausingClock(backend, pause_at=101.0, pause_s=pause_s)
    out = SoundOutput(backend=backend, clock=clock, poll_s=0.0005, stall_s=5.0)
    assert out.play(clip(2.0), threading.Event()) is end
    assert backend.devices[0].played  # it had played before the pause


def test_a_crawling_device_is_cut_off_at_the_slowdown_limit():
    backend = FakeBackend()
    # an eighth of real time: 512 samples (32 ms) per 256 ms step; still taking audio
    out, clock = output(backend, step=8 * 512 / 16000, slowdown=6.0, margin_s=2.0)
    speech = clip(3.0)
    assert out.time_limit(3.0) == 20.0
    assert out.play(speech, threading.Event()) is PlayEnd.TIMED_OUT
    device = backend.devices[0]
    assert device.aborted and not device.over
    played = sum(len(b) for b in device.played)
    assert 0 < played < len(speech.samples)
    opened = 100.0 + 0.256
    assert opened + 20.0 <= clock.now <= opened + 20.0 + 0.26


def test_a_slow_device_within_the_limit_plays_to_the_end():
    backend = FakeBackend()
    out, clock = output(backend, step=5 * 512 / 16000)  # a fifth of real time
    assert out.play(clip(2.0), threading.Event()) is PlayEnd.FINISHED
    assert not backend.devices[0].aborted and backend.devices[0].over


def test_the_limit_follows_the_resampled_clip():
    backend = FakeBackend(rate=48000, block=4800)
    # 22.05 kHz speech on a 48 kHz card: 10 s either way; 0.1 s of audio per 1 s step
    out, clock = output(backend, step=1.0, slowdown=4.0, margin_s=1.0)
    assert out.play(clip(10.0, rate=22050), threading.Event()) is PlayEnd.TIMED_OUT
    assert 101.0 + 41.0 <= clock.now <= 101.0 + 41.0 + 1.0


def test_stop_aborts_a_stalled_device_without_waiting_for_the_deadline():
    backend = FakeBackend(stalled=1)
    out, _ = output(backend, step=0.0)  # time stands still: only `stop` can end the wait
    stop = threading.Event()
    stopper = threading.Timer(0.05, stop.set)
    stopper.start()
    assert out.play(clip(1.0), stop) is PlayEnd.STOPPED
    assert backend.devices[0].aborted


def test_an_urgent_line_cuts_off_a_stalled_device_in_the_announcer():
    backend = FakeBackend(stalled=1)
    out, _ = output(backend, step=0.0)  # time stands still; the second device plays anyway
    ann = Announcer(SETTINGS, out, holdoff_s=0.0, render=lambda text: clip(1.0))
    ann.say("cinco quinas")
    assert backend.opened.wait(10)
    ann.say("Beto duda.", urgent=True)
    assert ann.wait_idle(timeout=10)
    assert backend.devices[0].aborted and not backend.devices[0].over
    assert ann.spoken_texts == ["cinco quinas", "Beto duda."]
    assert ann.errors == []
    ann.close()
