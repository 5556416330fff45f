"""The referee's loudspeaker in simulated time.

It has the live `Announcer`'s surface as far as `VoiceSession` uses it (`say`, `speaking`,
`deaf_at`, `wait_idle`, `close`), but time is the simulation's stream clock: a line starts
when the referee has finished thinking (`commit`) or when the previous line ends, and lasts
as long as its rendering. Its samples go back into the room (the microphone hears the
referee), so the session's self-hearing guard is what keeps them out of the recognizer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class SpokenLine:
    text: str
    start_s: float
    end_s: float  # cut short when an urgent line interrupts it
    samples: np.ndarray
    urgent: bool


class SimulatedAnnouncer:
    def __init__(
        self, render: Callable[[str], np.ndarray], sample_rate: int, holdoff_s: float = 0.3
    ) -> None:
        self.render = render
        self.sample_rate = sample_rate
        self.holdoff_s = holdoff_s
        self.now = 0.0  # the stream clock, set by the runner before it feeds a block
        self.lines: list[SpokenLine] = []
        self._pending: list[tuple[str, bool]] = []
        self.spoken_texts: list[str] = []
        self.errors: list[str] = []

    # -- what VoiceSession calls ---------------------------------------------------------

    def say(self, text: str, *, urgent: bool = False) -> None:
        text = text.strip()
        if text:
            self._pending.append((text, urgent))

    @property
    def speaking(self) -> bool:
        return bool(self._pending) or self.now < self.busy_until

    def deaf_at(self, t: float) -> bool:
        if self._pending and t >= self.now:
            return True
        return any(line.start_s <= t <= line.end_s + self.holdoff_s for line in self.lines[-4:])

    def wait_idle(self, timeout: float | None = None) -> bool:
        return True

    def close(self) -> None:
        self._pending.clear()

    # -- what the runner calls -----------------------------------------------------------

    @property
    def busy_until(self) -> float:
        return self.lines[-1].end_s if self.lines else 0.0

    @property
    def quiet_from(self) -> float:
        """When the table may speak again: the last line's end plus the hold-off."""
        return self.busy_until + self.holdoff_s if self.lines else 0.0

    def commit(self, at: float) -> list[SpokenLine]:
        """Schedule the lines said since the last commit; the referee was ready at `at`."""
        new: list[SpokenLine] = []
        for text, urgent in self._pending:
            if urgent and self.lines and self.lines[-1].end_s > at:
                last = self.lines[-1]  # an urgent line cuts off what is being said
                cut = max(last.start_s, at)
                keep = int((cut - last.start_s) * self.sample_rate)
                self.lines[-1] = SpokenLine(last.text, last.start_s, cut, last.samples[:keep],
                                            last.urgent)
            start = at if urgent else max(at, self.busy_until)
            samples = self.render(text)
            line = SpokenLine(text, start, start + len(samples) / self.sample_rate, samples,
                              urgent)
            self.lines.append(line)
            self.spoken_texts.append(text)
            new.append(line)
        self._pending.clear()
        return new
