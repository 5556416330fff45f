"""Audio sources: WAV files and the microphone, both as a stream of float32 mono blocks.

A recorded table session therefore replays exactly like a live one.
"""

from __future__ import annotations

import wave
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import soxr


def read_wav(path: Path | str, sample_rate: int = 16000) -> np.ndarray:
    """Read a PCM WAV file as float32 mono in [-1, 1], resampled to `sample_rate`."""
    with wave.open(str(path), "rb") as wav:
        channels = wav.getnchannels()
        width = wav.getsampwidth()
        rate = wav.getframerate()
        raw = wav.readframes(wav.getnframes())
    if width == 2:
        audio = np.frombuffer(raw, dtype="<i2").astype(np.float32) / 32768.0
    elif width == 4:
        audio = np.frombuffer(raw, dtype="<i4").astype(np.float32) / 2147483648.0
    elif width == 1:
        audio = (np.frombuffer(raw, dtype=np.uint8).astype(np.float32) - 128.0) / 128.0
    else:
        raise ValueError(f"{path}: unsupported sample width {width * 8} bits")
    if channels > 1:
        audio = audio.reshape(-1, channels).mean(axis=1)
    if rate != sample_rate:
        audio = soxr.resample(audio, rate, sample_rate).astype(np.float32)
    return audio


def wav_blocks(
    path: Path | str, sample_rate: int = 16000, block_s: float = 0.1
) -> Iterator[np.ndarray]:
    """A WAV file as consecutive blocks, the way a microphone delivers them."""
    audio = read_wav(path, sample_rate)
    step = max(1, int(sample_rate * block_s))
    for start in range(0, len(audio), step):
        yield audio[start : start + step]
