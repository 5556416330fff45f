"""The recognizer interface every backend implements (Vosk, Whisper).

Audio goes in as float32 mono blocks at the backend's `sample_rate`; finished
utterances come out, each with ranked hypotheses. The backend is told what the
referee is waiting for (`ListenContext`) between utterances, so a closed-vocabulary
backend can constrain itself (Vosk grammar) or score the expected phrases against
the audio (Whisper align).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from voice_ref.language.inventory import Phrase


@dataclass(frozen=True, slots=True)
class WordTiming:
    word: str
    start_s: float
    end_s: float
    confidence: float = 1.0


@dataclass(frozen=True, slots=True)
class Hypothesis:
    """One reading of an utterance. `score` is in [0, 1], higher is better, comparable
    between hypotheses of the same utterance (backends document how they map theirs)."""

    text: str
    score: float
    words: tuple[WordTiming, ...] = ()
    # Other texts of the same reading the backend pooled into this one, likeliest first
    # ("dudo" under "dudo dudo"): the decision layer weighs its evidence against the one
    # that fits the audio best.
    phrasings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Utterance:
    """A finished utterance: hypotheses best first, and where it was in the stream."""

    hypotheses: tuple[Hypothesis, ...]
    start_s: float  # stream time where speech started
    end_s: float  # stream time where speech ended
    decoded_at_s: float = 0.0  # stream time (audio consumed) when the result was ready
    free_text: str = ""  # unconstrained transcript, when the backend has one
    # Mean token log-probability of `free_text` (None: the backend does not say): how
    # sure the backend is that this is what was said (evidence for table talk).
    free_fluency: float | None = None
    extra: dict = field(default_factory=dict)  # backend-specific diagnostics

    @property
    def best(self) -> Hypothesis | None:
        return self.hypotheses[0] if self.hypotheses else None


@dataclass(frozen=True, slots=True)
class ListenContext:
    """What the referee is waiting for now.

    `expecting` is one of "turn" (bids, dudo/calzo/paso, commands, queries),
    "count" (a number), "yes_no", "choice" (abierta/cerrada or a direction),
    "pass_check" (sí/no or five dice), "starter" (a name) or "any".
    `phrases` are the inventory phrases allowed now (each with its intent).
    """

    expecting: str = "any"
    phrases: tuple[Phrase, ...] = ()


class Recognizer(Protocol):
    sample_rate: int
    name: str
    model: str

    def set_context(self, context: ListenContext) -> None:
        """Constrain or bias recognition to what is expected (called between utterances)."""

    def prepare(self, contexts: Sequence[ListenContext], background: bool = False) -> None:
        """Before the game: compute what does not depend on the audio for every context
        the table will use (and keep it), so answers do not wait for it. `background`:
        return at once and do long work at low priority while the table plays."""

    def accept(self, samples: np.ndarray) -> list[Utterance]:
        """Feed audio; return the utterances that finished inside it."""

    def flush(self) -> list[Utterance]:
        """End of stream: finish any utterance in progress."""

    def hearing_speech(self) -> bool:
        """Whether an utterance is open now (someone is speaking): the loop does not
        talk over it with a question of its own."""

    def reset(self) -> None:
        """Drop buffered audio and partial results (e.g. while the referee speaks)."""
