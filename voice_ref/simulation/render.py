"""Words → a player's voice in the room: espeak-ng (or SVOX Pico, Festival or an MBROLA
diphone voice, voices nothing was tuned on) with a little rate and pitch variation, mixed
with a random stretch of recorded noise at a chosen SNR (computed on active speech, as the
DEV audio set does).
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np

from voice_ref.simulation.phrasing import COUNTING_PAUSE
from voice_ref.voice.audio_in import read_wav

RATE = 16000
FRAME_S = 0.02


# A line's active speech level, dBFS: drawn from this range, as the DEV set's clips.
SPEECH_LEVELS_DBFS = (-30.0, -18.0)


class Engine(Enum):
    """The synthesizer that says a player's lines."""

    ESPEAK = "espeak-ng"
    PICO = "pico"  # SVOX Pico (`pico2wave`): voice "pico:<language>"
    FESTIVAL = "festival"  # Festival (`text2wave`): voice "festival:<language>"
    MBROLA = "mbrola"  # espeak-ng's phonemes said by `mbrola`: voice "mbrola:<database>"


# A voice name starting with one of these belongs to that engine, not to espeak-ng.
ENGINE_PREFIXES = {Engine.PICO: "pico:", Engine.FESTIVAL: "festival:", Engine.MBROLA: "mbrola:"}
PICO_PREFIX = ENGINE_PREFIXES[Engine.PICO]
FESTIVAL_PREFIX = ENGINE_PREFIXES[Engine.FESTIVAL]
MBROLA_PREFIX = ENGINE_PREFIXES[Engine.MBROLA]
PICO_SPANISH = "es-ES"  # Pico's only Spanish voice
# Pico starts and ends with a low-level hiss: trimmed below this.
PICO_SILENCE_FLOOR = 1e-3
# The espeak-ng rate and pitch that Pico's own speed and pitch (100%) stand for.
PICO_BASE_RATE = 160
PICO_BASE_PITCH = 50
# Festival's Spanish voices by language: the Castilian diphone voice of Debian's
# festvox-ellpc11k (a man; "z" and soft "c" said as in Spain).
FESTIVAL_VOICES = {"es": "el_diphone"}
# The espeak-ng rate and pitch at which Festival speaks as it does by itself. Its diphone
# voice has a fixed intonation, so pitch is a speaker's size instead: each pitch step
# above the base makes the voice this much higher (formants and pitch, by resampling).
FESTIVAL_BASE_RATE = 160
FESTIVAL_BASE_PITCH = 50
FESTIVAL_SIZE_PER_PITCH = 1 / 200
# Festival pads its speech with ~0.2-0.35 s of low noise and clicks: trimmed where 10 ms
# frames stay below this RMS (its speech starts at ~1e-3; a click alone stays below).
FESTIVAL_SILENCE_RMS = 8e-4
# MBROLA's Spanish diphone databases (Debian's `mbrola-<database>`) live here. es1, es2 and
# es4 speak part of the adaptation clips (`adaptation.clips.MBROLA`); the Mexican mx1 and
# mx2 speak nothing the model was adapted or tuned on. (es3 lacks diphones espeak-ng asks
# for: MBROLA says silence there.)
MBROLA_ROOT = Path("/usr/share/mbrola")


@dataclass(frozen=True, slots=True)
class Voice:
    """One synthetic voice and the speaking habits of its player."""

    # an espeak-ng voice ("es+m1"), Pico's ("pico:es-ES"), Festival's ("festival:es") or an
    # MBROLA database's ("mbrola:mx2")
    name: str
    rate: int = 160  # words per minute
    pitch: int = 50  # espeak-ng 0..99

    @property
    def engine(self) -> Engine:
        for engine, prefix in ENGINE_PREFIXES.items():
            if self.name.startswith(prefix):
                return engine
        return Engine.ESPEAK

    @property
    def language(self) -> str | None:
        """What follows a Pico, Festival or MBROLA voice's prefix (a language; MBROLA's
        database); None for espeak-ng's."""
        prefix = ENGINE_PREFIXES.get(self.engine)
        return None if prefix is None else self.name.removeprefix(prefix)


