"""The table's "no"s at one question: a call refused with "no" to "¿Dijiste …?" counts
against that reading until the game moves, and never bans it (a "sí" misheard as "no"
must not lock the table out of its own call).

Table-driven on `decide` with a stated `GameView`, then the live loop's decider with a
real referee through a stuck count (an espeak "tres" Whisper hears as anything but).
No audio and no model.
"""

from __future__ import annotations

import pytest

from voice_ref.config import load_config
from voice_ref.dialogue.referee import Referee
from voice_ref.dialogue.setup import TableSetup
from voice_ref.language.intents import BidIntent, Intent, NumberIntent
from voice_ref.language.lexicon import Lexicon
from voice_ref.language.parser import Parser
from voice_ref.voice.asr.base import Hypothesis, Utterance
from voice_ref.voice.decision import (
    Action,
    GameView,
    Refusals,
    Thresholds,
    decide,
    make_decider,
)

PARSER = Parser(["Ana", "Beto", "Carla"])
NO_WORDS = Lexicon.of([])
# Fixed numbers, so the tests check the rule and not the tuned defaults.
LIMITS = Thresholds(accept=0.45, accept_doubted=0.7, confirm=0.3, refused_penalty=3.0)
TRES, DIEZ, CERO = NumberIntent(value=3), NumberIntent(value=10), NumberIntent(value=0)
TWO_TRAINS = BidIntent(quantity=2, face=3)


def utt(*hyps: tuple[str, float], start: float = 0.0, end: float = 1.0) -> Utterance:
    return Utterance(tuple(Hypothesis(t, s) for t, s in hyps), start, end)


# (heard, refused, wary, action, intent)
CASES = [
    # No history: the best reading is asked about.
    ((("diez", 0.35), ("tres", 0.3), ("qué calor", 0.35)), (), False, Action.CONFIRM, DIEZ),
    # "diez" refused once: it is no longer the best reading; "tres" is.
    ((("diez", 0.45), ("tres", 0.35), ("qué calor", 0.2)), (DIEZ,), True,
     Action.CONFIRM, TRES),
    # A "no" says nothing for game speech: the refused reading's mass goes back to
    # table talk too, which now outweighs "tres".
    ((("diez", 0.35), ("tres", 0.3), ("qué calor", 0.35)), (DIEZ,), True,
     Action.IGNORE, None),
    # Never a ban: refused once, then heard clearly, it is still taken.
    ((("diez", 0.99), ("qué calor", 0.01)), (DIEZ,), True, Action.ACCEPT, DIEZ),
    # ... but a middling repeat of a refused call is not asked about again.
    ((("cero", 0.6), ("qué calor", 0.4)), (CERO,), True, Action.IGNORE, None),
    # Without a "no" the same is taken at once.
    ((("cero", 0.6), ("qué calor", 0.4)), (), False, Action.ACCEPT, CERO),
    # Each "no" counts: refused twice, even 0.99 is no longer enough to act on.
    ((("diez", 0.99), ("qué calor", 0.01)), (DIEZ, DIEZ), True, Action.IGNORE, None),
    # A refusal of another call changes nothing for this one.
    ((("cero", 0.6), ("qué calor", 0.4)), (DIEZ,), False, Action.ACCEPT, CERO),
    # Bids too: the refused bid gives way to the other reading.
    ((("dos trenes", 0.4), ("dos tontos", 0.35), ("qué calor", 0.25)), (TWO_TRAINS,),
     True, Action.CONFIRM, BidIntent(quantity=2, face=2)),
]


@pytest.mark.parametrize(("heard", "refused", "wary", "action", "intent"), CASES)
def test_a_no_counts_against_its_reading(
    heard: tuple[tuple[str, float], ...],
    refused: tuple[Intent, ...],
    wary: bool,
    action: Action,
    intent: Intent | None,
) -> None:
    view = GameView(refused=refused, wary=wary)
    d = decide(utt(*heard), PARSER, view=view, limits=LIMITS, lexicon=NO_WORDS)
    assert (d.action, d.intent) == (action, intent)


