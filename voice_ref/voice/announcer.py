"""The referee's voice: text → WAV (pyttsx3 / espeak-ng) → loudspeaker (sounddevice).

pyttsx3's own playback (`say` + `runAndWait`) blocks, speaks through `aplay` and gives no
reliable "speech has ended" signal on Linux. So every announcement is first rendered to
samples (`engine.save_to_file` + `runAndWait`, which is synchronous and works repeatedly in
one process with the espeak driver) and then played with a sounddevice stream we own. The
program therefore knows exactly when it is speaking, which is what keeps the microphone
from recognizing the referee's own voice (`Announcer.deaf_at`).

If pyttsx3 cannot start (no libespeak-ng, an odd driver), the `espeak-ng` program is called
directly instead: same voice, same rate, same WAV.

Which voice: `voices.choose_voice` — the configured one, or with `voice = "auto"` the most
natural Spanish voice installed (system voices on macOS / Windows, MBROLA on Linux, else
espeak-ng). `voice-ref say --list` shows what was found.
"""

from __future__ import annotations

import argparse
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Protocol

import numpy as np

from voice_ref.config import AudioSettings, VoiceSettings, load_config
from voice_ref.voice.audio_in import device_or_default, read_wav, write_wav
from voice_ref.voice.voices import (
    Voice,
    VoiceKind,
    choose_voice,
    espeak_program,
    installed_voices,
    ranked,
)

SPEECH_RATE = 22050  # espeak-ng's own sample rate: its WAVs are read without resampling


@dataclass(frozen=True)
class Speech:
    """One rendered announcement."""

    text: str
    samples: np.ndarray  # float32 mono in [-1, 1]
    sample_rate: int

    @property
    def duration_s(self) -> float:
        return len(self.samples) / self.sample_rate


class Synthesizer:
    """Renders text with the configured Spanish voice. Not thread-safe: one thread uses it."""

    def __init__(self, settings: VoiceSettings, voice: Voice | None = None) -> None:
        self.settings = settings
        self._voice = voice
        self._engine = None
        self._use_cli = False

    @property
    def voice(self) -> Voice:
        """The voice in use (chosen on first use: discovery runs espeak-ng once)."""
        if self._voice is None:
            self._voice = choose_voice(installed_voices(), self.settings.voice)
        return self._voice

    def render(self, text: str) -> Speech:
        with tempfile.TemporaryDirectory(prefix="voice_ref_tts_") as tmp:
            path = Path(tmp) / "say.wav"
            if self.voice.kind is VoiceKind.MBROLA:
                self._use_cli = True  # MBROLA voices are reached through espeak-ng
            if not self._use_cli:
                try:
                    self._render_pyttsx3(text, path)
                except Exception:  # any driver failure: use the CLI fallback
                    self._use_cli = True
            if self._use_cli:
                self._render_cli(text, path)
            return Speech(text, read_wav(path, sample_rate=SPEECH_RATE), SPEECH_RATE)

    def _render_pyttsx3(self, text: str, path: Path) -> None:
        if self._engine is None:
            import pyttsx3

            if self.voice.kind is VoiceKind.NATIVE:
                engine = pyttsx3.init()  # the platform's own driver (nsss, sapi5)
            else:
                import pyttsx3.drivers.espeak as espeak_driver

                # The espeak driver prints "Audio saved to ..." on stdout, our JSON channel.
                # Swapping sys.stdout around the call is not thread-safe, so the driver
                # module gets its own silent `print` instead.
                espeak_driver.print = lambda *_args, **_kwargs: None
                engine = pyttsx3.init("espeak")
            engine.setProperty("voice", self.voice.ident)
            engine.setProperty("rate", self.settings.rate)
            engine.setProperty("volume", self.settings.volume)
            self._engine = engine
        self._engine.save_to_file(text, str(path))
        self._engine.runAndWait()
        if not path.exists() or path.stat().st_size <= 44:
            raise RuntimeError("pyttsx3 wrote no audio")

    def _render_cli(self, text: str, path: Path) -> None:
        exe = espeak_program()
        if exe is None:
            raise RuntimeError(
                "No speech synthesizer: install espeak-ng (apt install espeak-ng) "
                "or use --silent."
            )
        amplitude = str(round(max(0.0, min(1.0, self.settings.volume)) * 100))
        # A system voice that failed is replaced by espeak-ng's own Spanish.
        name = "es-419" if self.voice.kind is VoiceKind.NATIVE else self.voice.ident
        subprocess.run(
            [exe, "-v", name, "-s", str(self.settings.rate), "-a", amplitude,
             "-w", str(path), text],
            check=True,
            capture_output=True,
        )


