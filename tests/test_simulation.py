"""The simulated table (`voice-ref bench --games`): the intended games are legal, the players
react as people do, and the summary adds up. No speech model: players "speak" tones that a
scripted recognizer hears as the rendered words (tests/scripted_table.py)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from scripted_table import EchoRecognizer, ToneVoices, referee_tone

from voice_ref.config import Config
from voice_ref.dialogue.prompts import Prompts
from voice_ref.dialogue.referee import EXPECTING_WHILE_AWAITING, TableSetup
from voice_ref.language.expecting import Expecting
from voice_ref.language.grammar import Level
from voice_ref.language.intents import BidIntent, NoIntent, UndoIntent, YesIntent
from voice_ref.language.inventory import PhraseInventory
from voice_ref.language.parser import Parser
from voice_ref.language.vocabulary import say_bid
from voice_ref.rules.game import Awaiting, Game
from voice_ref.rules.hands import is_valid_pass_hand
from voice_ref.rules.moves import Calzo, Dudo, Paso, PassCheck, Raise, RevealCount
from voice_ref.rules.variants import PRESETS, make_rules
from voice_ref.simulation.announcer import SimulatedAnnouncer
from voice_ref.simulation.phrasing import COUNT_TALK, COUNTING_PAUSE, Kind, Line, Phrasing, Style
from voice_ref.simulation.players import Table, TableStats, same_meaning
from voice_ref.simulation.render import (
    COUNTING_GAP_S,
    FESTIVAL_SILENCE_RMS,
    PAUSE_S,
    Engine,
    NoiseBank,
    Renderer,
    Voice,
    active_power,
    espeak_available,
    festival,
    festival_available,
    frame_power,
    mbrola_available,
    mix,
    pause_point,
    pico,
    pico_available,
    speak,
)
from voice_ref.simulation.runner import GameResult, play_game, wire
from voice_ref.simulation.script import IntendedGame, play, true_count
from voice_ref.simulation.summary import GameScore, summarize
from voice_ref.voice.audio_in import write_wav

PLAYERS = ("Ana", "Beto", "Carla")
QUIET = Style(query=0.0, talk=0.0, illegal_raise=0.0)  # line n is action n


# -- the intended games ------------------------------------------------------------------------


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("seed", range(4))
def test_intended_games_are_legal_whole_games(preset, seed):
    rules = make_rules(preset)
    players = PLAYERS[: 2 + seed % 2]
    game = play(players, rules, random.Random(seed))
    replayed = Game.replay(players, rules, game.moves)  # raises IllegalMove on any bad move
    assert replayed.awaiting is Awaiting.GAME_OVER
    assert replayed.snapshot() == game.final.snapshot()
    assert replayed.winner in players


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_table_answers_with_the_true_dice(preset):
    rules = make_rules(preset)
    game = Game(PLAYERS, rules)
    intended = play(PLAYERS, rules, random.Random(7))
    kinds = set()
    for action in intended.actions:
        hands = dict(action.hands)
        assert set(hands) == set(game.active_players)
        assert all(len(hands[p]) == game.dice_in_cup(p) for p in hands)
        if isinstance(action.move, RevealCount):
            challenge = game.challenge
            assert action.move.count == true_count(hands, int(challenge.bid.face),
                                                   challenge.wild_aces)
        if isinstance(action.move, Raise | Dudo | Calzo | Paso):
            assert action.speaker == game.turn  # a player speaks on their own turn
        kinds.add(type(action.move))
        game.push(action.move)
    assert {Raise, Dudo, RevealCount} <= kinds


def test_counts_with_and_without_wild_aces():
    hands = {"Ana": (1, 5, 5), "Beto": (1, 2, 6)}
    assert true_count(hands, 5, wild_aces=True) == 4
    assert true_count(hands, 5, wild_aces=False) == 2
    assert true_count(hands, 1, wild_aces=True) == 2  # aces count once, as aces


def test_pass_checks_follow_the_real_hand():
    seen = 0
    for seed in range(60):
        game = Game(PLAYERS, make_rules("chile"))
        for action in play(PLAYERS, make_rules("chile"), random.Random(seed)).actions:
            if isinstance(action.move, PassCheck):
                passer = game.challenge.bidder
                assert action.move.valid == is_valid_pass_hand(dict(action.hands)[passer],
                                                               game.rules.pass_hands)
                seen += 1
            game.push(action.move)
    assert seen > 0


# -- phrasings ---------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_phrasing_means_the_intended_action(preset):
    rules = make_rules(preset)
    intended = play(PLAYERS, rules, random.Random(3))
    phrasing = Phrasing(random.Random(5), PLAYERS, clean_bids=rules.clean_bids,
                        style=Style(decorated=0.5, name_first=0.3, interjection=0.3))
    parser = Parser(PLAYERS)
    game = Game(PLAYERS, rules)
    for action in intended.actions:
        expecting = EXPECTING_WHILE_AWAITING[game.awaiting]
        for plain in (False, True):
            text = phrasing.say(action.speaker, action.intent, expecting, plain=plain)
            heard = parser.parse(text).intent
            assert same_meaning(heard, action.intent), (text, heard, action.intent)
            if heard.player is not None and action.intent.type != "starter":
                assert heard.player == action.speaker  # only one's own name before a call
        game.push(action.move)
    assert all(parser.parse(phrasing.talk()).intent is None for _ in range(30))


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_players_say_sucio_and_limpio_only_where_the_preset_has_them(preset):
    """A chile table does not say "tres quinas sucias": the referee does not listen for it
    there (session 44's games said it in 46 of 2,228 bids)."""
    rules = make_rules(preset)
    phrasing = Phrasing(random.Random(4), PLAYERS, clean_bids=rules.clean_bids,
                        style=Style(decorated=1.0, interjection=0.0, name_first=0.0))
    said = " ".join(phrasing.say("Ana", BidIntent(quantity=q, face=f), Expecting.TURN)
                    for q in range(1, 8) for f in range(2, 7) for _ in range(10))
    assert ("sucia" in said or "sucio" in said) == rules.clean_bids


def test_a_bid_in_turn_is_said_with_turn_phrases_not_the_starter_rolls():
    """ "tengo un cuatro" tells the starter roll; as a bid in turn the referee does not listen
    for it, so a simulated player must not bid so (it did, session 42's games)."""
    one_four = BidIntent(quantity=1, face=4)
    inventory = PhraseInventory(list(PLAYERS))  # as Phrasing's
    in_turn = {p.text for p in inventory.phrases(Expecting.TURN, level=Level.COMMON)}
    at_start = {p.text for p in inventory.phrases(Expecting.STARTER, level=Level.COMMON)
                if p.intent == one_four}
    assert at_start and not at_start & in_turn  # the starter roll has words of its own
    phrasing = Phrasing(random.Random(2), PLAYERS, clean_bids=False,
                        style=Style(decorated=1.0, interjection=0.0, name_first=0.0))
    said = {phrasing.say("Ana", one_four, Expecting.TURN) for _ in range(300)}
    assert said <= in_turn
    assert {phrasing.say("Ana", one_four, Expecting.STARTER) for _ in range(300)} <= at_start


# -- the players' reactions, on a scripted recognizer ----------------------------------------


def scripted_game(mishear=lambda _n, _t: None, style=QUIET, seed=1, preset="chile",
                  players=PLAYERS, on_row=lambda _row: None,
                  ) -> tuple[GameResult, EchoRecognizer, IntendedGame]:
    setup = TableSetup(players, preset=preset)
    intended = play(players, setup.rules, random.Random(seed))
    recognizer = EchoRecognizer(mishear)
    announcer = SimulatedAnnouncer(referee_tone, 16000, holdoff_s=0.3)
    session, referee, _ = wire(Config(), setup, announcer, recognizer)
    table = Table(intended, Phrasing(random.Random(seed), players, style=style,
                                     clean_bids=setup.rules.clean_bids),
                  Prompts.load(), random.Random(seed))
    voices = ToneVoices(recognizer)
    result = play_game(session, referee, announcer, table, voices.render, random.Random(seed),
                       on_row=on_row)
    assert recognizer.heard == [text for _, text in voices.said]  # never the referee's voice
    return result, recognizer, intended


def first_raise_over_a_bid(intended: IntendedGame) -> tuple[int, BidIntent, BidIntent]:
    """The first raise that answers a standing bid: its index, the bid, the standing bid."""
    for i, action in enumerate(intended.actions):
        previous = intended.actions[i - 1] if i else None
        if isinstance(action.move, Raise) and previous and isinstance(previous.move, Raise):
            return i, action.intent, previous.intent
    raise AssertionError("no raise over a bid")


def words(bid: BidIntent, more: int = 0) -> str:
    return say_bid(bid.quantity + more, bid.face, bid.clean)


def test_a_game_heard_right_needs_one_line_per_action():
    result, recognizer, intended = scripted_game()
    s = result.stats
    assert result.correct and result.uncorrected == 0
    assert s.utterances == len(intended.actions) == len(recognizer.heard)
    assert (s.wrong_accepts, s.confirmations, s.corrections, s.repeats) == (0, 0, 0, 0)
    assert len(s.latencies_ms) == s.utterances
    assert min(s.latencies_ms) >= 0 and s.interruptions == 0  # answered after each line


def test_a_wrong_bid_taken_is_undone_and_said_again():
    intended = play(PLAYERS, make_rules("chile"), random.Random(1))
    i, bid, _ = first_raise_over_a_bid(intended)
    wrong = words(bid, more=1)  # legal too, so the referee takes it
    result, recognizer, _ = scripted_game(lambda n, t: [(wrong, 0.95)] if n == i else None)
    s = result.stats
    assert result.correct and result.uncorrected == 0
    assert (s.wrong_accepts, s.corrections, s.repeats) == (1, 1, 1)
    assert recognizer.heard[i + 1] in ("me equivoqué", "corrige")
    assert Parser(PLAYERS).parse(recognizer.heard[i + 2]).intent == bid  # said plainly again
    assert s.utterances == len(intended.actions) + 2


def test_a_legal_call_heard_as_an_illegal_one_is_refused_counted_and_said_again():
    intended = play(PLAYERS, make_rules("chile"), random.Random(1))
    i, bid, standing = first_raise_over_a_bid(intended)
    # The standing bid again: no raise, so the referee explains the rule to a player who
    # broke none; nothing changes and the player says the call again.
    rows = []
    result, recognizer, _ = scripted_game(
        lambda n, t: [(words(standing), 0.95)] if n == i else None, on_row=rows.append)
    s = result.stats
    assert result.correct and result.uncorrected == 0
    assert (s.refused_calls, s.refused_extras, s.wrong_accepts, s.repeats) == (1, 0, 0, 1)
    assert [n for n, row in enumerate(rows) if row.refused_call] == [i]  # marked on its line
    assert Parser(PLAYERS).parse(recognizer.heard[i + 1]).intent == bid


def test_every_line_gets_a_row_and_the_wrong_accept_is_marked_on_its_line():
    intended = play(PLAYERS, make_rules("chile"), random.Random(1))
    i, bid, _ = first_raise_over_a_bid(intended)
    wrong = words(bid, more=1)
    rows = []
    result, recognizer, _ = scripted_game(lambda n, t: [(wrong, 0.95)] if n == i else None,
                                          on_row=rows.append)
    assert [row.line.text for row in rows] == recognizer.heard  # one row a line, in order
    marked = [row for row in rows if row.wrong_accept]
    assert len(marked) == result.stats.wrong_accepts == 1
    row = marked[0].to_json()
    assert row["said"] == recognizer.heard[i] and row["meant"] == bid.to_json()
    assert [h["text"] for h in row["heard"]] == [wrong]
    assert row["heard"][0]["action"] == "accept" and row["referee_said"]
    json.dumps(row)  # a JSON Lines row as written by `bench --games --rows`


@pytest.mark.parametrize("kind", ["dudo", "number"])
def test_a_confirmation_of_what_was_meant_is_answered_si(kind: str):
    """Heard with a share below what it needs, a dudo is asked "¿Dijiste dudo?" and a
    count "¿Dijiste cuatro quinas?" (its face added): its speaker says sí to either."""
    intended = play(PLAYERS, make_rules("chile"), random.Random(1))
    i = next(n for n, a in enumerate(intended.actions) if a.intent.type == kind)
    rows = []
    result, recognizer, _ = scripted_game(
        lambda n, t: [(t, 0.55), ("blorp", 0.45)] if n == i else None, on_row=rows.append)
    heard = rows[i].to_json()["heard"][0]
    assert heard["action"] == "confirm" and heard["why"] == "share 0.55 below 0.6"
    s = result.stats
    assert result.correct and result.uncorrected == 0
    assert s.confirmations == 1 and recognizer.heard[i + 1] == "sí"
    assert (s.wrong_accepts, s.repeats) == (0, 0)
    assert s.utterances == len(intended.actions) + 1


def test_a_confirmed_correction_is_answered_si_and_counts_as_meant():
    intended = play(PLAYERS, make_rules("chile"), random.Random(1))
    i, bid, _ = first_raise_over_a_bid(intended)
    wrong = words(bid, more=1)
    # The wrong bid is taken; the correction after it is heard too unsure for an undo
    # ("¿Dijiste me equivoqué?"): its speaker says sí, and that undo is what was meant.
    result, recognizer, _ = scripted_game(
        lambda n, t: [(wrong, 0.95)] if n == i else [(t, 0.55), ("blorp", 0.45)]
        if n == i + 1 else None)
    s = result.stats
    assert result.correct and result.uncorrected == 0
    assert recognizer.heard[i + 1] in ("me equivoqué", "corrige")
    assert recognizer.heard[i + 2] == "sí"
    assert Parser(PLAYERS).parse(recognizer.heard[i + 3]).intent == bid
    assert (s.wrong_accepts, s.corrections, s.confirmations) == (1, 1, 1)


def test_a_confirmation_of_something_else_is_answered_no_and_the_line_repeated():
    intended = play(PLAYERS, make_rules("chile"), random.Random(1))
    i, bid, standing = first_raise_over_a_bid(intended)
    other = words(bid, more=1)
    result, recognizer, _ = scripted_game(
        lambda n, t: [(words(standing), 0.5), (other, 0.45)] if n == i else None)
    s = result.stats
    assert result.correct and result.uncorrected == 0
    assert s.confirmations == 1 and recognizer.heard[i + 1] == "no"
    assert Parser(PLAYERS).parse(recognizer.heard[i + 2]).intent == bid
    assert (s.wrong_accepts, s.repeats) == (0, 1)
    assert s.utterances == len(intended.actions) + 2


@pytest.mark.parametrize(("last_said_is_the_question", "answers"), [(True, True), (False, False)])
def test_only_a_question_said_last_is_answered(last_said_is_the_question, answers):
    """One line heard as several utterances can be asked about and then taken ("¿Dijiste
    tres quinas?" … "Había tres quinas"): nothing is pending then, and a player who
    answered "no" would be answering nothing until the game's line limit (session 49)."""
    rules = make_rules("chile")
    intended = play(PLAYERS, rules, random.Random(1))
    table = Table(intended, Phrasing(random.Random(1), PLAYERS, style=QUIET,
                                     clean_bids=rules.clean_bids),
                  Prompts.load(), random.Random(1))
    game = Game(PLAYERS, rules)
    question = Prompts.load().say("ask.did_you_say", words="tres quinas")
    said = [question] if last_said_is_the_question else [question, "Había tres quinas."]
    first = intended.actions[0]
    table.observe(Line(first.speaker, "ehm", Kind.ACTION, first.intent), [], game, [], said)
    spoken = table.next_line(game)
    assert (spoken.kind is Kind.ANSWER) is answers
    assert table.stats.confirmations == 1


def test_a_line_the_referee_ignores_is_said_again():
    intended = play(PLAYERS, make_rules("chile"), random.Random(1))
    result, recognizer, _ = scripted_game(lambda n, t: [("qué nervios", 0.9)] if n == 3 else None)
    s = result.stats
    assert result.correct and result.uncorrected == 0
    assert recognizer.heard[4] == recognizer.heard[3] or \
        same_meaning(Parser(PLAYERS).parse(recognizer.heard[4]).intent,
                     intended.actions[3].intent)
    assert (s.repeats, s.wrong_accepts) == (1, 0)
    assert s.utterances == len(intended.actions) + 1


def test_table_talk_queries_and_low_raises_change_nothing():
    style = Style(query=0.15, talk=0.15, illegal_raise=0.3)
    result, recognizer, intended = scripted_game(style=style, seed=2)
    s = result.stats
    assert result.correct and result.uncorrected == 0
    assert s.extra_utterances > 0 and s.refused_extras > 0
    assert s.utterances == len(intended.actions) and s.wrong_accepts == s.refused_calls == 0


def test_talk_while_the_count_is_awaited_comes_before_every_count_and_changes_nothing():
    rows: list = []  # LineRow
    style = Style(query=0.0, talk=0.0, illegal_raise=0.0, count_talk=1.0)
    result, recognizer, intended = scripted_game(style=style, seed=3, on_row=rows.append)
    counts = sum(isinstance(a.move, RevealCount) for a in intended.actions)
    talk = [r for r in rows if r.line.kind is Kind.TALK]
    assert counts > 0 and len(talk) == counts == result.stats.extra_utterances
    assert all(r.line.text in COUNT_TALK and not r.wrong_accept for r in talk)
    assert result.correct and result.uncorrected == 0 and result.stats.wrong_accepts == 0
    # Without it the same seed plays the same lines as before (no extra random draw).
    quiet: list = []
    with_zero: list = []
    scripted_game(style=QUIET, seed=3, on_row=quiet.append)
    scripted_game(style=Style(query=0.0, talk=0.0, illegal_raise=0.0, count_talk=0.0), seed=3,
                  on_row=with_zero.append)
    assert [r.line for r in quiet] == [r.line for r in with_zero]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_scripted_games_end_correct_in_every_preset(preset):
    result, _, intended = scripted_game(preset=preset, seed=4, style=Style())
    assert result.correct and result.uncorrected == 0
    assert result.stats.utterances == len(intended.actions)


# -- rendering ---------------------------------------------------------------------------------


def test_noise_is_mixed_at_the_asked_snr():
    rng = np.random.default_rng(0)
    speech = np.concatenate([np.zeros(4000), 0.1 * rng.standard_normal(8000), np.zeros(4000)])
    noise = 0.05 * rng.standard_normal(16000)
    mixed = mix(speech.astype(np.float32), noise.astype(np.float32), 12.0)
    added = mixed - speech
    snr = 10 * np.log10(active_power(speech) / float(np.mean(added**2)))
    assert snr == pytest.approx(12.0, abs=0.05)


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        ("ehm, cerrada", 4),  # after the interjection's comma
        ("Carla cuatro trenes", 5),  # after the name that opens the call
        ("Carla", None),  # a name alone: nothing after it
        ("son cuatro sextos", None),
        ("cuatro trenes", None),
    ],
)
def test_where_a_speaker_may_pause(text, cut):
    assert pause_point(text, frozenset({"Ana", "Carla"})) == cut


