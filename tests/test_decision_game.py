"""The decision layer with a real referee: what the game knows shapes what is heard.

No audio and no model: utterances are written by hand, as a backend (Vosk or Whisper)
would deliver them, and go through `make_decider` exactly as in the live loop.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from voice_ref.config import load_config
from voice_ref.dialogue.referee import Referee
from voice_ref.dialogue.setup import TableSetup
from voice_ref.language.intents import BidIntent, DudoIntent, NameOnlyIntent, NumberIntent
from voice_ref.language.parser import Parser
from voice_ref.voice.asr.base import Hypothesis, Utterance
from voice_ref.voice.decision import (
    Action,
    Decider,
    Heard,
    Thresholds,
    decide,
    game_view,
    make_decider,
    phrases_now,
)
from voice_ref.voice.decision.readings import readings
from voice_ref.voice.decision.table import heard_record, taken_back


def referee_at_a_bid(_tmp: Path, bid: str | None = None) -> Referee:
    referee = Referee(TableSetup(("Ana", "Beto", "Carla"), "chile", starter="Ana",
                                 direction="izquierda"))
    referee.opening()
    if bid is not None:
        referee.handle_text(bid)
    return referee


def utt(*hyps: tuple[str, float], start: float = 0.0, end: float = 1.0) -> Utterance:
    return Utterance(tuple(Hypothesis(t, s) for t, s in hyps), start, end)


def test_the_view_knows_dice_kinds_and_likely_raises(tmp_path: Path) -> None:
    referee = referee_at_a_bid(tmp_path, "dos quinas")
    view = game_view(referee, referee.expecting)
    assert view.dice_on_table == 15
    assert "bid" in view.kinds and "number" not in view.kinds
    assert view.is_likely(BidIntent(quantity=3, face=5))  # one more of the same face
    assert not view.is_likely(BidIntent(quantity=9, face=5))


def test_a_bid_above_the_dice_on_the_table_is_no_candidate(tmp_path: Path) -> None:
    referee = referee_at_a_bid(tmp_path)
    decide = make_decider(load_config())
    heard = decide(utt(("cuarenta quinas", 0.55), ("cuatro quinas", 0.4), ("x", 0.05)),
                   referee, referee.expecting)
    assert heard.action == "accept" and heard.intent == BidIntent(quantity=4, face=5)


def test_a_bare_number_is_no_answer_while_a_bid_is_expected(tmp_path: Path) -> None:
    referee = referee_at_a_bid(tmp_path)
    decide = make_decider(load_config())
    heard = decide(utt(("cuatro quinas", 0.48), ("48", 0.3), ("14", 0.22)),
                   referee, referee.expecting)
    assert heard.action == "accept" and heard.intent == BidIntent(quantity=4, face=5)


def test_a_near_threshold_legal_bid_is_confirmed_in_the_referees_words(tmp_path: Path) -> None:
    referee = referee_at_a_bid(tmp_path, "dos quinas")
    decide = make_decider(load_config())
    heard = decide(utt(("nueve trenes", 0.42), ("qué calor", 0.3), ("hace frío", 0.28)),
                   referee, referee.expecting)
    assert heard.action == "confirm" and heard.intent == BidIntent(quantity=9, face=3)
    assert heard.question.startswith("¿") and "nueve" in heard.question


def test_an_unsure_count_is_asked_back_with_the_face_counted(tmp_path: Path) -> None:
    """ "¿Dijiste cuatro quinas?", not Whisper's "¿Dijiste son 4?"; zero keeps the words
    heard ("¿Dijiste no hay?")."""
    referee = referee_at_a_bid(tmp_path, "dos quinas")
    referee.handle_text("dudo")
    decide = make_decider(load_config())
    heard = decide(utt(("son 4", 0.55), ("qué calor", 0.45)), referee, referee.expecting)
    assert heard.action == "confirm" and heard.intent == NumberIntent(4)
    assert heard.question == "¿Dijiste cuatro quinas?"
    heard = decide(utt(("no hay", 0.55), ("qué calor", 0.45)), referee, referee.expecting)
    assert heard.intent == NumberIntent(0) and heard.question == "¿Dijiste no hay?"


def test_an_unsure_dudo_is_confirmed_not_accepted(tmp_path: Path) -> None:
    referee = referee_at_a_bid(tmp_path, "dos quinas")
    decide = make_decider(load_config())
    unsure = decide(utt(("dudo", 0.52), ("qué calor", 0.48)), referee, referee.expecting)
    sure = decide(utt(("dudo", 0.97), ("qué calor", 0.03)), referee, referee.expecting)
    assert unsure.action == "confirm" and unsure.intent == DudoIntent()
    assert sure.action == "accept"


def test_name_pause_call_in_the_live_decider(tmp_path: Path) -> None:
    referee = referee_at_a_bid(tmp_path, "dos quinas")
    decide = make_decider(load_config())
    name = decide(utt(("Beto", 0.95), ("x", 0.05), start=3.0, end=3.4), referee, "turn")
    call = decide(utt(("tres quinas", 0.95), ("x", 0.05), start=3.7, end=4.4), referee, "turn")
    # The name is held (no reply that would talk over the call), then given to the call.
    assert name.action == "ignore" and name.intent == NameOnlyIntent(player="Beto")
    assert call.action == "accept" and call.intent == BidIntent(quantity=3, face=5, player="Beto")


def test_the_recognizer_listens_only_for_quantities_on_the_table(tmp_path: Path) -> None:
    from voice_ref.voice.decision import phrases_now

    referee = referee_at_a_bid(tmp_path, "dos quinas")
    everything = referee.allowed_phrases()
    now = phrases_now(referee)
    assert 0 < len(now) < len(everything)
    assert max(p.intent.quantity for p in now if isinstance(p.intent, BidIntent)) == 15
    assert {p.intent.type for p in now} == {p.intent.type for p in everything}


def test_a_bid_taken_back_is_not_heard_again_until_the_game_moves_on(tmp_path: Path) -> None:
    """ "dos cuadras" heard as "dos donas", undone, said again and heard "dos donas" again
    (fourteen times in one simulated game): the reading just taken back is no candidate."""
    referee = referee_at_a_bid(tmp_path, "una quina")
    decide = make_decider(load_config())
    misheard = utt(("dos donas", 0.8), ("dos cuadras", 0.15), ("x", 0.05))
    first = decide(misheard, referee, referee.expecting)
    assert first.action == "accept" and first.intent == BidIntent(quantity=2, face=2)
    referee.handle_intent(first.intent)
    assert referee.handle_text("me equivoqué").accepted
    assert taken_back(referee) == BidIntent(quantity=2, face=2)
    again = decide(misheard, referee, referee.expecting)
    assert again.intent == BidIntent(quantity=2, face=4)
    texts = {p.text for p in phrases_now(referee)}
    # No phrasing of the bid taken back is offered to Whisper ("donas" never is).
    assert not {"dos tontos", "dos dones", "dos patos"} & texts and "dos cuadras" in texts
    referee.handle_intent(again.intent)
    assert referee.taken_back() is None  # the game moved on: any bid may come next


# -- answering "¿Dijiste …?": sí, no, or the call said again ----------------------------


def confirming(referee: Referee, doubtful: Utterance):  # noqa: ANN201
    """The loop's decider, after it asked "¿Dijiste …?" about `doubtful`: the answer is
    decided next, in the yes/no context."""
    decide = make_decider(load_config())
    asked = decide(doubtful, referee, referee.expecting)
    assert asked.action == "confirm"
    return decide, asked.intent


# A recorded session's espeak "dudo" (test_session_wav, session 8): other words in the free
# transcript, so the reading needs more share than it has and is asked about.
DOUBTFUL_DUDO = Utterance(
    (Hypothesis("quién va", 0.45), Hypothesis("dudo", 0.36), Hypothesis("Carla", 0.07),
     Hypothesis("Ana", 0.05), Hypothesis("dos patos", 0.04), Hypothesis("Cumpa", 0.03)),
    0.0, 0.35, free_text="Cumpa", free_fluency=-2.4,
)


def test_a_doubtful_si_to_the_loops_question_is_asked_again(tmp_path: Path) -> None:
    """A games bench's "no" came out "sí" at 0.63 with the free transcript "Congeo": other
    words, so the sí needs the doubted share and the question is asked again, as a call
    would be. (Judged as a move, a "sí" was illegal and was taken at the plain share.)"""
    referee = referee_at_a_bid(tmp_path, "dos quinas")
    decide, _ = confirming(referee, DOUBTFUL_DUDO)
    doubtful = Utterance((Hypothesis("sí", 0.63), Hypothesis("no", 0.37)), 0.0, 0.4,
                         free_text="Congeo", free_fluency=-2.37)
    heard = decide(doubtful, referee, "yes_no")
    assert heard.action != "accept"
    clear = Utterance((Hypothesis("sí", 0.9), Hypothesis("no", 0.1)), 0.0, 0.4,
                      free_text="Sí.", free_fluency=-0.3)
    assert decide(clear, referee, "yes_no").action == "accept"


def test_a_bid_the_dice_cannot_hold_gives_way_to_the_plausible_one(tmp_path: Path) -> None:
    """15 dice, "dos sextos" standing: "catorce cuadras" is "cuatro cuadras" misheard
    (neither is a likely raise: the minimum is three)."""
    referee = referee_at_a_bid(tmp_path, "dos sextos")
    view = game_view(referee, referee.expecting)
    heard = utt(("catorce cuadras", 0.5), ("cuatro cuadras", 0.4), ("qué calor", 0.1))
    parser = Parser(list(referee.players))
    assert decide(heard, parser, view=view, limits=Thresholds()).intent == BidIntent(4, 4)
    off = Thresholds(implausible_nats=0.0)
    assert decide(heard, parser, view=view, limits=off).intent == BidIntent(14, 4)


def test_the_bid_ceiling_follows_the_bidding(tmp_path: Path) -> None:
    referee = referee_at_a_bid(tmp_path, "dos sextos")
    limits = Thresholds()
    view = game_view(referee, referee.expecting)
    assert view.implausible_nats(BidIntent(8, 6), limits) == 0.0  # 8.7 of 15 wild dice
    assert view.implausible_nats(BidIntent(13, 6), limits) < -4.0
    assert view.implausible_nats(BidIntent(6, 1), limits) < 0.0  # aces: 5.4 of 15
    referee.handle_text("nueve sextos")  # the bidding is past the dice's ceiling
    view = game_view(referee, referee.expecting)
    assert view.implausible_nats(BidIntent(10, 6), limits) == 0.0  # the minimum raise
    assert view.implausible_nats(BidIntent(11, 5), limits) == 0.0  # one over it
    assert view.implausible_nats(BidIntent(13, 5), limits) == -2.0 * limits.implausible_nats


def test_a_bid_far_below_the_least_raise_gives_way_to_the_call(tmp_path: Path) -> None:
    """A games bench's "dudo" over "cuatro sextos" came out "una quina": nobody misjudges a
    raise by four, so the dudo behind it is taken, and no rule is explained to a player
    who never broke it."""
    referee = referee_at_a_bid(tmp_path, "cuatro sextos")
    view = game_view(referee, referee.expecting)
    heard = utt(("una quina", 0.8), ("dudo", 0.15), ("qué calor", 0.05))
    parser = Parser(list(referee.players))
    assert decide(heard, parser, view=view, limits=Thresholds()).intent == DudoIntent()
    off = Thresholds(far_below_nats=0.0)
    assert decide(heard, parser, view=view, limits=off).intent == BidIntent(1, 5)


def test_a_raise_just_too_low_is_still_heard_and_explained(tmp_path: Path) -> None:
    """The same bid again or one less is what a player who misjudges a raise says: it
    keeps its share, so the referee explains the rule."""
    referee = referee_at_a_bid(tmp_path, "cuatro sextos")
    limits = Thresholds()
    view = game_view(referee, referee.expecting)
    assert view.minimums[(6, False)] == 5 and view.minimums[(1, False)] == 3
    assert view.far_below_nats(BidIntent(4, 6), limits) == 0.0  # the same again
    assert view.far_below_nats(BidIntent(3, 6), limits) == 0.0  # one less
    assert view.far_below_nats(BidIntent(2, 6), limits) == -limits.far_below_nats
    assert view.far_below_nats(BidIntent(1, 1), limits) == 0.0  # aces: least is three
    assert view.far_below_nats(DudoIntent(), limits) == 0.0
    heard = utt(("cuatro sextos", 0.7), ("catorce sextos", 0.2), ("qué calor", 0.1))
    verdict = decide(heard, Parser(list(referee.players)), view=view, limits=limits)
    assert verdict.intent == BidIntent(4, 6) and verdict.why == "illegal: explained"


def test_an_opening_bid_is_never_far_below(tmp_path: Path) -> None:
    referee = referee_at_a_bid(tmp_path)
    view = game_view(referee, referee.expecting)
    assert view.minimums == {}
    assert view.far_below_nats(BidIntent(1, 5), Thresholds()) == 0.0


def test_the_dice_move_mass_among_bids_never_to_table_talk(tmp_path: Path) -> None:
    referee = referee_at_a_bid(tmp_path, "dos sextos")
    view = game_view(referee, referee.expecting)
    parser = Parser(list(referee.players))
    ranked, _ = readings(utt(("trece sextos", 0.5), ("qué calor", 0.5)), parser, view,
                         Thresholds())
    assert [round(r.share, 6) for r in ranked] == [0.5, 0.5]


def test_the_count_leans_on_the_odds_of_the_dice(tmp_path: Path) -> None:
    """15 dice, aces wild: one sexto is 2 nats rarer than three (binomial)."""
    referee = referee_at_a_bid(tmp_path, "dos sextos")
    referee.handle_text("dudo")
    assert referee.expecting == "count"
    view = game_view(referee, referee.expecting)
    assert max(view.count_logp.values()) == 0.0 and view.count_logp[5] == 0.0
    heard = utt(("una", 0.5), ("tres", 0.4), ("qué calor", 0.1))
    parser = Parser(list(referee.players))
    assert decide(heard, parser, view=view, limits=Thresholds()).intent == NumberIntent(3)
    off = Thresholds(count_prior=0.0)
    assert decide(heard, parser, view=view, limits=off).intent == NumberIntent(1)


def test_no_count_odds_outside_the_count(tmp_path: Path) -> None:
    referee = referee_at_a_bid(tmp_path, "dos sextos")
    assert game_view(referee, referee.expecting).count_logp == {}


def free(text: str, fluency: float | None) -> Utterance:
    """Only what a backend listening for sí / no has of a call: its free transcript."""
    return Utterance((Hypothesis(text, 1.0),), 0.0, 1.0, free_text=text, free_fluency=fluency)


@pytest.mark.parametrize(
    ("said", "fluency", "call"),
    [
        ("Cuatro quinas.", -0.2, BidIntent(quantity=4, face=5)),
        ("Dudo.", -0.3, DudoIntent()),
        ("Cuatro quinas.", -1.5, None),  # not sure of it: no call
        ("Cuarenta quinas.", -0.2, None),  # more dice than the 15 on the table
        ("Sí.", -0.1, None),  # an answer to the question itself
        ("Beto.", -0.1, None),  # a name
        ("Hace calor.", -0.1, None),  # talk
        ("", None, None),
    ],
)
def test_a_call_said_instead_of_si_or_no_is_read_from_the_free_transcript(
    tmp_path: Path, said: str, fluency: float | None, call
) -> None:
    """While "¿Dijiste …?" waits, the recognizer listens for sí / no only: a call said
    again is in the free transcript alone, and counts only when sure and possible now."""
    referee = referee_at_a_bid(tmp_path, "dos quinas")
    decider = Decider(Parser(list(referee.players)), Thresholds())
    view = game_view(referee, referee.expecting)
    assert decider.call_in_free_transcript(free(said, fluency), view) == call


def test_the_call_said_instead_of_si_or_no_is_asked_about(tmp_path: Path) -> None:
    referee = referee_at_a_bid(tmp_path, "dos quinas")
    decide = make_decider(load_config())
    heard = decide(free("Cuatro quinas.", -0.2), referee, "yes_no")
    assert heard.action == "confirm" and heard.intent == BidIntent(quantity=4, face=5)
    assert heard.question == "¿Dijiste cuatro quinas?"
    dudo = decide(free("Dudo.", -0.2), referee, "yes_no")
    assert dudo.intent == DudoIntent() and dudo.question == "¿Dijiste dudo?"  # not "Dudo.?"
    talk = decide(free("Hace calor.", -0.2), referee, "yes_no")
    assert talk.action == "ignore"


def test_a_question_the_loop_asks_is_the_deciders_too(tmp_path: Path) -> None:
    """The loop asks about a count said aloud that goes back down ("uno, dos" | "una"): a
    "no" to that question counts against "una" as it would for the decider's own."""
    referee = referee_at_a_bid(tmp_path, "dos quinas")
    referee.handle_text("dudo")
    count_again = utt(("una", 0.8), ("dos", 0.2))
    decide = make_decider(load_config())
    heard = decide(utt(("una", 0.97), ("dos", 0.03)), referee, referee.expecting)
    assert heard.action == "accept"
    asked = decide.ask_about(referee, heard, "a count said aloud that goes back down")
    assert asked.action == "confirm" and asked.question == "¿Dijiste una quina?"
    decide(utt(("no", 0.95), ("sí", 0.05)), referee, "yes_no")
    assert decide(count_again, referee, referee.expecting).intent == NumberIntent(2)
    unasked = make_decider(load_config())  # the same "no" without the question known
    unasked(utt(("no", 0.95), ("sí", 0.05)), referee, "yes_no")
    assert unasked(count_again, referee, referee.expecting).intent == NumberIntent(1)


def test_a_heard_record_names_the_reading_an_ignore_passed_over() -> None:
    """`--rows` and `play --heard` show the count a talk verdict passed over, so a count
    said aloud that went on through it can be followed afterwards."""
    heard = Utterance((Hypothesis("dos", 0.9),), 0.0, 0.5, free_text="No", free_fluency=-0.3)
    talk = Heard(Action.IGNORE, "dos", None, 0.9, why="talk", passed_over=NumberIntent(value=2))
    assert heard_record(heard, talk)["passed_over"] == {"type": "number", "value": 2}
    assert heard_record(heard, Heard(Action.IGNORE, "dos"))["passed_over"] is None