class PlayEnd(Enum):
    """How a playback ended."""

    FINISHED = "finished"  # played to the end
    STOPPED = "stopped"  # cut off by `stop` (an urgent line, closing)
    TIMED_OUT = "timed_out"  # cut off: too slow (see SLOWDOWN), or it stopped taking audio
    NO_AUDIO = "no_audio"  # cut off: the device never took any audio (see STALL_S)


# How long a clip may take to play before the stream is aborted instead of waited for:
# SLOWDOWN times its length plus DRAIN_MARGIN_S. A sound card plays in real time, but a
# busy machine's sound server may not: at load 7-9 on 2 cores PulseAudio took 4.7-14.8 s
# for a 2.7 s line, with pauses of up to 2.0 s between buffers (and over 60 s at load 15).
# A device that takes no samples for STALL_S is given up before that.
SLOWDOWN = 6.0
DRAIN_MARGIN_S = 2.0
STALL_S = 5.0
# The device buffer. PortAudio's "low" (8.5 ms on PulseAudio) underran at load 10 on 2 cores,
# and every underrun lost speech (a test heard 0.22 s of a sentence's 0.40 s of loud
# speech). A cut-off stays immediate (`abort` drops the buffer) and the deaf window ends
# when the stream reports it drained, so a longer buffer costs the table nothing.
OUTPUT_LATENCY_S = 0.1


class OutputStream(Protocol):
    """The part of a sounddevice stream that `SoundOutput` uses (a test can fake it)."""

    def __enter__(self) -> OutputStream: ...

    def __exit__(self, *exc: object) -> None: ...

    def abort(self) -> None: ...


class AudioBackend(Protocol):
    """Opens output streams: sounddevice on a real machine, a fake stream in tests.

    `fill(out)` writes the next samples into the 1-D float32 buffer `out` and returns True
    once the clip is over; `finished()` is called when the stream has drained or stopped.
    """

    def output_rate(self, device: str | int, rate: int) -> int: ...

    def open(
        self, device: str | int, rate: int, fill: Callable[[np.ndarray], bool],
        finished: Callable[[], None],
    ) -> OutputStream: ...


class SoundDeviceBackend:
    """`AudioBackend` on sounddevice (PortAudio)."""

    def output_rate(self, device: str | int, rate: int) -> int:
        import sounddevice as sd

        try:
            sd.check_output_settings(device=device, samplerate=rate, channels=1)
            return rate
        except sd.PortAudioError:  # many real sound cards only take 44.1 / 48 kHz
            return int(sd.query_devices(device, "output")["default_samplerate"])

    def open(
        self, device: str | int, rate: int, fill: Callable[[np.ndarray], bool],
        finished: Callable[[], None],
    ) -> OutputStream:
        import sounddevice as sd

        def callback(outdata, _frames, _time, _status) -> None:
            if fill(outdata[:, 0]):
                raise sd.CallbackStop

        return sd.OutputStream(
            samplerate=rate, channels=1, dtype="float32", device=device,
            callback=callback, finished_callback=finished, latency=OUTPUT_LATENCY_S,
        )


class SoundOutput:
    """Plays samples on one output device; setting `stop` cuts it off mid-sentence.

    The wait for the device has a deadline (`slowdown` x the clip's length + `margin_s`),
    and a device that takes no samples for `stall_s` is given up: under heavy load a
    stream may crawl, stall or never report that it drained, and the referee must not
    hang on it (`voice-ref say` once waited over a minute).
    """

    def __init__(
        self,
        device: str | int = "",
        *,
        backend: AudioBackend | None = None,
        clock: Callable[[], float] = time.monotonic,
        slowdown: float = SLOWDOWN,
        margin_s: float = DRAIN_MARGIN_S,
        stall_s: float = STALL_S,
        poll_s: float = 0.05,
    ) -> None:
        self.backend = backend or SoundDeviceBackend()
        self.device = device_or_default(device) if backend is None else device
        self.clock = clock
        self.slowdown = slowdown
        self.margin_s = margin_s
        self.stall_s = stall_s
        self.poll_s = poll_s

    def time_limit(self, duration_s: float) -> float:
        """The longest a clip of `duration_s` may take to play."""
        return self.slowdown * duration_s + self.margin_s

    def play(
        self, speech: Speech, stop: threading.Event, on_start: Callable[[], None] = lambda: None
    ) -> PlayEnd:
        """Play to the end, until `stop` is set, or until the deadline. Blocks."""
        samples, rate = speech.samples, speech.sample_rate
        device_rate = self.backend.output_rate(self.device, rate)
        if device_rate != rate:
            import soxr

            samples = soxr.resample(samples, rate, device_rate).astype(np.float32)
            rate = device_rate
        done = threading.Event()
        position = 0

        def fill(out: np.ndarray) -> bool:
            nonlocal position
            chunk = samples[position : position + len(out)]
            out[: len(chunk)] = chunk
            out[len(chunk) :] = 0.0
            position += len(chunk)
            return stop.is_set() or position >= len(samples)

        end = PlayEnd.FINISHED
        with self.backend.open(self.device, rate, fill, done.set) as stream:
            opened = moved = self.clock()
            deadline = opened + self.time_limit(len(samples) / rate)
            seen = position
            on_start()
            while not done.wait(self.poll_s):
                now = self.clock()
                if position != seen:  # the device took samples since the last look
                    seen, moved = position, now
                if stop.is_set():
                    end = PlayEnd.STOPPED
                elif now >= deadline or now - moved >= self.stall_s:
                    end = PlayEnd.TIMED_OUT if position else PlayEnd.NO_AUDIO
                else:
                    continue
                stream.abort()  # drop what is buffered: do not wait for a stalled device
                break
        if end is PlayEnd.FINISHED and stop.is_set():
            end = PlayEnd.STOPPED
        return end


