"""The live microphone as a stream of timestamped float32 mono blocks.

PortAudio calls us on its own thread; blocks go into a queue together with the monotonic
time they were captured (`capture_end`), so the listening loop can drop exactly the audio
recorded while the referee was speaking, however long recognition takes to get to it.
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from voice_ref.voice.audio_in import AudioDeviceError, device_info, device_or_default


class MicrophoneUnavailable(RuntimeError):
    """No usable input device; the message says what is missing in plain words."""


NO_MIC_HELP = (
    "Without a microphone, type the table's words with `voice-ref play --text`, "
    "or referee a recording with `voice-ref play --input session.wav`. "
    "`voice-ref devices` lists the audio devices."
)


def capture_end(times, frames: int, rate: int) -> float:
    """Monotonic time at which the block's last sample was captured.

    The callback runs one input latency after the sound was in the air (0.3 s through
    PulseAudio); PortAudio's ADC timestamp takes that off, so the self-hearing guard does
    not depend on the latency of the sound system. Without a usable timestamp (some host
    APIs give 0), the arrival time is the best estimate."""
    now = time.monotonic()
    latency = times.currentTime - times.inputBufferAdcTime
    if times.inputBufferAdcTime <= 0 or not 0.0 <= latency < 2.0:
        return now
    return now - latency + frames / rate


# A stream PortAudio has ended (its device was unplugged) is opened again this often until
# the device is back: a table need not restart the referee after re-plugging a microphone.
REOPEN_EVERY_S = 2.0


class Microphone:
    """Opens the input device; iterate `blocks()` to get (capture_time, samples)."""

    def __init__(
        self, device: str | int = "", sample_rate: int = 16000, block_s: float = 0.1,
        reopen_every_s: float = REOPEN_EVERY_S,
    ) -> None:
        self.device = device_or_default(device)
        self.sample_rate = sample_rate
        self.block_s = block_s
        self.first_block = threading.Event()  # set when the first callback has arrived
        self.reopen_every_s = reopen_every_s
        self.overflows = 0
        self.reopens = 0  # streams opened again after their device went away
        self._queue: queue.Queue[tuple[float, np.ndarray]] = queue.Queue()
        self._stream = None
        self._closed = False

    def open(self) -> Microphone:
        try:
            info = device_info(self.device, "input")
        except AudioDeviceError as exc:
            raise MicrophoneUnavailable(f"{exc} {NO_MIC_HELP}") from None
        import sounddevice as sd

        device_rate = self.sample_rate
        try:
            sd.check_input_settings(device=self.device, samplerate=device_rate, channels=1)
        except sd.PortAudioError:
            device_rate = int(info["default_samplerate"])
        self._device_rate = device_rate
        try:
            self._start_stream()
        except sd.PortAudioError as exc:
            raise MicrophoneUnavailable(f"The microphone could not be opened ({exc}). "
                                        f"{NO_MIC_HELP}") from None
        return self

    def _start_stream(self) -> None:
        """Open and start a stream on the device; PortAudioError if it cannot be."""
        import sounddevice as sd

        device_rate = self._device_rate

        def callback(indata, frames, times, status) -> None:
            if status.input_overflow:
                self.overflows += 1
            self._queue.put((capture_end(times, frames, device_rate), indata[:, 0].copy()))
            self.first_block.set()

        stream = sd.InputStream(
            samplerate=device_rate, channels=1, dtype="float32", device=self.device,
            blocksize=int(device_rate * self.block_s), callback=callback, latency="low",
        )
        try:
            stream.start()
        except sd.PortAudioError:
            stream.close()
            raise
        self._stream = stream

    @property
    def ended(self) -> bool:
        """PortAudio ended the stream by itself: its device went away (unplugged, or the
        sound server lost it). It never resumes: only a new stream hears again."""
        return not self._closed and (self._stream is None or not self._stream.active)

    def _reopen(self) -> bool:
        """Close the ended stream and open the device again; False while it is still away.
        The device is looked for as PortAudio listed it at start: through PulseAudio or
        PipeWire (the default device) a microphone plugged back in is found again."""
        import sounddevice as sd

        old, self._stream = self._stream, None
        if old is not None:
            with contextlib.suppress(sd.PortAudioError):
                old.close()
        try:
            with native_noise_hidden():
                self._start_stream()
        except sd.PortAudioError:
            return False
        self.reopens += 1
        return True

    def close(self) -> None:
        self._closed = True
        if self._stream is not None:
            self._stream.stop()
            self._stream.close()
            self._stream = None

    def __enter__(self) -> Microphone:
        return self.open()

    def __exit__(self, *_exc) -> None:
        self.close()

    def drain(self) -> None:
        """Forget the audio captured so far."""
        while True:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                return

    def blocks(self, poll_s: float = 0.1) -> Iterator[tuple[float, np.ndarray | None]]:
        """Captured blocks at `sample_rate`; `(now, None)` every `poll_s` of no audio, so the
        loop can still re-ask a question when the device delivers nothing. A stream whose
        device went away is opened again every `reopen_every_s` meanwhile."""
        import soxr

        resampler = None
        if self._device_rate != self.sample_rate:
            resampler = soxr.ResampleStream(self._device_rate, self.sample_rate, 1, "float32")
        next_reopen = 0.0
        while not self._closed:
            try:
                t, samples = self._queue.get(timeout=poll_s)
            except queue.Empty:
                now = time.monotonic()
                if self.ended and now >= next_reopen:
                    next_reopen = now + self.reopen_every_s
                    self._reopen()
                yield now, None
                continue
            if resampler is not None:
                samples = resampler.resample_chunk(samples)
            yield t, samples


# How PortAudio's and ALSA's own diagnostics start (C code writing to file descriptor 2).
NATIVE_NOISE = ("Expression '", "ALSA lib ")


@contextlib.contextmanager
def native_noise_hidden() -> Iterator[None]:
    """PortAudio and ALSA print half a dozen lines of C diagnostics on every failed open: a
    microphone tried every 2 s while unplugged would fill the operator's terminal. Whatever
    reaches file descriptor 2 meanwhile is caught, and all but their lines written back
    (another thread's message is delayed, never lost)."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no stderr at all: nothing to keep clean
        yield
        return
    with tempfile.TemporaryFile() as caught:
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            lines = caught.read().decode("utf-8", "replace").splitlines(keepends=True)
            kept = [x for x in lines if x.strip() and not x.startswith(NATIVE_NOISE)]
            if kept:
                sys.stderr.write("".join(kept))
                sys.stderr.flush()


# A live microphone delivers a block every 0.1 s. Nothing for this long: it was unplugged,
# muted by the system, or its sound server stopped (the stream itself stays "active").
SILENT_DEVICE_S = 3.0


def watched(
    blocks: Iterable[tuple[float, np.ndarray | None]],
    on_silent: Callable[[], None],
    on_back: Callable[[], None],
    silent_s: float = SILENT_DEVICE_S,
) -> Iterator[tuple[float, np.ndarray | None]]:
    """`blocks` passed through unchanged; `on_silent()` once when the device has delivered
    no audio for `silent_s` (only idle ticks), `on_back()` when it delivers again. Without
    it a table whose microphone came loose goes on bidding to a referee that hears nothing
    and never says so."""
    last: float | None = None
    silent = False
    for t, samples in blocks:
        if samples is not None:
            last = t
            if silent:
                silent = False
                on_back()
        elif last is not None and not silent and t - last >= silent_s:
            silent = True
            on_silent()
        yield t, samples