def _longest_inner_silence_s(samples: np.ndarray, rate: int = 16000) -> float:
    """The longest run of silence between the first and the last sound."""
    loud = np.flatnonzero(np.abs(samples) >= 1e-4)
    quiet = np.abs(samples[loud[0]:loud[-1]]) < 1e-4
    longest = run = 0
    for q in quiet:
        run = run + 1 if q else 0
        longest = max(longest, run)
    return longest / rate


@pytest.mark.skipif(not espeak_available(), reason="espeak-ng renders the lines")
def test_a_line_said_with_a_pause_holds_a_human_pause():
    voices = {"Carla": Voice("es", 160, 50)}
    plain = Renderer(voices, random.Random(1))
    paused = Renderer(voices, random.Random(1), pause_p=1.0)
    said, s0, s1 = plain.render("Carla", "Carla cuatro trenes")
    with_pause, p0, p1 = paused.render("Carla", "Carla cuatro trenes")
    assert _longest_inner_silence_s(said[round(s0 * 16000):round(s1 * 16000)]) < PAUSE_S[0]
    gap = _longest_inner_silence_s(with_pause[round(p0 * 16000):round(p1 * 16000)])
    assert PAUSE_S[0] <= gap <= PAUSE_S[1] + 0.1


def test_a_count_said_aloud_names_every_number_up_to_it():
    from voice_ref.language.intents import NumberIntent
    from voice_ref.simulation.phrasing import COUNTING_PAUSE

    aloud = Phrasing(random.Random(1), PLAYERS, clean_bids=False, style=Style(count_aloud=1.0))
    said = aloud.say("Ana", NumberIntent(value=3), Expecting.COUNT)
    parser = Parser(PLAYERS)
    assert [parser.parse(w).intent for w in said.split(COUNTING_PAUSE)] == [
        NumberIntent(value=k) for k in (1, 2, 3)]
    assert COUNTING_PAUSE not in Phrasing(random.Random(1), PLAYERS, clean_bids=False).say(
        "Ana", NumberIntent(value=3), Expecting.COUNT)


