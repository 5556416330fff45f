"""A quiet microphone brought up to the levels the recognizer was measured at.

Whisper's input features are absolute log-power (`log_mel`): the same call 20 dB quieter
is other input to the model, and Whisper base hears it worse (the DEV tuning voices 20 dB
down: 65.4 → 62.7% right, table talk taken as an action 0 → 2.9%; BENCHMARKS.md, session
26). A laptop or a Raspberry Pi in the middle of a table, players a metre away, easily
records speech that quiet. Every clip the project was measured on has its speech between
-30 and -18 dBFS (active speech level; `speech_level_dbfs` reads about 2.5 dB higher, so
-30 here is about -32.5 there); an utterance quieter than `FLOOR_DBFS` is scaled up to it,
and one at the measured levels is left exactly as it is: scaling those only moved answers
at random (Whisper base in int8 answers differently to inputs 1e-5 apart).
"""

from __future__ import annotations

import numpy as np

FRAME = 320  # samples: 20 ms at 16 kHz
LOUD_SHARE = 0.3  # the loudest part of an utterance is its speech (it includes room audio)
FLOOR_DBFS = -30.0  # below the speech level of every measured clip
MAX_GAIN_DB = 30.0  # room noise raised more than this would be all the recognizer hears
SILENCE_DBFS = -120.0
CLIP_LEVEL = 0.99  # a sample this close to full scale is clipped (or about to be)


def frame_powers(audio: np.ndarray) -> np.ndarray:
    """The mean power of each whole 20 ms frame of `audio` (float64; none when shorter)."""
    frames = len(audio) // FRAME
    return np.mean(np.square(audio[: frames * FRAME].reshape(frames, FRAME), dtype=np.float64), 1)


def to_dbfs(power: np.ndarray | float) -> np.ndarray | float:
    """Mean power in dB relative to a full-scale square wave (a full-scale sine is -3
    dBFS), never below `SILENCE_DBFS` (digital silence)."""
    with np.errstate(divide="ignore"):
        return np.maximum(SILENCE_DBFS, 10.0 * np.log10(power))


def speech_level_dbfs(audio: np.ndarray) -> float:
    """The level of the utterance's speech: the mean power of its loudest `LOUD_SHARE`
    of 20 ms frames, in dBFS (`to_dbfs`); `SILENCE_DBFS` for digital silence."""
    power = frame_powers(audio)
    if len(power) == 0:
        return SILENCE_DBFS
    loud = np.sort(power)[::-1][: max(1, int(len(power) * LOUD_SHARE))]
    return float(to_dbfs(float(np.mean(loud))))


def raised(
    audio: np.ndarray,
    level_dbfs: float | None = None,
    floor_dbfs: float = FLOOR_DBFS,
    max_gain_db: float = MAX_GAIN_DB,
) -> np.ndarray:
    """`audio` scaled so its speech is at least `floor_dbfs` (by at most `max_gain_db`);
    the same array when it already is, or is silence. `level_dbfs`: its
    `speech_level_dbfs`, when the caller has it already."""
    level = speech_level_dbfs(audio) if level_dbfs is None else level_dbfs
    if level <= SILENCE_DBFS or level >= floor_dbfs:
        return audio
    gain_db = min(max_gain_db, floor_dbfs - level)
    return (audio * np.float32(10.0 ** (gain_db / 20.0))).astype(np.float32, copy=False)


def clipped_share(audio: np.ndarray) -> float:
    """The share of samples at `CLIP_LEVEL` of full scale or beyond: a microphone whose
    input gain is too high flattens loud speech there (`voice-ref check`)."""
    if len(audio) == 0:
        return 0.0
    return float(np.count_nonzero(np.abs(audio) >= CLIP_LEVEL)) / len(audio)
