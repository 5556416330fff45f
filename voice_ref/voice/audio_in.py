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


def write_wav(path: Path | str, samples: np.ndarray, sample_rate: int) -> None:
    """Write float32 mono samples as a 16-bit PCM WAV file."""
    pcm = (np.clip(samples, -1.0, 1.0) * 32767.0).astype("<i2")
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(sample_rate)
        wav.writeframes(pcm.tobytes())


def device_or_default(setting: str | int) -> str | int | None:
    """A config.toml device setting for sounddevice: "" means the system default (None)."""
    return None if setting == "" else setting


def describe_devices() -> list[str]:
    """One line per audio device, marking the defaults, for `voice-ref devices`."""
    import sounddevice as sd

    default_in, default_out = sd.default.device
    lines = []
    for index, dev in enumerate(sd.query_devices()):
        kinds = []
        if dev["max_input_channels"] > 0:
            kinds.append("microphone" + (" (default)" if index == default_in else ""))
        if dev["max_output_channels"] > 0:
            kinds.append("loudspeaker" + (" (default)" if index == default_out else ""))
        lines.append(
            f"{index:3d}  {dev['name']}  [{', '.join(kinds)}]  "
            f"{int(dev['default_samplerate'])} Hz"
        )
    return lines


def main_devices(args) -> int:
    """`voice-ref devices`: list microphones and loudspeakers, or say why there are none."""
    try:
        lines = describe_devices()
    except OSError as exc:  # PortAudio library missing
        print(f"voice-ref devices: the audio library is missing ({exc}). "
              "Install PortAudio (apt install libportaudio2).")
        return 2
    if not lines:
        print("No audio devices found. Connect a microphone and a loudspeaker, or start "
              "PulseAudio; `voice-ref play --text` and `--input session.wav` work without them.")
        return 2
    print("Audio devices (put the number or part of the name in config.toml [audio]):")
    print("\n".join(lines))
    return 0