def test_a_count_said_aloud_may_begin_with_a_hesitation():
    from voice_ref.language.intents import NumberIntent
    from voice_ref.language.vocabulary import INTERJECTIONS
    from voice_ref.simulation.phrasing import COUNTING_PAUSE

    style = Style(count_aloud=1.0, count_hesitation=1.0)
    said = Phrasing(random.Random(1), PLAYERS, clean_bids=False, style=style).say(
        "Ana", NumberIntent(value=3), Expecting.COUNT)
    filler, _, first = said.split(COUNTING_PAUSE)[0].partition(", ")
    assert filler in INTERJECTIONS
    assert [first, *said.split(COUNTING_PAUSE)[1:]] == ["uno", "dos", "tres"]
    unhesitating = Phrasing(random.Random(1), PLAYERS, clean_bids=False,
                            style=Style(count_aloud=1.0))
    assert unhesitating.say("Ana", NumberIntent(value=3), Expecting.COUNT).startswith("uno")


@pytest.mark.skipif(not espeak_available(), reason="espeak-ng says the hesitations")
def test_no_simulated_hesitation_is_spelled_out_letter_by_letter():
    """espeak-ng says "mmm" as the letters' names ("eme, eme, eme"), which no player says."""
    import subprocess

    from voice_ref.language.vocabulary import INTERJECTIONS
    from voice_ref.simulation.phrasing import SPOKEN_HESITATIONS

    def phonemes(text: str) -> str:
        out = subprocess.run(["espeak-ng", "-v", "es", "-q", "-x", text], check=True,
                             capture_output=True, text=True).stdout
        return "".join(ch for ch in out if ch not in ",' \n").lower()

    def spelled(word: str) -> bool:
        return phonemes(word) == "".join(phonemes(letter) for letter in word)

    assert spelled("mmm") and "mmm" in INTERJECTIONS  # what the check catches
    assert not any(spelled(word) for word in SPOKEN_HESITATIONS)


