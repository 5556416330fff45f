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
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from voice_ref.config import VoiceSettings, load_config
from voice_ref.voice.audio_in import device_or_default, read_wav, write_wav
from voice_ref.voice.voices import Voice, VoiceKind, choose_voice, installed_voices, ranked

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
        exe = shutil.which("espeak-ng") or shutil.which("espeak")
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


class SoundOutput:
    """Plays samples on one output device; setting `stop` cuts it off mid-sentence."""

    def __init__(self, device: str | int = "") -> None:
        self.device = device_or_default(device)

    def play(
        self, speech: Speech, stop: threading.Event, on_start: Callable[[], None] = lambda: None
    ) -> bool:
        """Play to the end (True) or until `stop` is set (False). Blocks."""
        import sounddevice as sd
        import soxr

        samples, rate = speech.samples, speech.sample_rate
        try:
            sd.check_output_settings(device=self.device, samplerate=rate, channels=1)
        except sd.PortAudioError:
            # Many real sound cards only take 44.1 / 48 kHz.
            device_rate = int(sd.query_devices(self.device, "output")["default_samplerate"])
            samples = soxr.resample(samples, rate, device_rate).astype(np.float32)
            rate = device_rate
        done = threading.Event()
        position = 0

        def callback(outdata, frames, _time, _status) -> None:
            nonlocal position
            chunk = samples[position : position + frames]
            outdata[: len(chunk), 0] = chunk
            outdata[len(chunk) :, 0] = 0.0
            position += len(chunk)
            if stop.is_set() or position >= len(samples):
                raise sd.CallbackStop

        with sd.OutputStream(
            samplerate=rate, channels=1, dtype="float32", device=self.device,
            callback=callback, finished_callback=done.set, latency="low",
        ):
            on_start()
            while not done.wait(0.05):
                pass
        return not stop.is_set()


class PrintOutput:
    """`--silent`: the announcement is printed (or handed to a callback) instead of spoken."""

    def __init__(self, echo: Callable[[str], None] | None = None) -> None:
        self.echo = echo or (lambda text: print(f"Árbitro: {text}", flush=True))

    def play(
        self, speech: Speech, stop: threading.Event, on_start: Callable[[], None] = lambda: None
    ) -> bool:
        on_start()
        self.echo(speech.text)
        return True


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
        holdoff_s: float = 0.3,
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
                    self.output.play(speech, stop,
                                     on_start=lambda t=text: self.spoken_texts.append(t))
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
    holdoff_s: float = 0.3,
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
    try:
        SoundOutput(config.audio.output_device).play(speech, threading.Event())
    except Exception as exc:  # explain any audio failure in plain words
        print(
            f"voice-ref say: no loudspeaker available ({exc}). "
            "Check `voice-ref devices` or write a file with --out say.wav.",
            file=sys.stderr,
        )
        return 2
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
    return 0
