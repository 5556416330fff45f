"""Streaming end-pointing: Silero VAD (the ONNX model bundled with faster-whisper).

Cuts a stream of 16 kHz float32 blocks into utterances (`Segment`s), with `pad_s` of
audio before the speech and `pad_s` (or `tail_s`) after it.
Backend-agnostic; the Whisper recognizer uses it (Vosk end-points by itself).

With `tail_s` set, an utterance also has a *tentative* end as soon as `tail_s` of
silence follows the speech (`final=False`, audio up to speech end + `tail_s`), so a
recognizer can start while the VAD still waits for the real end (`end_silence_s`). If
no speech comes in between, the final segment is the very same audio (it is cut at
speech end + `tail_s` too); if speech resumes, the utterance goes on and a later
tentative end replaces the first.
"""

from __future__ import annotations

import importlib.util
import math
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SAMPLE_RATE = 16000
SILERO_ASSET = "silero_vad_v6.onnx"  # in faster-whisper's `assets` folder


def silero_path() -> Path:
    """Where faster-whisper keeps the Silero VAD model, found without importing the
    package: its `__init__` loads PyAV and huggingface_hub (+20 MB resident, `log_mel`)."""
    spec = importlib.util.find_spec("faster_whisper")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            "The Silero VAD comes with faster-whisper: pip install 'voice_ref[whisper]'."
        )
    for folder in spec.submodule_search_locations:
        path = Path(folder) / "assets" / SILERO_ASSET
        if path.is_file():
            return path
    raise FileNotFoundError(f"faster-whisper has no {SILERO_ASSET}: reinstall it.")