@pytest.mark.skipif(not espeak_available(), reason="espeak-ng renders the lines")
def test_a_count_said_aloud_pauses_after_every_number():
    voices = {"Carla": Voice("es", 160, 50)}
    said, s0, s1 = Renderer(voices, random.Random(1)).render("Carla", "uno … dos … tres")
    speech = said[round(s0 * 16000):round(s1 * 16000)]
    quiet = np.convolve(np.abs(speech) < 1e-4, np.ones(160), "valid") == 160  # 10 ms silent
    gaps = np.flatnonzero(np.diff(quiet.astype(int)) == 1)  # where a silence starts
    assert len(gaps) >= 2  # after "uno" and after "dos"
    assert _longest_inner_silence_s(speech) >= COUNTING_GAP_S[0]


def test_a_labelled_folder_lends_only_its_noise_clips(tmp_path):
    write_wav(tmp_path / "n.wav", 0.1 * np.ones(8000, np.float32), 16000)
    write_wav(tmp_path / "s.wav", np.zeros(8000, np.float32), 16000)
    (tmp_path / "labels.jsonl").write_text(
        '{"file": "n.wav", "category": "noise_only"}\n{"file": "s.wav", "category": "bid"}\n',
        encoding="utf-8")
    bank = NoiseBank.load(tmp_path)
    assert len(bank.clips) == 1
    stretch = bank.stretch(random.Random(0), 20000)  # longer than the clip: looped
    assert len(stretch) == 20000 and float(np.min(np.abs(stretch))) > 0.09