def espeak_available() -> bool:
    return shutil.which("espeak-ng") is not None


def pico_available() -> bool:
    return shutil.which("pico2wave") is not None


def festival_available() -> bool:
    """Festival and its Spanish voice (a Festival without voices says nothing)."""
    return shutil.which("text2wave") is not None and any(
        Path("/usr/share/festival/voices").glob(f"*/{name}") for name in FESTIVAL_VOICES.values())


def mbrola_available(database: str) -> bool:
    """The `mbrola` program, espeak-ng (its phonemes) and `database`'s diphones."""
    return (shutil.which("mbrola") is not None and espeak_available()
            and (MBROLA_ROOT / database / database).is_file())


def speak(text: str, voice: Voice, sample_rate: int = RATE) -> np.ndarray:
    """One utterance in `voice`, by whichever engine it belongs to."""
    match voice.engine:
        case Engine.PICO:
            return pico(text, voice, sample_rate)
        case Engine.FESTIVAL:
            return festival(text, voice, sample_rate)
        case Engine.MBROLA:
            return _trimmed(mbrola(text, voice, sample_rate))
    return espeak(text, voice, sample_rate)


def mbrola(text: str, voice: Voice, sample_rate: int = RATE) -> np.ndarray:
    """`text` said by the MBROLA database the voice names, from espeak-ng's phonemes at the
    voice's rate and pitch. The stress marks are removed: espeak-ng asks for stressed vowels
    ("o/") the Spanish databases lack, and MBROLA would say silence instead."""
    database = voice.language or ""
    if not mbrola_available(database):
        raise RuntimeError(f"MBROLA's {database!r} voice is not installed "
                           f"(Debian non-free: apt install mbrola mbrola-{database})")
    with tempfile.TemporaryDirectory(prefix="voice_ref_mbrola_") as tmp:
        pho, path = Path(tmp) / "line.pho", Path(tmp) / "line.wav"
        phonemes = subprocess.run(["espeak-ng", "-v", f"mb-{database}", "-q", "--pho", "-s",
                                   str(voice.rate), "-p", str(voice.pitch), text],
                                  check=True, capture_output=True, text=True).stdout
        pho.write_text(phonemes.replace("/\t", "\t"), encoding="utf-8")
        subprocess.run(["mbrola", "-e", str(MBROLA_ROOT / database / database), str(pho),
                        str(path)], check=True, capture_output=True)
        return read_wav(path, sample_rate)


def pico(text: str, voice: Voice, sample_rate: int = RATE) -> np.ndarray:
    """One utterance said by SVOX Pico, trimmed of its hiss. The voice's rate and pitch
    become Pico's speed and pitch markup, relative to `PICO_BASE_RATE` and
    `PICO_BASE_PITCH` (at those, no markup: the same audio as plain `pico2wave`)."""
    exe = shutil.which("pico2wave")
    if exe is None:
        raise RuntimeError("pico2wave is not installed (Debian non-free: "
                           "apt install libttspico-utils)")
    said = escape(text)
    if voice.pitch != PICO_BASE_PITCH:
        said = f'<pitch level="{100 + voice.pitch - PICO_BASE_PITCH}">{said}</pitch>'
    if voice.rate != PICO_BASE_RATE:
        said = f'<speed level="{round(100 * voice.rate / PICO_BASE_RATE)}">{said}</speed>'
    with tempfile.TemporaryDirectory(prefix="voice_ref_pico_") as tmp:
        path = Path(tmp) / "u.wav"
        language = voice.language or PICO_SPANISH
        subprocess.run([exe, "-l", language, "-w", str(path), said],
                       check=True, capture_output=True)
        speech = read_wav(path, sample_rate)
    if not np.any(np.abs(speech) >= PICO_SILENCE_FLOOR):
        raise ValueError(f"pico2wave said nothing for {text!r}")
    return _trimmed(speech, PICO_SILENCE_FLOOR)


