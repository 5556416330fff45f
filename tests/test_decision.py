"""The decision layer, table-driven on synthetic utterances (no audio, no model)."""

from __future__ import annotations

import pytest

from voice_ref.language.intents import BidIntent, DudoIntent, Intent
from voice_ref.language.parser import Parser
from voice_ref.voice.asr.base import Hypothesis, Utterance
from voice_ref.voice.decision import decide

PARSER = Parser(["Ana", "Beto"])


def utt(*hyps: tuple[str, float]) -> Utterance:
    return Utterance(tuple(Hypothesis(t, s) for t, s in hyps), 0.0, 1.0)


def only_bid(quantity: int, face: int):  # noqa: ANN201
    """A legality check under which exactly one bid (and no other intent) is legal."""
    return lambda i: isinstance(i, BidIntent) and (i.quantity, i.face) == (quantity, face)


def everything_legal(_intent: Intent) -> bool:
    return True


# (hypotheses, is_legal, expected action, expected intent JSON or None)
CASES = [
    pytest.param([("cinco quinas", 0.9), ("cinco cuadras", 0.1)], everything_legal,
                 "accept", {"type": "bid", "quantity": 5, "face": 5, "clean": False},
                 id="clear-bid"),
    pytest.param([("cinco quinas", 0.3), ("qué calor", 0.25)], everything_legal,
                 "ignore", None, id="below-accept-score"),
    pytest.param([("qué calor hace aquí", 0.8), ("dudo", 0.2)], everything_legal,
                 "ignore", None, id="table-talk-wins"),
    pytest.param([("cinco quinas", 0.5), ("cinco cuadras", 0.4)], only_bid(5, 4),
                 "confirm", {"type": "bid", "quantity": 5, "face": 4, "clean": False},
                 id="illegal-with-close-legal-alternative"),
    pytest.param([("cinco quinas", 0.85), ("cinco cuadras", 0.1)], only_bid(5, 4),
                 "accept", {"type": "bid", "quantity": 5, "face": 5, "clean": False},
                 id="illegal-alternative-too-far-referee-explains"),
    pytest.param([("cinco quinas", 0.3), ("hay cinco quinas", 0.3), ("qué tal", 0.4)],
                 everything_legal, "accept",
                 {"type": "bid", "quantity": 5, "face": 5, "clean": False},
                 id="phrasings-of-one-intent-pool"),
    pytest.param([("Ana", 0.9)], everything_legal, "accept",
                 {"type": "none", "player": "Ana"}, id="name-alone"),
    pytest.param([("Beto, dudo", 0.7), ("dudo", 0.2)], everything_legal, "accept",
                 {"type": "dudo", "player": "Beto"}, id="named-command"),
    pytest.param([("cinco quinas", 0.55), ("Ana", 0.45)], only_bid(9, 9), "accept",
                 {"type": "bid", "quantity": 5, "face": 5, "clean": False},
                 id="a-name-is-no-alternative-bid"),
    pytest.param([], everything_legal, "ignore", None, id="nothing-heard"),
]


@pytest.mark.parametrize(("hyps", "legal", "action", "intent"), CASES)
def test_decision_table(hyps, legal, action, intent) -> None:  # noqa: ANN001
    d = decide(utt(*hyps), PARSER, legal, accept_score=0.5, confirm_margin=0.15)
    assert d.action == action
    assert (d.intent.to_json() if d.intent else None) == intent


def test_confirmation_keeps_the_heard_bid_as_first_alternative() -> None:
    d = decide(utt(("cinco quinas", 0.5), ("cinco cuadras", 0.4)), PARSER, only_bid(5, 4))
    assert d.action == "confirm"
    assert d.alternatives[0][0] == BidIntent(quantity=5, face=5)
    assert d.heard == "cinco cuadras"


@pytest.mark.parametrize("threshold", [0.2, 0.5, 0.8])
def test_accept_score_is_the_boundary(threshold: float) -> None:
    above = decide(utt(("dudo", threshold + 0.01)), PARSER, accept_score=threshold)
    below = decide(utt(("dudo", threshold - 0.01)), PARSER, accept_score=threshold)
    assert above.action == "accept" and above.intent == DudoIntent()
    assert below.action == "ignore" and below.intent is None
    assert not below.is_game_action and above.is_game_action
