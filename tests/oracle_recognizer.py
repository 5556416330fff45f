"""A recognizer that knows the script: every stretch of sound it hears is the next line.

It finds speech by energy alone, so it is fooled by *any* sound, including the referee's
own voice: if the self-hearing guard let one announcement through, that announcement
would take a player's line and the last player would get nothing. That makes it a strict
test of the live audio path (devices, timing, the guard) without a speech model.

Run as a program it is `voice-ref` with this recognizer:
    python tests/oracle_recognizer.py LINES.json -- --config c.toml play --json ...
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from voice_ref.voice.asr.base import Hypothesis, ListenContext, Utterance

FRAME_S = 0.02
LEVEL = 0.02  # RMS above this is sound (the virtual card's silence is exactly zero)
END_SILENCE_S = 0.4
MIN_SOUND_S = 0.15


class OracleRecognizer:
    sample_rate = 16000
    name = "oracle"
    model = "script"

    def __init__(self, lines: list[str]) -> None:
        self.lines = list(lines)
        self.segments: list[tuple[float, float]] = []
        self._buffer = np.zeros(0, np.float32)
        self._t = 0.0
        self._start: float | None = None
        self._last_sound = 0.0

    def set_context(self, context: ListenContext) -> None:
        pass

    def prepare(self, contexts: Sequence[ListenContext], background: bool = False) -> None:
        self.prepared = list(contexts)
        self.in_background = background

    def accept(self, samples: np.ndarray) -> list[Utterance]:
        self._buffer = np.concatenate([self._buffer, samples])
        frame = int(self.sample_rate * FRAME_S)
        out = []
        while len(self._buffer) >= frame:
            chunk, self._buffer = self._buffer[:frame], self._buffer[frame:]
            self._t += FRAME_S
            if float(np.sqrt(np.mean(chunk**2))) > LEVEL:
                if self._start is None:
                    self._start = self._t
                self._last_sound = self._t
            elif self._start is not None and self._t - self._last_sound >= END_SILENCE_S:
                out += self._close()
        return out

    def flush(self) -> list[Utterance]:
        return self._close() if self._start is not None else []

    def reset(self) -> None:
        self._buffer = np.zeros(0, np.float32)
        self._start = None

    def hearing_speech(self) -> bool:
        return self._start is not None

    def _close(self) -> list[Utterance]:
        start, self._start = self._start, None
        if self._last_sound - start < MIN_SOUND_S:
            return []
        self.segments.append((start, self._last_sound))
        print(f"oracle: sound {start:.2f}-{self._last_sound:.2f}", file=sys.stderr, flush=True)
        text = self.lines.pop(0) if self.lines else "(nothing left in the script)"
        return [Utterance((Hypothesis(text, 0.95),), start, self._last_sound, self._t)]


def main() -> int:
    lines = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    argv = sys.argv[sys.argv.index("--") + 1 :]
    from voice_ref import app, cli

    app.recognizer_for = lambda args, config: OracleRecognizer(lines)
    return cli.main(argv)


if __name__ == "__main__":
    sys.exit(main())
