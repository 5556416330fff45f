"""A call cut in two by the VAD ("un" | "sexto") is joined in the decision layer; a fragment
that never gets its continuation is re-asked, never dropped silently. Synthetic utterances
with explicit times: no audio, no model, no clock."""

from __future__ import annotations

import pytest

from voice_ref.language.intents import BidIntent
from voice_ref.language.parser import Parser
from voice_ref.voice.asr.base import Hypothesis, Utterance
from voice_ref.voice.decision import Decider, GameView, Thresholds
from voice_ref.voice.decision.fragments import fragment_lead, joined

PARSER = Parser(["Ana", "Beto", "Carla"])
LIMITS = Thresholds(accept=0.5, accept_consequential=0.8, confirm=0.35, talk_similarity=0.5,
                    fluent=-0.8, fluent_words=-0.8, fluent_consequential=-0.8, sure_talk=9.0,
                    duration_logp=-6.0, free_agree=2.0,
                    accept_doubted=0.0)  # fmt: skip
TURN = GameView(
    kinds=frozenset({"bid", "dudo", "calzo", "paso", "repeat", "undo", "new_game", "query", "none"})
)
COUNT = GameView(kinds=frozenset({"number", "undo"}))


def utt(free: str, *hyps: tuple[str, float], start: float, end: float,
        fluency: float = -1.2) -> Utterance:  # fmt: skip
    """An utterance whose readings are `hyps` plus its free transcript (the garbage model)."""
    rest = 1.0 - sum(s for _, s in hyps)
    return Utterance(
        (*(Hypothesis(t, s) for t, s in hyps), Hypothesis(free, rest)),
        start,
        end,
        free_text=free,
        free_fluency=fluency,
    )


@pytest.mark.parametrize(
    ("free", "view", "lead"),
    [
        ("Un.", TURN, "Un"),
        ("cinco", TURN, "cinco"),
        ("¡Cinco!", TURN, "Cinco"),
        ("Ana, cinco.", TURN, "Ana, cinco"),
        ("14", TURN, "14"),
        ("Sextos.", TURN, "Sextos"),
        ("quina", TURN, "quina"),
        ("Cinco.", COUNT, ""),  # a count is an answer here, no fragment
        ("qué calor", TURN, ""),
        ("cinco quinas", TURN, ""),  # a whole bid: parses as a bid, not a bare count
        ("", TURN, ""),
        ("40 y", COUNT, "40 y"),  # cut after its "y": in any context
        ("Cuarenta y...", COUNT, "Cuarenta y"),
        ("papas y", COUNT, ""),
        ("40 y", GameView(kinds=frozenset({"yes", "no", "undo"})), ""),  # a sí / no question
    ],
)
def test_what_is_a_fragment(free: str, view: GameView, lead: str) -> None:
    assert fragment_lead(utt(free, start=0, end=0.4), PARSER, view) == lead


def test_joined_readings_are_prefixed_only_where_they_still_parse() -> None:
    first = utt("Un.", ("un tren", 0.2), start=0.0, end=0.3)
    second = utt("Sexto.", ("seis sextos", 0.6), start=0.9, end=1.4, fluency=-0.5)
    from voice_ref.voice.decision.fragments import Fragment

    both = joined(Fragment(first, "Un"), second, PARSER, TURN)
    assert [h.text for h in both.hypotheses] == ["seis sextos", "Un Sexto."]
    assert both.free_text == "Un Sexto."
    assert (both.start_s, both.end_s, both.free_fluency) == (0.0, 1.4, -1.2)