# -- the summary -------------------------------------------------------------------------------


def test_the_summary_adds_up():
    a = TableStats(utterances=12, wrong_accepts=1, confirmations=2, corrections=1, repeats=2,
                   interruptions=1, refused_calls=2, latencies_ms=[100.0, 200.0, 300.0])
    b = TableStats(utterances=14, confirmations=1, latencies_ms=[400.0])
    summary = summarize(
        [GameScore(True, 10, 0, a, busy_s=3.0, audio_s=60.0),
         GameScore(False, 10, 2, b, busy_s=1.0, audio_s=20.0)],
        backend="scripted", model="echo")
    assert summary["games"] == 2 and summary["games_correct"] == 1
    assert summary["intended_actions"] == 20 and summary["utterances"] == 26
    assert summary["utterances_per_action"] == 1.3
    assert (summary["wrong_accepts"], summary["uncorrected"], summary["confirmations"]) == (1, 2, 3)
    assert summary["interruptions"] == 1 and summary["legal_calls_refused"] == 2
    assert summary["latency_ms_mean"] == 250.0
    assert summary["latency_ms_p95"] == pytest.approx(385.0)  # numpy's linear percentile
    assert summary["rtf"] == 0.05
    assert summary["backend"] == "scripted" and summary["model"] == "echo"
    assert summary["rss_peak_mb"] > 0



