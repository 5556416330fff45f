"""The phrase inventory is the parser's single source of truth: every phrase reads back."""

import pytest

from voice_ref.language.intents import BidIntent, DudoIntent, HandIntent, NumberIntent, PasoIntent
from voice_ref.language.inventory import EXPECTING, PhraseInventory
from voice_ref.language.parser import Parser
from voice_ref.language.text import tokenize

PLAYERS = ("Ana", "Beto", "José María")
INVENTORY = PhraseInventory(PLAYERS, clean_bids=True)
PARSER = Parser(PLAYERS)


@pytest.mark.parametrize("canonical", [True, False])
@pytest.mark.parametrize("expecting", [e for e in EXPECTING if e != "any"])
def test_every_phrase_parses_back_to_exactly_its_intent(expecting, canonical):
    phrases = INVENTORY.phrases(expecting, canonical=canonical)
    assert phrases
    wrong = []
    for phrase in phrases:
        result = PARSER.parse(phrase.text)
        if result.intent != phrase.intent or result.score != 1.0:
            wrong.append((phrase.text, phrase.intent, result))
    assert wrong == []


def test_any_is_the_union_of_the_groups():
    for canonical in (True, False):
        union = {p.text for e in EXPECTING if e != "any" for p in INVENTORY.phrases(e, canonical)}
        assert {p.text for p in INVENTORY.phrases("any", canonical)} == union


def test_texts_are_unique_and_plain_words():
    phrases = INVENTORY.phrases("any", canonical=False)
    texts = [p.text for p in phrases]
    assert len(texts) == len(set(texts))
    for text in texts:
        assert all(ch.isalpha() or ch == " " for ch in text), text


def test_canonical_has_one_text_per_bid_per_face_word():
    turn = INVENTORY.phrases("turn")
    by_text = {p.text: p.intent for p in turn}
    assert by_text["cinco quinas"] == by_text["cinco chinas"] == BidIntent(quantity=5, face=5)
    assert by_text["veintiún trenes"] == BidIntent(quantity=21, face=3)
    assert by_text["una quina limpia"] == BidIntent(quantity=1, face=5, clean=True)
    bids = [p for p in turn if isinstance(p.intent, BidIntent)]
    assert len(bids) == 60 * 12 * 2  # quantities x listed face words x (plain, limpio)
    assert "hay cinco quinas" not in by_text
    assert "Ana cinco quinas" not in by_text


def test_a_face_name_only_a_seed_uses_is_understood_but_not_offered():
    offered = {p.text for p in INVENTORY.phrases("turn", canonical=False)}
    assert "dos cuadras" in offered and "dos dones" in offered
    assert not any("dona" in text for text in offered)
    assert Parser(["Ana"]).parse("dos donas").intent == BidIntent(quantity=2, face=2)


def test_a_face_name_the_table_chose_is_offered_even_if_the_rule_book_does_not_list_it():
    own = PhraseInventory(PLAYERS, faces={2: "dona"}).phrases("turn", canonical=False)
    assert BidIntent(quantity=2, face=2) in {p.intent for p in own if p.text == "dos donas"}
    assert {p.text for p in own} >= {"dos tontos", "dos dones"}  # the others stay offered


def test_faces_said_as_numbers_are_offered_where_tables_say_them():
    chile = {p.text for p in INVENTORY.phrases("turn", canonical=False)}
    peru = {p.text for p in PhraseInventory(PLAYERS, dialect="peru").phrases("turn")}
    peru_common = {
        p.text for p in PhraseInventory(PLAYERS, dialect="peru").phrases("turn", canonical=False)
    }
    assert "un seis" in peru and "cuatro cincos" in peru_common
    assert "un seis" not in chile and "cuatro cincos" not in chile


def test_non_canonical_adds_fillers_and_names():
    texts = {p.text: p.intent for p in INVENTORY.phrases("turn", canonical=False)}
    assert texts["hay cinco quinas"] == BidIntent(quantity=5, face=5)
    assert texts["Beto dudo"] == DudoIntent(player="Beto")
    assert texts["yo paso"] == PasoIntent()
    assert texts["tres quinas sucias"] == BidIntent(quantity=3, face=5)


def test_clean_bids_only_on_request():
    plain = PhraseInventory(PLAYERS)
    assert not any("limpi" in p.text for p in plain.phrases("turn", canonical=False))
    assert "limpias" not in plain.words()
    assert "limpias" in INVENTORY.words()


def test_count_lists_zero_to_sixty():
    counts = [p.intent for p in INVENTORY.phrases("count")]
    values = {i.value for i in counts if isinstance(i, NumberIntent)}
    assert values == set(range(61))
    texts = {p.text for p in INVENTORY.phrases("count", canonical=False)}
    assert {"ninguna", "hay cuatro", "veintiuna"} <= texts


def test_pass_check_lists_every_five_dice_hand_once():
    hands = [p.intent for p in INVENTORY.phrases("pass_check") if isinstance(p.intent, HandIntent)]
    assert len(hands) == len(set(hands)) == 252  # multisets of 5 faces from 6
    assert all(len(h.faces) == 5 for h in hands)
    texts = {p.text for p in INVENTORY.phrases("pass_check", canonical=True)}
    assert {"sí", "no", "todas quinas", "dos ases y tres sextos"} <= texts


def test_dialect_changes_the_hand_words():
    peru = {p.text for p in PhraseInventory(dialect="peru").phrases("pass_check")}
    assert "todas senas" in peru
    assert "dos dones y tres senas" in peru


@pytest.mark.parametrize(
    ("expecting", "sample"),
    [
        ("yes_no", {"sí", "no", "obligo", "no obligo"}),
        ("choice", {"abierta", "cerrada", "izquierda", "derecha"}),
        ("starter", {"Ana", "parte Ana", "empieza José María"}),
        (
            "turn",
            {
                "dudo",
                "calzo",
                "paso",
                "repite",
                "me equivoqué",
                "nueva partida",
                "Beto",
                "cuántos dados tiene Ana",
                "a quién le toca",
                "cuál es el mínimo",
            },
        ),
    ],
)
def test_groups_contain_their_phrases(expecting, sample):
    assert sample <= {p.text for p in INVENTORY.phrases(expecting)}


def test_groups_do_not_leak():
    assert "dudo" not in {p.text for p in INVENTORY.phrases("count")}
    assert "sí" not in {p.text for p in INVENTORY.phrases("turn")}


def test_words_cover_every_phrase_and_are_lower_case():
    words = INVENTORY.words()
    assert all(w == w.lower() for w in words)
    for phrase in INVENTORY.phrases("any", canonical=False):
        assert set(phrase.text.lower().split()) <= words
    assert {"veintiún", "quinas", "josé", "maría", "dudo"} <= words


def test_every_word_is_known_to_the_parser():
    known = PARSER.known_words
    assert {t for word in INVENTORY.words() for t in tokenize(word)} <= known


def test_bad_arguments_are_explained():
    with pytest.raises(ValueError, match="expecting must be one of"):
        INVENTORY.phrases("bids")
    with pytest.raises(ValueError, match="unknown dialect"):
        PhraseInventory(dialect="klingon")