# (first free, first readings, second free, second readings, gap s, actions, final intent)
BID_1_6 = {"type": "bid", "quantity": 1, "face": 6, "clean": False}
BID_5_5 = {"type": "bid", "quantity": 5, "face": 5, "clean": False}
CASES = [
    pytest.param("Un.", [("un tren", 0.2)], "Sexto.", [("seis sextos", 0.6)], 0.6,
                 ("hold", "accept"), BID_1_6, id="un|sexto: the second alone would misread"),
    pytest.param("Cinco.", [], "Quinas.", [("cinco quinas", 0.3)], 0.4,
                 ("hold", "accept"), BID_5_5, id="cinco|quinas"),
    pytest.param("Cinco.", [], "Cinco quinas.", [("cinco quinas", 0.8)], 0.5,
                 ("hold", "accept"), BID_5_5, id="said again whole: the whole call"),
    pytest.param("Un.", [("un tren", 0.2)], "Sexto.", [("seis sextos", 0.6)], 2.5,
                 ("hold", "accept"), {"type": "bid", "quantity": 6, "face": 6, "clean": False},
                 id="too late to join: the rest is decided alone"),
    pytest.param("Cinco.", [], "¿Y las papas?", [("cinco papas", 0.1)], 2.5,
                 ("hold", "reask"), None, id="too late to join, talk after: reask"),
    pytest.param("Cinco.", [], "¿Quién trajo las papas?", [("cinco papas", 0.1)], 0.5,
                 ("hold", "reask"), None, id="talk after a number: reask"),
    pytest.param("Cinco.", [], "dudo", [("dudo", 0.95)], 0.5,
                 ("hold", "accept"), {"type": "dudo"}, id="a call after a number stands"),
    pytest.param("Tren", [], "Tres quinas.", [("trece quinas", 0.45), ("tres quinas", 0.35)],
                 0.4, ("hold", "accept"), {"type": "bid", "quantity": 3, "face": 5, "clean": False},
                 id="a face heard in an ehm: a join that reads as a hand loses no call"),
]  # fmt: skip


@pytest.mark.parametrize(("free1", "hyps1", "free2", "hyps2", "gap", "actions", "final"), CASES)
def test_fragment_then_continuation(free1, hyps1, free2, hyps2, gap, actions, final) -> None:  # noqa: ANN001
    decider = Decider(PARSER, LIMITS)
    first = decider(utt(free1, *hyps1, start=0.2, end=0.5), TURN)
    second = decider(utt(free2, *hyps2, start=0.5 + gap, end=1.3 + gap), TURN)
    assert (first.action, second.action) == actions
    assert not first.is_game_action
    got = second.intent.to_json() if second.action == "accept" else None
    assert got == final


def test_a_held_fragment_is_dropped_once_and_a_new_turn_forgets_it() -> None:
    decider = Decider(PARSER, LIMITS)
    assert decider(utt("Un.", start=0.0, end=0.3), TURN).action == "hold"
    assert decider.drop_fragment() is True
    assert decider.drop_fragment() is False
    assert decider(utt("Sexto.", start=0.8, end=1.2), TURN).action == "hold"  # a face alone
    decider.forget()
    assert decider.drop_fragment() is False


def test_a_name_before_a_cut_call_carries_over_the_join() -> None:
    decider = Decider(PARSER, LIMITS)
    name = decider(utt("Carla", ("Carla", 0.9), start=0.0, end=0.4, fluency=-0.2), TURN)
    held = decider(utt("Cinco.", start=0.8, end=1.1), TURN)
    call = decider(utt("Quinas.", ("cinco quinas", 0.3), start=1.6, end=2.1), TURN)
    assert name.action == "accept" and held.action == "hold"
    assert call.action == "accept"
    assert call.intent == BidIntent(quantity=5, face=5, player="Carla")


def test_no_fragment_is_held_where_a_count_answers() -> None:
    decider = Decider(PARSER, LIMITS)
    d = decider(utt("Cinco.", ("cinco", 0.7), start=0.0, end=0.4), COUNT)
    assert d.action == "accept" and d.intent.to_json() == {"type": "number", "value": 5}


def test_a_count_cut_after_its_y_is_joined_where_a_count_answers() -> None:
    decider = Decider(PARSER, LIMITS)
    first = decider(utt("40 y", ("40", 0.6), start=0.0, end=0.8, fluency=-0.7), COUNT)
    second = decider(utt("Siete.", ("siete", 0.9), start=1.1, end=1.5, fluency=-0.3), COUNT)
    assert first.action == "hold" and not first.is_game_action
    assert second.action == "accept" and second.intent.to_json() == {"type": "number", "value": 47}