def festival(text: str, voice: Voice, sample_rate: int = RATE) -> np.ndarray:
    """One utterance said by Festival's Spanish diphone voice, without its silence around.
    The voice's rate stretches Festival's durations; its pitch makes the speaker larger or
    smaller (`FESTIVAL_SIZE_PER_PITCH`), the stretch keeping the rate asked for."""
    exe = shutil.which("text2wave")
    if exe is None:
        raise RuntimeError("Festival is not installed (apt install festival festvox-ellpc11k)")
    name = FESTIVAL_VOICES.get(voice.language or "es")
    if name is None:
        raise ValueError(f"Festival has no voice for {voice.language!r} here")
    size = 1.0 + (voice.pitch - FESTIVAL_BASE_PITCH) * FESTIVAL_SIZE_PER_PITCH
    stretch = FESTIVAL_BASE_RATE / voice.rate * size  # resampling by `size` shortens it again
    with tempfile.TemporaryDirectory(prefix="voice_ref_festival_") as tmp:
        said, path = Path(tmp) / "u.txt", Path(tmp) / "u.wav"
        # Festival's Spanish lexicon reads ISO-8859-1 ("ñ", "é"); UTF-8 it spells out.
        said.write_bytes(text.encode("latin-1", errors="replace"))
        subprocess.run([exe, "-eval", f"(voice_{name})",
                        "-eval", f"(Parameter.set 'Duration_Stretch {stretch:.4f})",
                        "-o", str(path), str(said)], check=True, capture_output=True)
        speech = read_wav(path, round(sample_rate / size))
    frame_s = 0.01
    loud = np.flatnonzero(frame_power(speech, sample_rate, frame_s) >= FESTIVAL_SILENCE_RMS**2)
    if not len(loud):
        raise ValueError(f"Festival said nothing for {text!r}")
    frame = int(sample_rate * frame_s)
    return speech[loud[0] * frame : (loud[-1] + 1) * frame]