class PrintOutput:
    """`--silent`: the announcement is printed (or handed to a callback) instead of spoken."""

    def __init__(self, echo: Callable[[str], None] | None = None) -> None:
        self.echo = echo or (lambda text: print(f"Árbitro: {text}", flush=True))

    def play(
        self, speech: Speech, stop: threading.Event, on_start: Callable[[], None] = lambda: None
    ) -> PlayEnd:
        on_start()
        self.echo(speech.text)
        return PlayEnd.FINISHED


class Announcer:
    """A queue of announcements spoken one after another on a worker thread.

    `say(text, urgent=True)` drops what is queued and cuts off what is being said (an
    illegal bid must be heard at once). `deaf_at(t)` tells the listening loop whether
    microphone audio captured at monotonic time `t` may contain the referee's own voice.
    """

    def __init__(
        self,
        settings: VoiceSettings,
        output: SoundOutput | PrintOutput,
        *,
        holdoff_s: float = AudioSettings.holdoff_s,
        render: Callable[[str], Speech] | None = None,
    ) -> None:
        self.output = output
        self.holdoff_s = holdoff_s
        self._silent = isinstance(output, PrintOutput)
        self._render = render or (
            (lambda text: Speech(text, np.zeros(0, np.float32), 16000))
            if self._silent
            else Synthesizer(settings).render
        )
        self._queue: queue.Queue[tuple[str, int] | None] = queue.Queue()
        self._lock = threading.Lock()
        self._epoch = 0  # bumped by every urgent line: older lines are not said any more
        self._stop_current = threading.Event()
        self._pending = 0  # queued or being spoken
        self._busy_since: float | None = None  # start of the current deaf period
        self._spoken: deque[tuple[float, float]] = deque(maxlen=64)  # (start, end) monotonic
        self._idle = threading.Event()
        self._idle.set()
        self.spoken_texts: list[str] = []  # what was actually said, in order
        self.errors: list[str] = []
        self._thread = threading.Thread(target=self._run, name="announcer", daemon=True)
        self._thread.start()

    def say(self, text: str, *, urgent: bool = False) -> None:
        text = text.strip()
        if not text:
            return
        with self._lock:
            if urgent:
                self._drop_queued()
                self._epoch += 1
                self._stop_current.set()
            self._pending += 1
            if self._busy_since is None:
                self._busy_since = time.monotonic()
            self._idle.clear()
            self._queue.put((text, self._epoch))

    def _drop_queued(self) -> None:
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if item is not None:
                self._pending -= 1

    @property
    def speaking(self) -> bool:
        """True while an announcement is queued or playing."""
        return self._pending > 0

    @property
    def last_spoken(self) -> tuple[float, float] | None:
        """The last deaf window's (start, end) before its hold-off, monotonic: from the
        moment a line was queued to when the loudspeaker reported it played."""
        with self._lock:
            return self._spoken[-1] if self._spoken else None

    def deaf_at(self, t: float) -> bool:
        """Whether audio captured at monotonic time `t` must not be recognized."""
        with self._lock:
            if self._busy_since is not None and t >= self._busy_since:
                return True
            return any(start <= t <= end + self.holdoff_s for start, end in self._spoken)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until everything queued has been said (and the hold-off has passed)."""
        if not self._idle.wait(timeout):
            return False
        if not self._silent:
            time.sleep(self.holdoff_s)
        return True

    def close(self) -> None:
        with self._lock:
            self._drop_queued()
            self._epoch += 1
            self._stop_current.set()
        self._queue.put(None)
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            text, epoch = item
            try:
                with self._lock:
                    stop = self._stop_current = threading.Event()
                    if epoch != self._epoch:  # an urgent line came while this one was taken
                        stop.set()
                speech = self._render(text)
                if not stop.is_set():
                    end = self.output.play(speech, stop,
                                           on_start=lambda t=text: self.spoken_texts.append(t))
                    if end in (PlayEnd.TIMED_OUT, PlayEnd.NO_AUDIO):
                        self.errors.append(f"timed out: {text}")
                        print(f"voice-ref: the loudspeaker did not finish in time; cut off: "
                              f"{text}", file=sys.stderr, flush=True)
            except Exception as exc:  # a broken speaker must not stop the game
                self.errors.append(f"{type(exc).__name__}: {exc}")
                print(f"voice-ref: could not speak ({exc}); the text was: {text}",
                      file=sys.stderr, flush=True)
            finally:
                with self._lock:
                    self._pending -= 1
                    if self._pending <= 0:
                        self._pending = 0
                        if self._busy_since is not None:
                            self._spoken.append((self._busy_since, time.monotonic()))
                        self._busy_since = None
                        self._idle.set()


def make_announcer(
    settings: VoiceSettings,
    *,
    silent: bool,
    output_device: str | int = "",
    holdoff_s: float = AudioSettings.holdoff_s,
    echo: Callable[[str], None] | None = None,
) -> Announcer:
    output = PrintOutput(echo) if silent else SoundOutput(output_device)
    return Announcer(settings, output, holdoff_s=holdoff_s)


def main_say(args: argparse.Namespace) -> int:
    """`voice-ref say "texto" [--voice V] [--rate N] [--out file.wav]`, or `say --list`."""
    config = load_config(getattr(args, "config", None))
    settings = VoiceSettings(
        voice=args.voice or config.voice.voice,
        rate=args.rate or config.voice.rate,
        volume=config.voice.volume,
    )
    if getattr(args, "list", False):
        return list_voices(settings.voice)
    if not args.text:
        print('voice-ref say: give a sentence to say, e.g. voice-ref say "Cinco quinas".',
              file=sys.stderr)
        return 2
    synthesizer = Synthesizer(settings)
    settings = VoiceSettings(voice=synthesizer.voice.ident, rate=settings.rate,
                             volume=settings.volume)
    try:
        speech = synthesizer.render(args.text)
    except (RuntimeError, subprocess.CalledProcessError) as exc:
        print(f"voice-ref say: could not synthesize speech: {exc}", file=sys.stderr)
        return 2
    if args.out:
        write_wav(args.out, speech.samples, speech.sample_rate)
        print(f"{args.out}: {speech.duration_s:.2f} s, voice {settings.voice}, "
              f"{settings.rate} words/min")
        return 0
    output = SoundOutput(config.audio.output_device)
    try:
        end = output.play(speech, threading.Event())
    except Exception as exc:  # explain any audio failure in plain words
        print(
            f"voice-ref say: no loudspeaker available ({exc}). "
            "Check `voice-ref devices` or write a file with --out say.wav.",
            file=sys.stderr,
        )
        return 2
    if end is PlayEnd.NO_AUDIO:
        print(
            f"voice-ref say: the loudspeaker took no audio in {output.stall_s:.0f} s. "
            "Check `voice-ref devices` or write a file with --out say.wav.",
            file=sys.stderr,
        )
        return 2
    if end is PlayEnd.TIMED_OUT:  # the loudspeaker works; the machine is too busy
        print(
            f"voice-ref say: warning: the loudspeaker had not finished {speech.duration_s:.1f} s "
            f"of speech within {output.time_limit(speech.duration_s):.1f} s, or paused over "
            f"{output.stall_s:.0f} s (a busy machine); playback was cut off.",
            file=sys.stderr,
        )
    return 0


def list_voices(configured: str) -> int:
    """`voice-ref say --list`: the Spanish voices found, best first, and the one in use."""
    found = ranked(installed_voices())
    chosen = choose_voice(found, configured)
    print(f"Spanish voices found ({len(found)}), most natural first:")
    for voice in found:
        mark = "*" if voice == chosen else " "
        print(f" {mark} {voice.describe()}")
    if chosen not in found:
        print(f" * {chosen.describe()}  (configured; not in the list, tried as given)")
    how = "automatic choice" if configured.strip().casefold() == "auto" else "set in config"
    print(f"In use: {chosen.ident} ({how}). Better voices: see README, \"The voice\".")
    if chosen.drops_sounds:
        print(f"Warning: {chosen.ident} leaves gaps where this espeak-ng has no MBROLA sound for "
              "a Spanish phoneme; players may not follow it. Set voice = \"auto\".")
    return 0
