"""From one recognized utterance to one decision: accept an intent, confirm it, or ignore it.

The recognizer gives ranked hypotheses with scores in [0, 1]; the parser turns
each into an intent. Hypotheses reading as the same intent pool their scores
(a backend may spell one intent several ways). Then:

- the best intent scores below `accept_score`, or is no game phrase at all
  (table talk, the free transcript) -> **ignore**;
- it is legal now -> **accept**;
- it is illegal now but a legal intent scores within `confirm_margin` of it ->
  **confirm** that legal one ("¿Dijiste cinco quinas?"): the recognizer
  probably confused two close-sounding bids;
- otherwise -> **accept** the illegal intent, so the referee explains why it
  is illegal (bad input gets a clear answer and changes nothing).

A name said alone is accepted as `{"type": "none", "player": ...}`: it tells the
referee who is speaking but is no game action.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from voice_ref.language.intents import Intent
from voice_ref.voice.asr.base import Utterance

Action = Literal["accept", "confirm", "ignore"]


class TextParser(Protocol):
    def parse(self, text: str): ...  # noqa: ANN201 - returns language.parser.ParseResult


@dataclass(frozen=True, slots=True)
class Decision:
    intent: Intent | None
    action: Action
    score: float
    alternatives: tuple[tuple[Intent, float], ...] = ()
    heard: str = ""

    @property
    def is_game_action(self) -> bool:
        return self.action == "accept" and self.intent is not None and self.intent.type != "none"


def ranked_intents(
    utterance: Utterance, parser: TextParser
) -> list[tuple[Intent | None, float, str]]:
    """(intent or None, pooled score, best text) per distinct reading, best first."""
    pooled: dict[str, tuple[Intent | None, float, str]] = {}
    for hyp in utterance.hypotheses:
        intent = parser.parse(hyp.text).intent if hyp.text.strip() else None
        key = repr(intent.to_json()) if intent is not None else "\0" + hyp.text
        old = pooled.get(key)
        pooled[key] = (intent, hyp.score + (old[1] if old else 0.0), old[2] if old else hyp.text)
    return sorted(pooled.values(), key=lambda item: -item[1])


def decide(
    utterance: Utterance,
    parser: TextParser,
    is_legal: Callable[[Intent], bool] = lambda intent: True,
    accept_score: float = 0.5,
    confirm_margin: float = 0.15,
) -> Decision:
    ranked = ranked_intents(utterance, parser)
    if not ranked:
        return Decision(None, "ignore", 0.0)
    intent, score, text = ranked[0]
    alternatives = tuple((i, round(s, 4)) for i, s, _ in ranked[1:] if i is not None)
    if intent is None or score < accept_score:
        return Decision(None, "ignore", round(score, 4), alternatives, text)
    if intent.type == "none" or is_legal(intent):
        return Decision(intent, "accept", round(score, 4), alternatives, text)
    for alt, alt_score, alt_text in ranked[1:]:
        if alt is None or alt.type == "none" or score - alt_score > confirm_margin:
            continue
        if is_legal(alt):
            rest = tuple((i, s) for i, s in alternatives if i != alt)
            return Decision(
                alt, "confirm", round(alt_score, 4), ((intent, round(score, 4)), *rest), alt_text
            )
    return Decision(intent, "accept", round(score, 4), alternatives, text)