@pytest.mark.parametrize("expecting", ["count", "yes_no", "choice", "pass_check", "starter"])
def test_a_mistake_can_be_undone_at_every_question(expecting):
    """Found by the simulated table: a misheard count was followed by "¿obligas?", where the
    recognizer could not hear "me equivoqué", so the wrong count could never be undone."""
    from voice_ref.language.inventory import PhraseInventory

    phrases = PhraseInventory(list(PLAYERS)).phrases(expecting)
    assert {"me equivoqué", "corrige"} <= {p.text for p in phrases if p.intent.type == "undo"}
    assert not any(p.intent.type == "repeat" for p in phrases)  # "repita" ate "derecha"


def test_the_players_corrections_and_answers_are_grammar_phrases():
    from voice_ref.simulation.players import UNDO_WORDS

    parser = Parser(PLAYERS)
    assert all(parser.parse(w).intent == UndoIntent() for w in UNDO_WORDS)
    assert parser.parse("sí").intent == YesIntent() and parser.parse("no").intent == NoIntent()


def test_the_games_bench_uses_the_model_folder_given(monkeypatch) -> None:  # noqa: ANN001
    """`voice-ref bench --games N --model DIR` measures that model, not the config's."""
    from argparse import Namespace

    from voice_ref.simulation import bench as games_bench
    from voice_ref.simulation import runner
    from voice_ref.voice.asr import select

    args = Namespace(games=1, players="Ana,Beto", voices="es", noise=None, snr=None,
                     seed=1, backend="whisper", model="other-model", rows=None, rules=None)
    options = games_bench._options(args, Config())
    asked: dict[str, object] = {}

    def fake_make_recognizer(config, backend=None, model=None, players=None):  # noqa: ANN001, ANN202
        asked.update(backend=backend, model=model)
        raise RuntimeError("stop here")

    monkeypatch.setattr(select, "make_recognizer", fake_make_recognizer)
    setup = TableSetup(("Ana", "Beto"))
    with pytest.raises(RuntimeError, match="stop here"):
        runner.wire(Config(), setup, None, None, options.backend, options.model)  # type: ignore[arg-type]
    assert asked == {"backend": "whisper", "model": "other-model"}


@pytest.mark.parametrize(("pauses", "error"), [(None, None), (0.5, None), (1.5, "probability")])
def test_the_games_bench_takes_how_often_players_pause(pauses, error) -> None:  # noqa: ANN001
    from argparse import Namespace

    from voice_ref.simulation import bench as games_bench

    args = Namespace(games=1, players="Ana,Beto", voices="es", noise=None, snr=None, seed=1,
                     backend=None, model=None, rows=None, rules=None, pauses=pauses,
                     count_aloud=pauses, count_hesitation=pauses)
    if error:
        with pytest.raises(ValueError, match=error):
            games_bench._options(args, Config())
    else:
        options = games_bench._options(args, Config())
        assert options.pause_p == options.count_aloud_p == (pauses or 0.0)
        assert options.count_hesitation_p == (pauses or 0.0)


