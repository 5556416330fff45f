"""A table without speech models, for testing the simulator: players "speak" a tone, and a
recognizer that finds sound by energy (tests/oracle_recognizer.py) hears, for each stretch of
sound, the text that was rendered — or what a test says it mishears instead.

The referee's announcements are tones too (as long as their words take to say): if the
self-hearing guard let one through, the recognizer would take it for the next player's line
and the game would go out of step.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import numpy as np
from oracle_recognizer import OracleRecognizer

from voice_ref.language.spoken import syllables
from voice_ref.voice.asr.base import Hypothesis, Utterance

RATE = 16000


def tone(seconds: float, amplitude: float = 0.1) -> np.ndarray:
    t = np.arange(int(RATE * seconds)) / RATE
    return (amplitude * np.sin(2 * np.pi * 220 * t)).astype(np.float32)


Mishear = Callable[[int, str], list[tuple[str, float]] | None]


class EchoRecognizer(OracleRecognizer):
    """Hears each sound as the next rendered line (score 0.95), unless `mishear(n, text)` for
    the n-th line (from 0) gives other hypotheses [(text, score), ...] best first."""

    name = "scripted"
    model = "echo"

    def __init__(self, mishear: Mishear = lambda _n, _text: None) -> None:
        super().__init__([])
        self.spoken: deque[str] = deque()
        self.mishear = mishear
        self.heard: list[str] = []

    def _close(self) -> list[Utterance]:
        start, self._start = self._start, None
        if self._last_sound - start < 0.15:
            return []
        text = self.spoken.popleft() if self.spoken else "(nobody spoke)"
        hypotheses = self.mishear(len(self.heard), text) or [(text, 0.95)]
        self.heard.append(text)
        return [Utterance(tuple(Hypothesis(t, s) for t, s in hypotheses), start,
                          self._last_sound, self._t)]


class ToneVoices:
    """The players' renderer: a tone per line, the text handed to the recognizer."""

    def __init__(self, recognizer: EchoRecognizer) -> None:
        self.recognizer = recognizer
        self.said: list[tuple[str, str]] = []

    def render(self, speaker: str, text: str) -> tuple[np.ndarray, float, float]:
        self.recognizer.spoken.append(text)
        self.said.append((speaker, text))
        lead = np.zeros(int(RATE * 0.3), np.float32)
        seconds = max(0.3, 0.18 * syllables(text))  # as long as the words take to say
        return np.concatenate([lead, tone(seconds), lead]), 0.3, 0.3 + seconds


def referee_tone(text: str) -> np.ndarray:
    """The loudspeaker: a tone as long as the words take (0.3 s a word)."""
    return tone(0.3 * len(text.split()), 0.2)
