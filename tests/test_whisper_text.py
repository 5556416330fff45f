"""Pure helpers of the Whisper backend: how phrases are spelled, timed and searched (no model)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voice_ref.language.intents import BidIntent, DudoIntent, NumberIntent
from voice_ref.language.inventory import PhraseInventory
from voice_ref.language.spoken import syllables
from voice_ref.voice.asr.duration import duration_logp
from voice_ref.voice.asr.free_transcript import LOOP_RUN, free_fluency, loop_cut
from voice_ref.voice.asr.phrase_search import Candidate, build_trie, first_tokens
from voice_ref.voice.asr.whisper_backend import _digit_variant, _posteriors


@pytest.mark.parametrize(
    ("text", "intent", "variant"),
    [
        ("catorce dones", BidIntent(quantity=14, face=2), "14 dones"),
        ("Ana hay veintiún trenes", BidIntent(quantity=21, face=3), "Ana hay 21 trenes"),
        ("treinta y dos quinas", BidIntent(quantity=32, face=5), "32 quinas"),
        ("cero", NumberIntent(value=0), "0"),
        ("un tren", BidIntent(quantity=1, face=3), None),
        ("dudo", DudoIntent(), None),
    ],
)
def test_digit_spelling(text: str, intent, variant: str | None) -> None:  # noqa: ANN001
    assert _digit_variant(text, intent) == variant


def _rows(tokens: list[int], values: list[float], vocab: int = 10) -> np.ndarray:
    """Log-probability rows, one per token and one after: row i gives `tokens[i]` the
    log-probability `values[i]`, every other token -9."""
    rows = np.full((len(tokens) + 1, vocab), -9.0)
    rows[np.arange(len(tokens)), tokens] = values
    return rows


@pytest.mark.parametrize(
    ("tokens", "rows", "fluency"),
    [
        ([1, 2, 3, 4], _rows([1, 2, 3, 4], [-1.0, -0.5, -0.25, -0.25]), -0.5),  # the mean
        ([1], _rows([1], [-0.25]), -0.25),
        ([], _rows([], []), float("-inf")),  # nothing written: not fluent
        ([1, 2], _rows([], []), float("-inf")),  # fewer rows than tokens: not read
        # still looping after `loop_cut`: not fluent, however sure each token was
        ([1, 2, 1, 2, 1, 2], _rows([1, 2, 1, 2, 1, 2], [-0.1] * 6), float("-inf")),
    ],
)
def test_free_fluency_is_the_mean_log_probability_of_a_transcript_not_looping(
    tokens: list[int], rows: np.ndarray, fluency: float
) -> None:
    assert free_fluency(tokens, rows) == pytest.approx(fluency)


def test_every_inventory_number_gets_its_digits() -> None:
    inventory = PhraseInventory(["Ana"])
    for phrase in inventory.phrases("count"):
        if phrase.intent.type == "number" and phrase.intent.value != 1:  # undo is there too
            assert _digit_variant(phrase.text, phrase.intent) == str(phrase.intent.value)


@pytest.mark.parametrize(
    ("pieces", "capped", "kept"),
    [
        (["7", "7", "7", "7"], False, 1),
        (["1", ",", "2", "1", ",", "2", "1"], False, 3),
        (["1", "2", "3"], False, 3),
        ([], False, 0),
        # Another case is another tokenization: the words repeat, not the tokens.
        ([" Nue", "vos", " nuev", "os", " nuev", "os"], False, 2),
        ([" Seg", "undo", ",", " seg", "undo", ",", " seg"], True, 3),
        # Capped: a loop anywhere, down to a cut-off copy, ends the transcript...
        ([" 20", " de", " la", " parte", " de", " la", " parte", " de"], True, 4),
        ([" ¿", "Cu", "ántos", " mamos", " queman", "?", " ¿", "Cu", "ántos", " mam"], True, 6),
        # ... but a transcript that ended by itself keeps a repeat after its start.
        ([" No", ",", " no", " me", " digas", " no", ",", " no"], False, 8),
        ([" Dos", " quinas", " dos"], False, 3),
        ([" Ah", ",", " ah", ",", " Ve", "int", "itrés", " dones"], False, 8),
        # ... except a run of one word at its end, LOOP_RUN long or more: one copy kept.
        (["50", ",", " 53", " 50", " 53", " 53", " 53", " 53", " 53"], False, 5),
        ([" Mi", " cuyo", " cuyo", " cuyo", " cuyo", " cu"], False, 2),
        ([" no", ",", " no", ",", " no", ",", " no"], False, 2),
        ([" 10", " 6", " 7", " 7", " 7"], False, 5),  # three in a row: kept
        ([" 7", " 7", " 7", " 7", " 8"], False, 1),  # not at the end: the token rule
    ],
)
def test_repetition_loops_are_cut(pieces: list[str], capped: bool, kept: int) -> None:
    assert loop_cut(pieces, capped) == kept


_WORDS = st.sampled_from([" cinco", " quinas", " no", " 45", " 50", " dudo", " Ana", ","])


@settings(max_examples=200)
@given(st.lists(_WORDS, max_size=12), st.booleans())
def test_a_cut_transcript_is_a_start_of_it(pieces: list[str], capped: bool) -> None:
    kept = loop_cut(pieces, capped)
    assert 0 <= kept <= len(pieces)
    assert (kept == 0) == (not pieces)


@settings(max_examples=200)
@given(st.lists(_WORDS, max_size=6), st.sampled_from([" 45", " no", " quinas"]),
       st.integers(LOOP_RUN, 12))
def test_a_run_at_the_end_keeps_one_copy(head: list[str], word: str, times: int) -> None:
    """Whatever came before, a word said LOOP_RUN times or more at the end keeps at
    most one copy (an earlier loop may cut sooner: "cinco cinco …" keeps "cinco")."""
    pieces = [*head, *[word] * times]
    kept = loop_cut(pieces)
    assert 1 <= kept <= len(head) + 1


@pytest.mark.parametrize(("text", "n"), [("cuatro cuadras", 4), ("sí", 1), ("Camila", 3),
                                          ("veintitrés dones", 5), ("ay", 1)])
def test_syllables(text: str, n: int) -> None:
    assert syllables(text) == n


@settings(max_examples=50)
@given(st.integers(1, 20), st.floats(0.2, 6.0))
def test_duration_score_peaks_at_the_expected_length(n: int, speech_s: float) -> None:
    best = duration_logp(n, 0.15 + n / 5.5)
    assert best == pytest.approx(0.0)
    assert duration_logp(n, speech_s) <= best + 1e-9


def test_a_name_alone_fits_a_long_utterance_worse_than_name_and_bid() -> None:
    speech_s = 1.4  # "Camila, ocho tontos"
    assert duration_logp(syllables("Camila ocho tontos"), speech_s) > duration_logp(
        syllables("Camila"), speech_s) + 1.0


def test_trie_spells_phrases_as_whisper_writes_them() -> None:
    cands = [Candidate("Ana cinco quinas", None), Candidate("Ana", None),
             Candidate("dudo", None)]
    root = build_trie(cands, ["Ana"])
    assert set(root.children) == {"Ana,", "Ana", "Dudo"}
    assert root.children["Ana"].phrases == [cands[1]]
    leaf = root.children["Ana,"].children["cinco"].children["quinas"]
    assert leaf.phrases == [cands[0]]


def test_first_tokens_cover_every_word_of_the_trie() -> None:
    cands = [Candidate("Ana cinco quinas", None), Candidate("dudo", None)]
    root = build_trie(cands, ["Ana"])
    spell = {"Ana,": [1, 2], "cinco": [3], "quinas": [4, 5], "Dudo": [6]}
    assert first_tokens(root, spell.__getitem__) == {1, 3, 4, 6}


def test_phrasings_of_one_intent_pool_and_ride_along_likeliest_first() -> None:
    scored = [
        (Candidate("dudo dudo", DudoIntent()), 2.0),
        (Candidate("Tuna", None), 0.0),
        (Candidate("dudo", DudoIntent()), 1.0),
        (Candidate("yo dudo", DudoIntent()), -1.0),
    ]
    best, talk = _posteriors(scored)
    assert best.text == "dudo dudo" and best.phrasings == ("dudo", "yo dudo")
    assert talk.text == "Tuna" and talk.phrasings == ()
    assert best.score + talk.score == pytest.approx(1.0, abs=1e-3)
    assert best.score > 0.85  # e^2 + e^1 + e^-1 of e^2 + e^1 + e^0 + e^-1