def test_hesitant_counts_need_counts_said_aloud() -> None:
    from argparse import Namespace

    from voice_ref.simulation import bench as games_bench

    args = Namespace(games=1, players="Ana,Beto", voices="es", noise=None, snr=None, seed=1,
                     backend=None, model=None, rows=None, rules=None, count_hesitation=0.5)
    with pytest.raises(ValueError, match="needs --count-aloud"):
        games_bench._options(args, Config())


def _bench_args(**kw):  # noqa: ANN003, ANN202
    from argparse import Namespace

    base = dict(games=1, players="Ana,Beto", voices="es", noise=None, snr=None, seed=1,
                backend=None, model=None, rows=None, rules=None)
    return Namespace(**{**base, **kw})


@pytest.mark.parametrize(("background", "snr", "error"), [
    ("talk.wav", None, None),
    ("talk.wav", 9.0, None),
    (None, 9.0, "needs --background"),
    ("missing.wav", None, "does not exist"),
])
def test_the_games_bench_takes_a_background_recording(tmp_path, background, snr, error) -> None:  # noqa: ANN001
    from voice_ref.simulation import bench as games_bench

    write_wav(tmp_path / "talk.wav", np.full(1600, 0.01, np.float32), 16000)
    path = str(tmp_path / background) if background else None
    args = _bench_args(background=path, background_snr=snr)
    if error:
        with pytest.raises(ValueError, match=error):
            games_bench._options(args, Config())
        return
    options = games_bench._options(args, Config())
    assert options.background == tmp_path / background
    assert options.background_snr_db == (snr if snr is not None else 15.0)


def test_the_background_is_set_below_the_players_mean_level_and_loops_under_the_game(
    tmp_path,  # noqa: ANN001
) -> None:
    from voice_ref.simulation.bench import PLAYER_MEAN_DBFS, background_talk
    from voice_ref.simulation.render import active_power
    from voice_ref.simulation.runner import Tape

    rng = np.random.default_rng(1)
    write_wav(tmp_path / "talk.wav", (0.1 * rng.standard_normal(16000)).astype(np.float32), 16000)
    talk = background_talk(tmp_path / "talk.wav", 12.0)
    level_db = 10 * np.log10(active_power(talk))
    assert abs(level_db - (PLAYER_MEAN_DBFS - 12.0)) < 0.5  # 16-bit rounding only

    tape = Tape(16000, talk)
    tape.add(0.5, np.full(1600, 0.2, np.float32))  # a line over it
    assert np.allclose(tape.read(0.0, 1600), talk[:1600])
    assert np.allclose(tape.read(0.5, 1600), np.clip(talk[8000:9600] + 0.2, -1, 1))
    assert np.allclose(tape.read(1.0, 1600), talk[:1600])  # 1 s: the loop starts again


def test_a_quiet_microphone_hears_everything_at_its_gain() -> None:
    from voice_ref.simulation.runner import Tape

    tape = Tape(16000, np.full(16000, 0.05, np.float32), gain=0.1)
    tape.add(0.5, np.full(1600, 0.5, np.float32))  # a line over the background
    assert np.allclose(tape.read(0.0, 1600), 0.005)
    assert np.allclose(tape.read(0.5, 1600), 0.055)
    loud = Tape(16000, gain=10.0)
    loud.add(0.0, np.full(1600, 0.5, np.float32))
    assert np.allclose(loud.read(0.0, 1600), 1.0)  # clipped, as a microphone does


@pytest.mark.parametrize(("mic_gain", "expected"), [(None, 0.0), (-20.0, -20.0)])
def test_the_games_bench_takes_a_microphone_gain(mic_gain, expected) -> None:  # noqa: ANN001
    from voice_ref.simulation import bench as games_bench

    assert games_bench._options(_bench_args(mic_gain=mic_gain), Config()).mic_gain_db == expected


@pytest.mark.parametrize(("voices", "installed", "error"), [
    ("es+m1,pico:es-ES,festival:es", True, None),
    ("pico:en-US", True, "Spanish voice is pico:es-ES"),
    ("es,pico:es-ES", False, "needs pico2wave"),
    ("festival:en", True, "Spanish voice is festival:es"),
    ("es,festival:es", False, "apt install festival festvox-ellpc11k"),
    ("es,mbrola:", True, "name an MBROLA database"),
    ("es,mbrola:mx2", False, "apt install mbrola mbrola-mx2"),
])
def test_the_games_bench_takes_pico_festival_and_mbrola_voices(
        monkeypatch, voices, installed, error) -> None:  # noqa: ANN001
    from voice_ref.simulation import bench as games_bench

    monkeypatch.setattr(games_bench, "pico_available", lambda: installed)
    monkeypatch.setattr(games_bench, "festival_available", lambda: installed)
    monkeypatch.setattr(games_bench, "mbrola_available", lambda database: installed)
    if error:
        with pytest.raises(ValueError, match=error):
            games_bench._options(_bench_args(voices=voices), Config())
        return
    assert games_bench._options(_bench_args(voices=voices), Config()).voices == (
        "es+m1", "pico:es-ES", "festival:es")