def test_switched_off_a_refusal_changes_nothing() -> None:
    off = Thresholds(accept=0.45, confirm=0.3, refused_penalty=0.0)
    heard = utt(("diez", 0.35), ("tres", 0.3), ("qué calor", 0.35))
    plain = decide(heard, PARSER, view=GameView(), limits=off, lexicon=NO_WORDS)
    refused = decide(heard, PARSER, view=GameView(refused=(DIEZ,)), limits=off,
                     lexicon=NO_WORDS)
    assert (plain.action, plain.intent, plain.score) == (
        refused.action, refused.intent, refused.score)


def test_refusals_count_each_no_and_ignore_the_player() -> None:
    nos = Refusals(5, "count").with_no(NumberIntent(value=10, player="Ana")).with_no(DIEZ)
    assert nos.refused == (DIEZ, DIEZ) and nos.corrected
    assert GameView(refused=nos.refused).refusal_nats(TRES, LIMITS) == 0.0
    assert GameView(refused=nos.refused).refusal_nats(DIEZ, LIMITS) == pytest.approx(-6.0)
    # A "no" to a question about no call refuses nothing but is still a correction.
    blank = Refusals(5, "count").with_no(None)
    assert blank.refused == () and blank.corrected


# -- the live loop's decider with a real referee ------------------------------------------


def referee_at_a_count() -> Referee:
    referee = Referee(TableSetup(("Ana", "Beto", "Carla"), "chile", starter="Ana",
                                 direction="izquierda"))
    referee.opening()
    assert referee.handle_text("dos quinas").accepted
    assert referee.handle_text("dudo").accepted and referee.expecting == "count"
    return referee


def test_a_stuck_count_gets_through() -> None:
    """Session 9's games: an espeak "tres" heard as "son 0", "diez", "once" in turn, with
    "tres" second or third each time; the referee asked about "son 0" again and again
    (a count's "no" was not remembered, only a bid's). Now each "no" counts against its
    reading, no count is asked about twice, and "tres" comes up."""
    referee = referee_at_a_count()
    decide_live = make_decider(load_config())
    tries = [
        utt(("son cero", 0.45), ("son tres", 0.3), ("once", 0.1), ("vune", 0.15)),
        utt(("diez", 0.4), ("son tres", 0.3), ("son cero", 0.15), ("vunez", 0.15)),
        utt(("once", 0.35), ("son cero", 0.25), ("son tres", 0.25), ("punes", 0.15)),
    ]
    asked: list[Intent] = []
    for heard in tries * 2:
        verdict = decide_live(heard, referee, referee.expecting)
        if verdict.action == Action.CONFIRM and verdict.intent != TRES:
            asked.append(verdict.intent)
            no = decide_live(utt(("no", 0.95), ("sí", 0.05)), referee, "yes_no")
            assert no.action == Action.ACCEPT and no.intent.type == "no"
        elif verdict.intent == TRES:
            break
    else:
        pytest.fail(f"'tres' never came up; asked about {asked}")
    assert len(asked) == len(set(asked))  # no call asked about twice


def test_the_refusals_end_when_the_game_moves() -> None:
    """A call refused at Beto's turn is no longer held against it at Carla's."""
    referee = Referee(TableSetup(("Ana", "Beto", "Carla"), "chile", starter="Ana",
                                 direction="izquierda"))
    referee.opening()
    assert referee.handle_text("una quina").accepted
    decide_live = make_decider(load_config())
    asked = decide_live(utt(("tres trenes", 0.4), ("tres tontos", 0.3), ("qué calor", 0.3)),
                        referee, referee.expecting)
    assert asked.action == Action.CONFIRM and asked.intent == BidIntent(quantity=3, face=3)
    decide_live(utt(("no", 0.95), ("sí", 0.05)), referee, "yes_no")
    middling = utt(("tres trenes", 0.55), ("qué calor", 0.45))
    assert decide_live(middling, referee, referee.expecting).action == Action.IGNORE
    assert referee.handle_text("dos tontos").accepted  # Beto's call: the game moved
    heard = decide_live(middling, referee, referee.expecting)
    assert (heard.action, heard.intent) == (Action.ACCEPT, BidIntent(quantity=3, face=3))
