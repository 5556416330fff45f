"""Wariness after a correction: right after the table said "me equivoqué" (or "no" to
"¿Dijiste …?"), a game move needs `accept_doubted` share; a table going well is not slowed.

Table-driven, no audio and no model: the rule in `decide` on synthetic utterances, then
the live loop's decider with a real referee, through a correction and back.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from voice_ref.config import load_config
from voice_ref.dialogue.referee import Referee
from voice_ref.dialogue.setup import TableSetup
from voice_ref.language.intents import BidIntent, DudoIntent, Intent, NumberIntent, UndoIntent
from voice_ref.language.lexicon import Lexicon
from voice_ref.language.parser import Parser
from voice_ref.voice.asr.base import Hypothesis, ListenContext, Utterance
from voice_ref.voice.decision import (
    Action,
    GameView,
    Thresholds,
    bench_decider,
    decide,
    game_view,
    make_decider,
)

PARSER = Parser(["Ana", "Beto", "Carla"])
NO_WORDS = Lexicon.of([])
# Fixed numbers, so the tests check the rule and not the tuned defaults.
LIMITS = Thresholds(accept=0.45, accept_consequential=0.6, accept_doubted=0.7, confirm=0.3)


def utt(*hyps: tuple[str, float], start: float = 0.0, end: float = 1.0) -> Utterance:
    return Utterance(tuple(Hypothesis(t, s) for t, s in hyps), start, end)


def heard_as(text: str, share: float) -> Utterance:
    """`text` with `share`, the rest of the mass on table talk."""
    return utt((text, share), ("qué calor hace", round(1 - share, 4)))


FOUR_FIVES = BidIntent(quantity=4, face=5)

# (what was heard, its share, wary?, action, intent)
CASES = [
    # A table going well: a bid at the usual share is taken at once.
    ("cuatro quinas", 0.55, False, Action.ACCEPT, FOUR_FIVES),
    # Right after a correction the same share is asked about ...
    ("cuatro quinas", 0.55, True, Action.CONFIRM, FOUR_FIVES),
    # ... and a clearly heard call is still taken at once.
    ("cuatro quinas", 0.75, True, Action.ACCEPT, FOUR_FIVES),
    # Below `confirm` nothing changes: still too unsure to ask.
    ("cuatro quinas", 0.25, True, Action.IGNORE, None),
    # Counts and consequential moves are game moves too (a count misheard once is often
    # misheard again); a consequential one already needed 0.6, now 0.7.
    ("doce", 0.55, True, Action.CONFIRM, NumberIntent(value=12)),
    ("doce", 0.55, False, Action.ACCEPT, NumberIntent(value=12)),
    ("dudo", 0.65, True, Action.CONFIRM, DudoIntent()),
    ("dudo", 0.65, False, Action.ACCEPT, DudoIntent()),
    ("dudo", 0.75, True, Action.ACCEPT, DudoIntent()),
    # A second "me equivoqué" makes no move: taken as the first was.
    ("me equivoqué", 0.65, True, Action.ACCEPT, UndoIntent()),
]


@pytest.mark.parametrize(("text", "share", "wary", "action", "intent"), CASES)
def test_wariness_raises_the_share_a_game_move_needs(
    text: str, share: float, wary: bool, action: Action, intent: Intent | None
) -> None:
    view = GameView(wary=wary)
    d = decide(heard_as(text, share), PARSER, view=view, limits=LIMITS, lexicon=NO_WORDS)
    assert (d.action, d.intent) == (action, intent)
    if wary and action == Action.CONFIRM:
        assert d.why == "after a correction"


@pytest.mark.parametrize(("wary", "action"), [(False, Action.ACCEPT), (True, Action.ACCEPT)])
def test_an_illegal_reading_is_still_explained(wary: bool, action: Action) -> None:
    """Explaining why a call is illegal changes nothing: no question for it."""
    view = GameView(wary=wary, is_legal=lambda _intent: False)
    d = decide(heard_as("cuatro quinas", 0.55), PARSER, view=view, limits=LIMITS,
               lexicon=NO_WORDS)
    assert d.action == action and d.why == "illegal: explained"


def test_switched_off_with_accept_doubted_at_accept() -> None:
    limits = replace(LIMITS, accept_doubted=LIMITS.accept)
    d = decide(heard_as("cuatro quinas", 0.55), PARSER, view=GameView(wary=True),
               limits=limits, lexicon=NO_WORDS)
    assert d.action == Action.ACCEPT


def test_a_clip_bench_is_never_wary() -> None:
    """A clip has no history: the clip benches decide as before."""
    for_context = bench_decider(load_config(), ["Ana", "Beto", "Carla"])
    decide_clip = for_context(ListenContext("turn", ()))
    assert decide_clip(heard_as("cuatro quinas", 0.55)).action == Action.ACCEPT
    assert GameView.of_context(ListenContext("turn", ())).wary is False


# -- the live loop's decider with a real referee ------------------------------------------


def referee_at(bid: str) -> Referee:
    referee = Referee(TableSetup(("Ana", "Beto", "Carla"), "chile", starter="Ana",
                                 direction="izquierda"))
    referee.opening()
    assert referee.handle_text(bid).accepted
    return referee


def test_the_call_after_an_undo_is_asked_about_until_the_game_moves(tmp_path: Path) -> None:
    referee = referee_at("una quina")
    decide_live = make_decider(load_config())
    middling = heard_as("dos trenes", 0.6)  # above `accept` (0.45), below 0.7
    first = decide_live(middling, referee, referee.expecting)
    assert first.action == Action.ACCEPT  # a table going well: taken at once
    referee.handle_intent(first.intent)
    assert referee.handle_text("me equivoqué").accepted
    assert referee.corrected() and game_view(referee, referee.expecting).wary
    # Said again and heard as another bid (the one undone is no candidate, as before).
    again = decide_live(heard_as("dos cuadras", 0.6), referee, referee.expecting)
    assert again.action == Action.CONFIRM and again.intent == BidIntent(quantity=2, face=4)
    sure = decide_live(heard_as("dos cuadras", 0.9), referee, referee.expecting)
    assert sure.action == Action.ACCEPT
    referee.handle_intent(sure.intent)  # the game moved on: no longer wary
    assert not referee.corrected()
    assert decide_live(heard_as("tres trenes", 0.6), referee, referee.expecting).action == (
        Action.ACCEPT
    )


def test_a_no_to_did_you_say_makes_the_next_call_wary_and_rules_out_that_bid() -> None:
    referee = referee_at("una quina")
    decide_live = make_decider(load_config())
    unsure = utt(("dos trenes", 0.4), ("dos tontos", 0.35), ("qué calor", 0.25))
    asked = decide_live(unsure, referee, referee.expecting)
    assert asked.action == Action.CONFIRM and asked.intent == BidIntent(quantity=2, face=3)
    no = decide_live(utt(("no", 0.95), ("sí", 0.05)), referee, "yes_no")
    assert no.action == Action.ACCEPT and no.intent.type == "no"
    # Said again: "dos trenes" was refused, so the other reading is asked about, though
    # it now holds a share that a table going well would take at once.
    again = decide_live(unsure, referee, referee.expecting)
    assert again.action == Action.CONFIRM and again.intent == BidIntent(quantity=2, face=2)
    yes = decide_live(utt(("sí", 0.95), ("no", 0.05)), referee, "yes_no")
    assert yes.action == Action.ACCEPT and yes.intent.type == "yes"
    referee.handle_intent(again.intent)  # the loop acts on the confirmed call
    after = decide_live(heard_as("tres tontos", 0.6), referee, referee.expecting)
    assert after.action == Action.ACCEPT  # the game moved: no longer wary
    assert not game_view(referee, referee.expecting).wary


def test_a_yes_is_never_slowed_by_wariness() -> None:
    """The answer to the loop's own question is decided as before (the view is sí/no)."""
    referee = referee_at("una quina")
    decide_live = make_decider(load_config())
    referee.handle_text("dos trenes")
    referee.handle_text("me equivoqué")
    assert referee.corrected()
    assert not game_view(referee, "yes_no").wary
    assert game_view(referee, "yes_no").confirming  # the loop's "¿Dijiste …?"
    assert not game_view(referee, referee.expecting).confirming
    yes = decide_live(utt(("sí", 0.65), ("no", 0.35)), referee, "yes_no")
    assert yes.action == Action.ACCEPT


def test_a_count_taken_back_is_not_heard_again_at_that_count() -> None:
    """ "tres" heard as "una" at one count seven times, each undone (a simulated game,
    session 7): as with a bid, the count just taken back is no candidate."""
    referee = referee_at("dos quinas")
    assert referee.handle_text("dudo").accepted and referee.expecting == "count"
    decide_live = make_decider(load_config())
    misheard = utt(("una", 0.9), ("tres", 0.08), ("qué calor", 0.02))
    first = decide_live(misheard, referee, referee.expecting)
    assert first.action == Action.ACCEPT and first.intent == NumberIntent(value=1)
    assert referee.handle_intent(first.intent).accepted
    assert referee.handle_text("me equivoqué").accepted  # a result: asked first
    assert referee.handle_text("sí").accepted and referee.expecting == "count"
    assert referee.count_taken_back() == 1 and referee.taken_back() is None
    again = decide_live(misheard, referee, referee.expecting)
    assert again.intent == NumberIntent(value=3)
