"""The decision layer's values: what to do with an utterance (`Action`, `Decision`) and
one interpretation of it with its share of the evidence (`Reading`)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from voice_ref.language.intents import Intent, NameOnlyIntent


class Action(StrEnum):
    """What the loop does with an utterance (equal to its protocol string)."""

    ACCEPT = "accept"  # act on it
    CONFIRM = "confirm"  # ask "¿Dijiste …?" first
    IGNORE = "ignore"  # table talk or too unsure: nothing said
    HOLD = "hold"  # a fragment kept for its continuation ("un" | "sexto")
    REASK = "reask"  # a fragment that got none: ask the table to repeat


@dataclass(frozen=True, slots=True)
class Reading:
    """One interpretation of an utterance (an intent, or table talk) with its share of
    the recognizer's evidence, all its phrasings pooled."""

    intent: Intent | None  # None: table talk
    share: float
    text: str
    from_free: bool = False  # the free transcript reads as this intent
    # Every phrasing of this reading in the n-best, best first ("dudo dudo", "dudo",
    # "yo dudo"): the evidence about what was said compares the free transcript and the
    # speech's length with the phrasing that fits best, not only with the best-scored one
    # (a lone "dudo" often scores best as "dudo dudo", which "Duna" is half of).
    texts: tuple[str, ...] = ()
    # The words to show and log when the reading no longer names the player its phrase
    # began with ("3 dones" for "Ana 3 dones" whose "Ana" was a hesitation); `text` stays
    # the phrase scored, which the evidence compares with the free transcript.
    shown: str = ""
    # The free transcript spells this bid, but the phrase search heard the same number
    # of another face first ("Una cena." where the search had *una china*): the two
    # disagree about the face, so the bid is asked about, never taken (`readings`).
    face_disputed: bool = False

    @property
    def phrasings(self) -> tuple[str, ...]:
        return self.texts or (self.text,)


@dataclass(frozen=True, slots=True)
class Decision:
    """What to do with one utterance, and why (`why`, for the operator and the bench)."""

    intent: Intent | None
    action: Action
    score: float
    alternatives: tuple[tuple[Intent, float], ...] = ()
    heard: str = ""
    why: str = ""  # a short reason for the operator and the bench
    # An ignore's game reading that was sure enough to take and was ignored only for the
    # evidence that the words were table talk: a count said aloud goes on through it
    # ("uno" | "dos" written "No": `voice.session`).
    passed_over: Intent | None = None

    @property
    def is_game_action(self) -> bool:
        return self.action == Action.ACCEPT and self.intent is not None and not isinstance(
            self.intent, NameOnlyIntent
        )
