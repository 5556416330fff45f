"""How the referee's own voice reaches its microphone, measured by `voice-ref check`.

The live loop never recognizes its own voice: microphone audio captured from the moment
a line is queued until `[audio] holdoff_s` after the loudspeaker reported the line played
is dropped (`Announcer.deaf_at`, compared with each block's capture time). Two things at
a real table can put the voice past that window: a loudspeaker that plays later than it
reports (a Bluetooth speaker: 0.1-0.3 s) and a room's echo. Then the referee hears the
end of its own line as an utterance of the table. The check plays its prompt with the
same clocks (the output's end of playback, the microphone's capture times) and measures
how long after the reported end the voice is still at the microphone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from voice_ref.voice.asr.level import (
    FRAME,
    SILENCE_DBFS,
    frame_powers,
    speech_level_dbfs,
    to_dbfs,
)

# Voice frames: within this of the prompt's own level at the microphone (its last
# syllables fade, a room's echo falls 20 dB in a third of its reverberation time) ...
VOICE_RANGE_DB = 20.0
# ... and this far above the room.
ABOVE_ROOM_DB = 10.0
# The prompt counts as heard when its speech is this far above the room.
HEARD_DB = 10.0
MAX_TAIL_S = 1.5  # look no further after the reported end (a player may answer by then)
GAP_S = 0.1  # a pause longer than this ends the tail (a player's answer is not the tail)
# The live loop gates whole 0.1 s blocks by their capture *end*: the first 0.1 s of the
# block after the deaf window is heard, so a tail longer than `holdoff_s` - `BLOCK_S` leaks.
BLOCK_S = 0.1


@dataclass(frozen=True, slots=True)
class TimedAudio:
    """Microphone samples with the monotonic time of the first one (the capture clock
    the live loop gates by)."""

    samples: np.ndarray
    start: float
    rate: int = 16000

    def index(self, t: float) -> int:
        """The sample captured at monotonic time `t`, clamped to the recording."""
        return int(np.clip(round((t - self.start) * self.rate), 0, len(self.samples)))

    def between(self, t0: float, t1: float) -> np.ndarray:
        return self.samples[self.index(t0) : self.index(t1)]

    def after(self, t: float) -> np.ndarray:
        return self.samples[self.index(t) :]


@dataclass(frozen=True, slots=True)
class OwnVoice:
    """The prompt as the microphone heard it: its level, and how long after the
    loudspeaker reported it played the voice was still there (`tail_s`)."""

    heard_dbfs: float
    room_dbfs: float
    tail_s: float
    holdoff_s: float

    @property
    def heard(self) -> bool:
        """Whether the microphone heard the loudspeaker at all."""
        return self.heard_dbfs > SILENCE_DBFS and self.heard_dbfs >= self.room_dbfs + HEARD_DB

    @property
    def leaks(self) -> bool:
        """Whether the voice outlasts the live loop's deaf window."""
        return self.heard and self.tail_s > self.holdoff_s - BLOCK_S

    @property
    def holdoff_needed_s(self) -> float:
        """The `[audio] holdoff_s` that covers the tail (a tenth of a second to spare)."""
        return float(np.ceil((self.tail_s + BLOCK_S + 0.1) * 10) / 10)


def measure_own_voice(
    audio: TimedAudio, played: tuple[float, float], room_dbfs: float, holdoff_s: float
) -> OwnVoice:
    """The prompt played from `played[0]` to `played[1]` (monotonic, as reported by the
    output), heard in `audio`; `room_dbfs`: the room's level (`mic_check.room_level_dbfs`)."""
    start, end = played
    heard = speech_level_dbfs(audio.between(start, end))
    floor = max(room_dbfs + ABOVE_ROOM_DB, heard - VOICE_RANGE_DB)
    level = to_dbfs(frame_powers(audio.between(end, end + MAX_TAIL_S)))
    frame_s = FRAME / audio.rate
    tail = 0.0
    for i, db in enumerate(level):
        if i * frame_s - tail > GAP_S:
            break
        if db >= floor:
            tail = (i + 1) * frame_s
    return OwnVoice(heard, room_dbfs, tail, holdoff_s)
