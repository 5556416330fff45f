"""A quiet microphone is brought up to the measured speech levels; nothing else is touched."""

from __future__ import annotations

import numpy as np
import pytest

from voice_ref.voice.asr.level import (
    FLOOR_DBFS,
    MAX_GAIN_DB,
    SILENCE_DBFS,
    raised,
    speech_level_dbfs,
)

RATE = 16000


def tone(dbfs: float, seconds: float = 0.5) -> np.ndarray:
    """A 220 Hz sine whose mean power is `dbfs` (its amplitude is sqrt(2) x the RMS)."""
    t = np.arange(int(RATE * seconds)) / RATE
    return (np.sqrt(2) * 10 ** (dbfs / 20) * np.sin(2 * np.pi * 220 * t)).astype(np.float32)


def call_in_a_room(speech_dbfs: float, room_below_db: float = 30.0) -> np.ndarray:
    """0.5 s of "speech" (0.6-1.1 s) between 0.6 s of room noise `room_below_db` below
    it, clipped at full scale as a sound card clips."""
    rng = np.random.default_rng(7)
    level = 10 ** ((speech_dbfs - room_below_db) / 20)
    room = lambda n: (rng.standard_normal(n) * level).astype(np.float32)  # noqa: E731
    audio = np.concatenate([room(9600), tone(speech_dbfs) + room(8000), room(9600)])
    return np.clip(audio, -1.0, 1.0)


@pytest.mark.parametrize("dbfs", [-10.0, -24.0, -45.0])
def test_the_level_is_the_speech_not_the_room_around_it(dbfs: float) -> None:
    assert speech_level_dbfs(tone(dbfs)) == pytest.approx(dbfs, abs=0.1)
    # 30% loudest frames of 1.7 s: all inside the 0.5 s of speech
    assert speech_level_dbfs(call_in_a_room(dbfs)) == pytest.approx(dbfs, abs=0.2)


@pytest.mark.parametrize("dbfs", [-30.0, -24.0, -18.0, -6.0])
def test_speech_at_the_measured_levels_is_left_exactly_as_it_is(dbfs: float) -> None:
    audio = call_in_a_room(dbfs)
    assert raised(audio) is audio


@pytest.mark.parametrize("dbfs", [-35.0, -44.0, -55.0])
def test_quiet_speech_is_brought_up_to_the_floor(dbfs: float) -> None:
    audio = call_in_a_room(dbfs)
    out = raised(audio)
    assert out.dtype == np.float32
    assert np.array_equal(out, raised(audio, speech_level_dbfs(audio)))  # a level known already
    assert speech_level_dbfs(out) == pytest.approx(FLOOR_DBFS, abs=0.2)


def test_the_gain_has_a_ceiling_and_silence_stays_silence() -> None:
    very_quiet = call_in_a_room(-80.0)
    assert speech_level_dbfs(raised(very_quiet)) == pytest.approx(-80.0 + MAX_GAIN_DB, abs=0.2)
    zeros = np.zeros(RATE, np.float32)
    assert speech_level_dbfs(zeros) == SILENCE_DBFS
    assert raised(zeros) is zeros
    assert speech_level_dbfs(np.zeros(10, np.float32)) == SILENCE_DBFS  # shorter than a frame


@pytest.mark.parametrize(("level", "note"), [
    (None, ""),
    (-24.0, "  [speech -24 dBFS]"),
    (-44.4, "  [speech -44 dBFS  quiet microphone: raised]"),
])
def test_voice_ref_listen_says_how_loud_the_speech_was(level: float | None, note: str) -> None:
    from voice_ref.voice.listen import level_note

    assert level_note(level) == note
