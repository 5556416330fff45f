"""Audio sources: WAV files and the microphone, both as a stream of float32 mono blocks.

A recorded table session therefore replays exactly like a live one.
"""

from __future__ import annotations

import wave
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import soundfile
import soxr

from voice_ref.config import AudioSettings


class AudioFileError(ValueError):
    """A file that is no audio voice-ref can read; the message says which and why."""


def check_audio(path: Path | str) -> None:
    """Raise `AudioFileError` now, before anything is loaded, if `path` cannot be read."""
    with _plain_errors(path):
        soundfile.info(str(path))


def read_wav(path: Path | str, sample_rate: int = 16000) -> np.ndarray:
    """Read a recording (WAV of any sample format, FLAC, OGG: libsndfile) as float32 mono in
    [-1, 1], resampled to `sample_rate`. Recorders and sox write 24/32-bit and float WAVs
    (WAVE_FORMAT_EXTENSIBLE) that the standard library's `wave` cannot read."""
    with _plain_errors(path):
        audio, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    audio = audio.mean(axis=1) if audio.shape[1] > 1 else audio[:, 0]
    audio = np.ascontiguousarray(audio, dtype=np.float32)
    if rate != sample_rate:
        audio = soxr.resample(audio, rate, sample_rate).astype(np.float32)
    return audio


@contextmanager
def _plain_errors(path: Path | str) -> Iterator[None]:
    """libsndfile's errors (a missing file, no audio, a truncated one) as `AudioFileError`."""
    try:
        yield
    except (soundfile.LibsndfileError, RuntimeError, OSError) as exc:
        raise AudioFileError(f"{path} is not an audio file voice-ref can read ({exc}); "
                             "a WAV, FLAC or OGG recording is expected") from None


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


class AudioDeviceError(ValueError):
    """A device setting that names no device of that kind; the message says so plainly."""


def device_info(setting: str | int | None, kind: str) -> dict:
    """sounddevice's description of the device a config.toml setting selects ("input" or
    "output"); `AudioDeviceError`, in plain words, when there is none."""
    try:
        import sounddevice as sd
    except OSError as exc:  # libportaudio missing
        raise AudioDeviceError(f"The audio library PortAudio is missing ({exc}).") from None
    try:
        return dict(sd.query_devices(device_or_default(setting), kind))
    except (ValueError, sd.PortAudioError) as exc:
        what = {"input": "microphone", "output": "loudspeaker"}[kind]
        which = (f"No {what} found" if setting in ("", None) else
                 f"{what.capitalize()} {setting!r} (config.toml [audio] {kind}_device) not found")
        raise AudioDeviceError(f"{which} ({exc}).") from None


def device_name(setting: str | int, kind: str) -> str:
    """The name of the device a setting selects, for the operator to see which one the
    referee took (a USB microphone, or the laptop's own)."""
    return str(device_info(setting, kind)["name"])


def devices_in_use(audio: AudioSettings, loudspeaker: str | None = None) -> str:
    """"microphone: NAME; loudspeaker: NAME", what a live command tells whoever set the table
    up first. `loudspeaker`: its name when already known (or why there is none)."""
    if loudspeaker is None:
        try:
            loudspeaker = device_name(audio.output_device, "output")
        except AudioDeviceError as exc:
            loudspeaker = f"none ({exc})"
    return (f"microphone: {device_name(audio.input_device, 'input')}; loudspeaker: "
            f"{loudspeaker} (config.toml [audio]; `voice-ref devices`)")


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