def espeak(text: str, voice: Voice, sample_rate: int = RATE) -> np.ndarray:
    """One utterance as float32 samples (espeak-ng, no padding)."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise RuntimeError("espeak-ng is not installed (apt install espeak-ng)")
    with tempfile.TemporaryDirectory(prefix="voice_ref_sim_") as tmp:
        path = Path(tmp) / "u.wav"
        subprocess.run([exe, "-v", voice.name, "-s", str(voice.rate), "-p", str(voice.pitch),
                        "-w", str(path), text], check=True, capture_output=True)
        return read_wav(path, sample_rate)


class NoiseBank:
    """Noise recordings to mix under utterances.

    A folder of WAVs is read whole; a labelled audio folder (with `labels.jsonl`, like the
    DEV set) gives its noise-only clips."""

    def __init__(self, clips: list[np.ndarray]) -> None:
        self.clips = [c for c in clips if len(c) > 0 and float(np.max(np.abs(c))) > 0]
        if not self.clips:
            raise ValueError("no usable (non-silent) noise recording")

    @staticmethod
    def recordings(folder: Path) -> list[Path]:
        """The files `load` reads from an existing `folder`: its labelled noise-only clips,
        else every WAV under it (subfolders too)."""
        labels = folder / "labels.jsonl"
        if labels.is_file():
            rows = [json.loads(x) for x in labels.read_text(encoding="utf-8").splitlines()
                    if x.strip()]
            return [folder / r["file"] for r in rows if r.get("category") == "noise_only"]
        return sorted(folder.rglob("*.wav"))

    @classmethod
    def load(cls, folder: Path | str, sample_rate: int = RATE) -> NoiseBank:
        folder = Path(folder)
        if not folder.is_dir():
            raise ValueError(f"the noise folder {folder} does not exist")
        files = cls.recordings(folder)
        if not files:
            raise ValueError(f"no noise recordings (*.wav, or noise-only clips) in {folder}")
        return cls([read_wav(f, sample_rate) for f in files])

    def stretch(self, rng: random.Random, n: int) -> np.ndarray:
        """`n` samples from a random place in a random recording (looped if it is short)."""
        clip = self.clips[rng.randrange(len(self.clips))]
        start = rng.randrange(len(clip))
        reps = (start + n) // len(clip) + 1
        return np.tile(clip, reps)[start : start + n].astype(np.float32)


def frame_power(
    samples: np.ndarray, sample_rate: int = RATE, frame_s: float = FRAME_S
) -> np.ndarray:
    """Mean power of each whole `frame_s` frame of `samples` (none if shorter than one)."""
    frame = max(1, int(sample_rate * frame_s))
    n = len(samples) // frame
    return np.mean(samples[: n * frame].reshape(n, frame) ** 2, axis=1)


def active_power(samples: np.ndarray, sample_rate: int = RATE) -> float:
    """Mean power of the frames within 30 dB of the loudest (speech, not its pauses)."""
    power = frame_power(samples, sample_rate)
    if len(power) == 0:
        return float(np.mean(samples**2)) if len(samples) else 0.0
    active = power[power >= power.max() * 1e-3]
    return float(np.mean(active))


def mix(speech: np.ndarray, noise: np.ndarray, snr_db: float) -> np.ndarray:
    """`speech` + `noise` scaled so that active speech power / noise power = `snr_db`."""
    noise_power = float(np.mean(noise**2))
    if noise_power == 0.0:
        return speech.copy()
    gain = np.sqrt(active_power(speech) / (noise_power * 10 ** (snr_db / 10)))
    return (speech + gain * noise[: len(speech)]).astype(np.float32)


# Echo kept after a line said in a room (`reverberant`): enough for what the microphone
# still hears when the VAD decides the line has ended (its end-of-speech silence is 0.2 s).
ECHO_TAIL_S = 0.3


def reverberant(speech: np.ndarray, response: np.ndarray, sample_rate: int = RATE) -> np.ndarray:
    """`speech` as the microphone hears it through `response`, `ECHO_TAIL_S` of echo after it,
    at the same active speech level (how loud the microphone records is another
    condition: `--mic-gain`)."""
    n = len(speech) + len(response) - 1
    size = 1 << (n - 1).bit_length()  # by FFT: a response is thousands of taps long
    spectrum = np.fft.rfft(speech.astype(np.float64), size) * np.fft.rfft(response, size)
    wet = np.fft.irfft(spectrum, size)[: min(n, len(speech) + int(ECHO_TAIL_S * sample_rate))]
    dry_power = active_power(speech)
    wet_power = active_power(wet)
    if wet_power > 0.0:
        wet = wet * np.sqrt(dry_power / wet_power)
    return wet.astype(np.float32)


# A pause people make inside a line, after an interjection or a name ("ehm … cerrada",
# "Carla … cuatro trenes"): longer than the VAD's 0.2 s end of speech, so the line may
# reach the referee in two utterances (`voice-ref bench --games --pauses P`).
PAUSE_S = (0.3, 0.9)
# Between the numbers of a count said aloud ("uno … dos … tres", `phrasing.COUNTING_PAUSE`).
COUNTING_GAP_S = (0.3, 0.7)


def pause_point(text: str, names: frozenset[str]) -> int | None:
    """Where a speaker may pause in `text`: after its first comma, else after a player's
    name that opens it; None when the line has no such place."""
    comma = text.find(",")
    if comma > 0:
        return comma + 1
    first, _, rest = text.partition(" ")
    return len(first) if rest and first in names else None


class Renderer:
    """Renders one player's line: voice varied a little, padded, levelled, noise underneath.
    With `pause_p`, a line with a place to pause (`pause_point`) is said with a pause of
    `PAUSE_S` there that often."""

    def __init__(
        self,
        voices: dict[str, Voice],
        rng: random.Random,
        *,
        noise: NoiseBank | None = None,
        snr_db: float | None = None,
        sample_rate: int = RATE,
        pause_p: float = 0.0,
        responses: dict[str, np.ndarray] | None = None,
    ) -> None:
        self.voices = voices
        self.rng = rng
        self.noise = noise
        self.snr_db = snr_db
        self.sample_rate = sample_rate
        self.pause_p = pause_p
        self.responses = responses or {}  # each player's seat to the microphone (`room`)
        self._names = frozenset(voices)  # the players: where a line may pause

    def render(self, speaker: str, text: str) -> tuple[np.ndarray, float, float]:
        """Samples, and where the speech starts and ends in them (seconds)."""
        rng = self.rng
        base = self.voices[speaker]
        voice = Voice(base.name, base.rate + rng.randint(-12, 12),
                      max(0, min(99, base.pitch + rng.randint(-8, 8))))
        speech = self._speech(text, voice)
        peak = float(np.max(np.abs(speech))) or 1.0
        level = 10 ** (rng.uniform(*SPEECH_LEVELS_DBFS) / 20)  # active speech level
        speech = speech / peak * level / max(np.sqrt(active_power(speech / peak)), 1e-6)
        lead = int(self.sample_rate * rng.uniform(0.25, 0.5))
        tail = int(self.sample_rate * rng.uniform(0.25, 0.5))
        heard = speech.astype(np.float32)
        if speaker in self.responses:  # the room's echo, ringing on after the speech
            heard = reverberant(heard, self.responses[speaker], self.sample_rate)
        clip = np.concatenate([np.zeros(lead, np.float32), heard,
                               np.zeros(max(0, tail - (len(heard) - len(speech))), np.float32)])
        if self.noise is not None and self.snr_db is not None:
            clip = mix(clip, self.noise.stretch(rng, len(clip)), self.snr_db)
        clip = np.clip(clip, -1.0, 1.0).astype(np.float32)
        return clip, lead / self.sample_rate, (lead + len(speech)) / self.sample_rate

    def _speech(self, text: str, voice: Voice) -> np.ndarray:
        """The line as the voice says it, or in two parts with a human pause between; a count
        said aloud with a pause after each number."""
        if COUNTING_PAUSE in text:
            return self._in_parts(text.split(COUNTING_PAUSE), COUNTING_GAP_S, voice)
        cut = pause_point(text, self._names) if self.pause_p > 0 else None
        if cut is None or self.rng.random() >= self.pause_p:
            return speak(text, voice, self.sample_rate)
        return self._in_parts([text[:cut].rstrip(" ,"), text[cut:].strip()], PAUSE_S, voice)

    def _in_parts(self, parts: list[str], pause_s: tuple[float, float], voice: Voice) -> np.ndarray:
        """`parts` said one after another without the engine's own silence around them, a
        human pause of `pause_s` seconds between each two."""
        pieces: list[np.ndarray] = []
        for i, part in enumerate(parts):
            if i:
                pause = int(self.sample_rate * self.rng.uniform(*pause_s))
                pieces.append(np.zeros(pause, np.float32))
            pieces.append(_trimmed(speak(part, voice, self.sample_rate)))
        return np.concatenate(pieces)


def _trimmed(speech: np.ndarray, floor: float = 1e-4) -> np.ndarray:
    """`speech` without the engine's own silence (or Pico's hiss, below `floor`) around it
    (the pause is the one asked for)."""
    loud = np.flatnonzero(np.abs(speech) >= floor)
    return speech[loud[0] : loud[-1] + 1] if len(loud) else speech
