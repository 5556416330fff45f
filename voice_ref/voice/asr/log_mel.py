"""Whisper's input features: the log-Mel spectrogram of 16 kHz audio, in numpy.

Why not faster-whisper's `FeatureExtractor`: importing anything from the `faster_whisper`
package runs its `__init__`, which loads PyAV (FFmpeg's libraries) and huggingface_hub for
transcription code this project never calls: +20 MB of resident memory for a 40-line
computation (BENCHMARKS.md, session 16). The features are Whisper's own recipe: a 400-point
STFT every 160 samples (periodic Hann window, centred with reflection), power spectrum,
80 Slaney-style Mel filters up to 8 kHz, log10 floored 8 decades below the loudest value,
scaled by (x + 4) / 4. `tests/test_whisper_inputs.py` checks them against faster-whisper's.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from voice_ref.voice.asr.vad import SAMPLE_RATE

N_FFT = 400
HOP = 160
N_MELS = 80
DYNAMIC_RANGE = 8.0  # decades kept below the loudest value (log10 units)


@lru_cache(maxsize=4)
def mel_filters(n_mels: int = N_MELS, n_fft: int = N_FFT, rate: int = SAMPLE_RATE) -> np.ndarray:
    """[n_mels, n_fft // 2 + 1] triangular filters on the Slaney Mel scale (linear below
    1 kHz, logarithmic above), each scaled to unit area: the filters Whisper was trained with."""
    bins = np.fft.rfftfreq(n_fft, 1.0 / rate)
    edges = _mel_to_hz(np.linspace(0.0, _hz_to_mel(rate / 2), n_mels + 2))
    widths = np.diff(edges)
    ramps = edges[:, None] - bins[None, :]
    rising = -ramps[:-2] / widths[:-1, None]
    falling = ramps[2:] / widths[1:, None]
    filters = np.maximum(0.0, np.minimum(rising, falling))
    filters *= (2.0 / (edges[2:] - edges[:-2]))[:, None]
    return filters.astype(np.float32)


_LINEAR_STEP = 200.0 / 3  # Hz per Mel below 1 kHz
_LOG_START_HZ = 1000.0
_LOG_START_MEL = _LOG_START_HZ / _LINEAR_STEP
_LOG_STEP = np.log(6.4) / 27.0  # Mel per log-Hz step above 1 kHz


def _hz_to_mel(hz: float) -> float:
    if hz < _LOG_START_HZ:
        return hz / _LINEAR_STEP
    return _LOG_START_MEL + float(np.log(hz / _LOG_START_HZ)) / _LOG_STEP


def _mel_to_hz(mel: np.ndarray) -> np.ndarray:
    hz = mel * _LINEAR_STEP
    high = mel >= _LOG_START_MEL
    hz[high] = _LOG_START_HZ * np.exp(_LOG_STEP * (mel[high] - _LOG_START_MEL))
    return hz


def log_mel(audio: np.ndarray, n_mels: int = N_MELS) -> np.ndarray:
    """[n_mels, len(audio) // HOP] features of float32 samples at 16 kHz."""
    audio = np.asarray(audio, dtype=np.float32)
    padded = np.pad(audio, N_FFT // 2, mode="reflect")
    frames = 1 + (len(padded) - N_FFT) // HOP
    windows = np.lib.stride_tricks.as_strided(
        padded, (frames, N_FFT), (HOP * padded.strides[0], padded.strides[0])
    )
    spectrum = np.fft.rfft(windows * _hann(), axis=-1).astype(np.complex64)
    power = np.abs(spectrum[:-1].T) ** 2  # [bins, frames]; the last frame is dropped
    mel = mel_filters(n_mels) @ power
    out = np.log10(np.maximum(mel, 1e-10))
    np.maximum(out, out.max() - DYNAMIC_RANGE, out=out)
    out += 4.0
    out /= 4.0
    return out


@lru_cache(maxsize=1)
def _hann() -> np.ndarray:
    return np.hanning(N_FFT + 1)[:-1].astype(np.float32)  # periodic


SILENCE_FRAMES = 30  # 0.3 s of zeros after the speech: the decoder sees where speech ends


def encoder_input(audio: np.ndarray, n_mels: int = N_MELS) -> np.ndarray:
    """[1, n_mels, frames] features of one utterance as the recognizer encodes it: the
    audio followed by `SILENCE_FRAMES` of true silence, an even number of frames (the
    encoder halves them), not Whisper's 30 s window (~10x faster on short calls)."""
    frames = int(len(audio) / HOP) + SILENCE_FRAMES
    frames += frames % 2
    padded = np.zeros(frames * HOP, np.float32)
    padded[: len(audio)] = audio[: len(padded)]
    return np.ascontiguousarray(log_mel(padded, n_mels)[None, :, :frames])