@pytest.mark.parametrize(("name", "engine", "language"), [
    ("pico:es-ES", Engine.PICO, "es-ES"),
    ("festival:es", Engine.FESTIVAL, "es"),
    ("mbrola:mx2", Engine.MBROLA, "mx2"),
    ("es-419+f2", Engine.ESPEAK, None),
    ("mb-es1", Engine.ESPEAK, None),
])
def test_a_voice_s_name_says_its_engine(name: str, engine: Engine, language: str | None) -> None:
    assert (Voice(name).engine, Voice(name).language) == (engine, language)


@pytest.mark.skipif(not festival_available(), reason="Festival renders the lines")
def test_a_festival_player_speaks_at_its_own_speed_and_size() -> None:
    plain = festival("cuatro quinas", Voice("festival:es"))
    fast = festival("cuatro quinas", Voice("festival:es", rate=200))
    high = festival("cuatro quinas", Voice("festival:es", pitch=65))
    assert len(fast) < 0.9 * len(plain)
    # a smaller speaker at the same rate: other samples, about as long
    assert not np.array_equal(high[: len(plain)], plain[: len(high)])
    assert abs(len(high) - len(plain)) < 0.1 * len(plain)
    # no padding around it: a count said aloud pauses as long as asked, not 0.4 s more
    assert all(frame_power(plain[i], 16000, 0.01)[0] >= FESTIVAL_SILENCE_RMS**2
               for i in (slice(0, 160), slice(-160, None)))
    counted = Renderer({"Ana": Voice("festival:es")}, random.Random(1))._speech(
        f"uno{COUNTING_PAUSE}dos", Voice("festival:es"))
    quiet = frame_power(counted, 16000, 0.01) < FESTIVAL_SILENCE_RMS**2
    longest = max(len(run) for run in "".join("q" if q else " " for q in quiet).split())
    assert COUNTING_GAP_S[0] - 0.02 <= longest * 0.01 <= COUNTING_GAP_S[1] + 0.02
    # "ñ" and accents reach Festival's Spanish lexicon, not spelled out byte by byte
    accented = festival("dieciséis", Voice("festival:es"))
    assert len(accented) < 1.5 * len(festival("dieciseis", Voice("festival:es")))
    said, s0, s1 = Renderer({"Ana": Voice("festival:es")}, random.Random(1)).render(
        "Ana", "cuatro quinas")
    assert abs((s1 - s0) * 16000 - len(plain)) < 0.15 * len(plain)


@pytest.mark.skipif(not mbrola_available("mx2"), reason="MBROLA's mx2 renders the lines")
def test_an_mbrola_player_speaks_at_its_own_speed_and_pitch_without_silence_around() -> None:
    plain = speak("cuatro quinas", Voice("mbrola:mx2"))
    assert len(plain) > 0.4 * 16000  # said, not MBROLA's silence for missing diphones
    assert len(speak("cuatro quinas", Voice("mbrola:mx2", rate=200))) < 0.9 * len(plain)
    high = speak("cuatro quinas", Voice("mbrola:mx2", pitch=70))
    assert not np.array_equal(high[: len(plain)], plain[: len(high)])
    edges = frame_power(plain, 16000, 0.01)[[0, -1]]
    assert np.all(edges > 1e-4 * frame_power(plain, 16000, 0.01).max())


@pytest.mark.skipif(not pico_available(), reason="pico2wave renders the lines")
def test_a_pico_player_speaks_at_its_own_speed_and_pitch() -> None:
    plain = pico("cuatro quinas", Voice("pico:es-ES"))
    fast = pico("cuatro quinas", Voice("pico:es-ES", rate=200))
    high = pico("cuatro quinas", Voice("pico:es-ES", pitch=65))
    assert len(fast) < 0.9 * len(plain)  # 200 words a minute: Pico at 125% speed
    assert not np.array_equal(high, plain) and abs(len(high) - len(plain)) < 0.1 * len(plain)
    assert abs(plain[0]) > 1e-3 and abs(plain[-1]) > 1e-3  # trimmed of Pico's hiss
    # the Renderer says a pico voice's lines with Pico, not espeak-ng
    said, s0, s1 = Renderer({"Ana": Voice("pico:es-ES")}, random.Random(1)).render(
        "Ana", "cuatro quinas")
    assert abs((s1 - s0) * 16000 - len(plain)) < 0.15 * len(plain)
