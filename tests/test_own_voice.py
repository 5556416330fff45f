"""How long the referee's own voice stays at the microphone after the loudspeaker
reported it finished (`voice.own_voice`), on synthetic recordings with known timing."""

from __future__ import annotations

import numpy as np
import pytest

from voice_ref.voice.own_voice import BLOCK_S, OwnVoice, TimedAudio, measure_own_voice

RATE = 16000
T0 = 100.0  # monotonic time of the recording's first sample
PLAYED = (T0 + 1.0, T0 + 2.0)  # the output reports the prompt played from 1 s to 2 s
ROOM_DBFS = -60.0


def recording(voice_from: float, voice_to: float, *, decay_s: float = 0.0,
              answer_at: float | None = None) -> TimedAudio:
    """4 s of a quiet room with the prompt's voice (a -20 dBFS tone) from `voice_from` to
    `voice_to` (seconds into the recording), then an echo falling 60 dB in `decay_s`, and
    a player's answer (as loud) 0.3 s long at `answer_at`."""
    rng = np.random.default_rng(1)
    t = np.arange(4 * RATE) / RATE
    audio = rng.standard_normal(len(t)) * 10 ** (ROOM_DBFS / 20)
    tone = np.sqrt(2) * 10 ** (-20 / 20) * np.sin(2 * np.pi * 300 * t)
    envelope = ((t >= voice_from) & (t < voice_to)).astype(float)
    if decay_s:
        after = t >= voice_to
        envelope[after] = 10 ** (-3 * (t[after] - voice_to) / decay_s)
    if answer_at is not None:
        envelope[(t >= answer_at) & (t < answer_at + 0.3)] = 1.0
    return TimedAudio((audio + tone * envelope).astype(np.float32), T0, RATE)


@pytest.mark.parametrize(
    ("audio", "tail", "leaks"),
    [
        (recording(1.0, 1.8), 0.0, False),  # the line's own trailing silence: nothing after
        (recording(1.0, 2.0), 0.0, False),  # on time
        (recording(1.15, 2.15), 0.15, False),  # a little late: within 0.3 s - one block
        (recording(1.4, 2.4), 0.4, True),  # a Bluetooth loudspeaker 0.4 s late
        (recording(1.0, 2.0, decay_s=0.5), 0.16, False),  # a dining room's echo: 20 dB
        (recording(1.0, 2.0, decay_s=2.0), 0.66, True),  # a hall
        (recording(1.0, 2.0, answer_at=2.5), 0.0, False),  # a player answers: not the tail
        (recording(1.3, 2.3, answer_at=2.5), 0.3, True),  # ... after a late line: its tail
    ],
)
def test_the_tail_is_the_voice_after_the_reported_end(audio, tail, leaks):
    own = measure_own_voice(audio, PLAYED, ROOM_DBFS, holdoff_s=0.3)
    assert own.heard
    assert own.heard_dbfs == pytest.approx(-20.0, abs=1.0)
    assert own.tail_s == pytest.approx(tail, abs=0.03)
    assert own.leaks is leaks
    if leaks:  # the holdoff it suggests covers the tail, one block included
        assert own.holdoff_needed_s - BLOCK_S > own.tail_s
        assert not OwnVoice(own.heard_dbfs, ROOM_DBFS, own.tail_s, own.holdoff_needed_s).leaks


def test_a_loudspeaker_the_microphone_does_not_hear():
    silent = TimedAudio(recording(0.0, 0.0).samples, T0, RATE)
    own = measure_own_voice(silent, PLAYED, ROOM_DBFS, holdoff_s=0.3)
    assert not own.heard and not own.leaks


def test_times_outside_the_recording_are_clamped():
    audio = recording(1.0, 2.0)
    assert audio.index(T0 - 5) == 0
    assert audio.index(T0 + 99) == len(audio.samples)
    assert len(audio.between(T0 + 1.0, T0 + 1.5)) == RATE // 2
    assert len(audio.after(T0 + 3.5)) == RATE // 2