def silero_session():  # noqa: ANN201 - onnxruntime types
    """Silero VAD in onnxruntime, one thread, no memory arena (its inputs are tiny)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.inter_op_num_threads = 1
    options.intra_op_num_threads = 1
    options.enable_cpu_mem_arena = False
    options.log_severity_level = 4
    return onnxruntime.InferenceSession(
        str(silero_path()), providers=["CPUExecutionProvider"], sess_options=options
    )


@dataclass(frozen=True, slots=True, eq=False)
class Segment:
    """One utterance's audio (padded) and where its speech was in the stream (seconds).

    `final` False: a tentative end; the utterance may still go on."""

    audio: np.ndarray
    start_s: float
    end_s: float
    final: bool = True

    def same_audio(self, other: Segment) -> bool:
        """Whether both cover the same speech with the same samples."""
        return (
            (self.start_s, self.end_s) == (other.start_s, other.end_s)
            and self.audio.shape == other.audio.shape
            and bool(np.array_equal(self.audio, other.audio))
        )


@dataclass(frozen=True, slots=True)
class TalkGate:
    """Loudness as a second test of speech, used only while the background is talk.

    To Silero, people talking nearby (another table, the kitchen, a television) are
    speech as much as the player's call, so an utterance starts in the background talk
    and only ends when it pauses or at `max_utterance_s`: the call is decoded with seconds
    of other voices around it, and answered late. The gate looks at the last `window_s`:
    when its quiet part (chunks at or below the `quiet_percentile` of their levels) was
    at least `busy` speech to Silero, what goes on between calls is talk, and a chunk must
    be `onset_db` above the background level (the `percentile` of the levels) to start an
    utterance and `keep_db` above it to go on. In a quiet room, or over noise that is not
    speech (dishes, a tap), the quiet part is no speech and nothing changes; nor does it
    when the players themselves talk a lot over such noise (their pauses are the noise).
    `onset_db` was chosen on background-talk clips of the DEV tuning voices, `keep_db` on
    whole simulated games with talk under them (at 9 dB quieter players' calls were cut in
    two), the quiet-part test (`quiet_percentile`, `busy`) on the clips and tuning-real
    (BENCHMARKS.md, session 25); the window and the percentile were set beforehand."""

    window_s: float = 5.0
    percentile: float = 20.0
    quiet_percentile: float = 40.0
    busy: float = 0.6
    onset_db: float = 15.0
    keep_db: float = 6.0


class StreamingVad:
    """Silero VAD over 32 ms chunks, with its recurrent state carried across blocks.

    An utterance starts at the first chunk with speech probability >= `threshold`
    and ends after `end_silence_s` below `neg_threshold` (hysteresis, as in Silero's
    own `get_speech_timestamps`). 0.2 s answers 0.1 s sooner than 0.3 s and, on the
    590 DEV clips with speech, splits 5 instead of 2 (a pause after "Beto," is
    about 0.22 s): every answer waits for it, a split costs one clip in 200.
    `tail_s` (None: off) adds tentative ends (module docstring); the audio after the
    speech is then `tail_s` long instead of `pad_s`.
    """

    CHUNK = 512

    def __init__(
        self,
        threshold: float = 0.5,
        neg_threshold: float = 0.35,
        end_silence_s: float = 0.2,
        min_speech_s: float = 0.1,
        pad_s: float = 0.2,
        max_utterance_s: float = 10.0,
        tail_s: float | None = None,
        talk_gate: TalkGate | None = None,
    ) -> None:
        self._session = silero_session()
        self.talk_gate = talk_gate
        window_s = talk_gate.window_s if talk_gate is not None else 0.0
        # (level in dBFS, Silero heard speech) of the last chunks, for `talk_gate`
        self._recent: deque[tuple[float, bool]] = deque(
            maxlen=max(1, round(window_s * SAMPLE_RATE / self.CHUNK))
        )
        self.threshold = threshold
        self.neg_threshold = neg_threshold
        self.end_chunks = round(end_silence_s * SAMPLE_RATE / self.CHUNK)
        self.min_chunks = round(min_speech_s * SAMPLE_RATE / self.CHUNK)
        self.pad = int(pad_s * SAMPLE_RATE)
        self.max_samples = int(max_utterance_s * SAMPLE_RATE)
        # Silent chunks after speech before the tentative end (None: no tentative ends).
        self.tail_chunks = (
            None if tail_s is None else max(1, round(tail_s * SAMPLE_RATE / self.CHUNK))
        )
        if self.tail_chunks is not None and self.tail_chunks >= self.end_chunks:
            raise ValueError("tail_s must be shorter than end_silence_s")
        self.reset()

    def reset(self, keep_time: bool = True) -> None:
        self._h = np.zeros((1, 1, 128), np.float32)
        self._c = np.zeros((1, 1, 128), np.float32)
        self._context = np.zeros(64, np.float32)
        self._pending = np.zeros(0, np.float32)  # < one chunk, not yet classified
        self._audio = np.zeros(0, np.float32)  # classified audio kept for the utterance
        self._audio_start = getattr(self, "_consumed", 0) if keep_time else 0
        self._consumed = self._audio_start  # samples classified since the stream began
        self._speech_start: int | None = None  # absolute sample
        self._speech_end = 0  # absolute sample just after the last speech chunk
        self._speech_chunks = 0
        self._silence = 0

    @property
    def in_speech(self) -> bool:
        """An utterance has started and not yet ended."""
        return self._speech_start is not None

    @property
    def consumed_s(self) -> float:
        return self._consumed / SAMPLE_RATE

    def feed(self, samples: np.ndarray) -> list[Segment]:
        """The segments that ended in `samples`: final ones, and at most one tentative
        end, last, when the utterance is still open at the end of `samples` with no
        speech after it (one that speech or the final end overtook in the same block
        would be recognized for nothing)."""
        out: list[Segment] = []
        data = np.concatenate([self._pending, np.asarray(samples, np.float32).reshape(-1)])
        n = len(data) // self.CHUNK * self.CHUNK
        self._pending = data[n:]
        tentative = None
        for i in range(0, n, self.CHUNK):
            seg = self._chunk(data[i : i + self.CHUNK])
            if seg is not None and not seg.final:
                tentative = seg
            elif seg is not None:
                out.append(seg)
                tentative = None
        unchanged = tentative is not None and tentative.end_s == self._speech_end / SAMPLE_RATE
        if unchanged and self._speech_start is not None:  # still open, no speech since it
            out.append(tentative)
        return out

    def flush(self) -> list[Segment]:
        seg = self._close() if self._speech_start is not None else None
        return [seg] if seg is not None else []

    def _chunk(self, chunk: np.ndarray) -> Segment | None:
        x = np.concatenate([self._context, chunk])[None]
        prob, self._h, self._c = self._session.run(None, {"input": x, "h": self._h, "c": self._c})
        self._context = chunk[-64:]
        p = float(np.asarray(prob).reshape(-1)[0])
        if self.talk_gate is not None and self._under_talk(chunk, p):
            p = 0.0
        self._audio = np.concatenate([self._audio, chunk])
        start, self._consumed = self._consumed, self._consumed + len(chunk)
        if self._speech_start is None:
            if p >= self.threshold:
                self._speech_start, self._speech_end = start, self._consumed
                self._speech_chunks, self._silence = 1, 0
            else:  # keep only the padding before a possible start
                drop = max(0, len(self._audio) - self.pad - self.CHUNK)
                self._audio = self._audio[drop:]
                self._audio_start += drop
            return None
        if p >= self.neg_threshold:
            self._speech_end, self._silence = self._consumed, 0
            self._speech_chunks += 1
        else:
            self._silence += 1
        too_long = self._consumed - self._speech_start >= self.max_samples
        if self._silence >= self.end_chunks or too_long:
            return self._close()
        if self._silence == self.tail_chunks and self._speech_chunks >= self.min_chunks:
            return self._segment(final=False)
        return None

    def _under_talk(self, chunk: np.ndarray, p: float) -> bool:
        """Whether `talk_gate` takes this chunk for background talk: the quiet part of the
        recent audio (what goes on between calls) was mostly speech to Silero, and the
        chunk is not loud enough above it to start (or, in an utterance, to go on with)
        a call."""
        gate = self.talk_gate
        assert gate is not None
        level = 10.0 * math.log10(float(np.mean(chunk * chunk)) + 1e-12)
        recent = self._recent
        recent.append((level, p >= self.neg_threshold))
        if len(recent) < (recent.maxlen or 0):
            return False
        levels = np.array([lv for lv, _ in recent])
        quiet = levels <= np.percentile(levels, gate.quiet_percentile)
        speech = np.array([sp for _, sp in recent])
        if speech[quiet].mean() < gate.busy:
            return False
        background = float(np.percentile(levels, gate.percentile))
        above = gate.keep_db if self._speech_start is not None else gate.onset_db
        return level < background + above

    def _segment(self, final: bool) -> Segment:
        """The utterance so far: from `pad_s` before its speech to `tail_s` (or `pad_s`)
        after it, as far as audio was heard."""
        start, end = self._speech_start or 0, self._speech_end
        after = self.pad if self.tail_chunks is None else self.tail_chunks * self.CHUNK
        lo = max(0, start - self.pad - self._audio_start)
        hi = min(len(self._audio), end + after - self._audio_start)
        return Segment(self._audio[lo:hi], start / SAMPLE_RATE, end / SAMPLE_RATE, final)

    def _close(self) -> Segment | None:
        seg = self._segment(final=True) if self._speech_chunks >= self.min_chunks else None
        self._audio = self._audio[-(self.pad + self.CHUNK) :]
        self._audio_start = self._consumed - len(self._audio)
        self._speech_start, self._speech_chunks, self._silence = None, 0, 0
        return seg
