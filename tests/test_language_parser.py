"""The parser: what players say -> intents; table talk -> nothing.

Table-driven: each row is (utterance, expected protocol JSON or None).
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voice_ref.language.intents import intent_from_json
from voice_ref.language.numbers import number_to_words
from voice_ref.language.parser import MAX_CHARS, Parser
from voice_ref.language.vocabulary import BID_FILLERS, FACE_WORDS
from voice_ref.simulation.phrasing import COUNT_TALK
from voice_ref.simulation.phrasing import TABLE_TALK as SIMULATED_TALK

PLAYERS = ("Ana", "Beto", "Carla", "Diego", "José María")
PARSER = Parser(PLAYERS)


def bid(q, face, clean=False, **extra):
    return {"type": "bid", "quantity": q, "face": face, "clean": clean, **extra}


def parsed(text):
    result = PARSER.parse(text)
    return None if result.intent is None else result.intent.to_json()


BIDS = [
    ("cinco quinas", bid(5, 5)),
    ("Cinco Quinas.", bid(5, 5)),
    ("5 quinas", bid(5, 5)),
    ("5quinas", bid(5, 5)),
    ("un tren", bid(1, 3)),
    ("una quina", bid(1, 5)),
    ("un as", bid(1, 1)),
    ("uno tren", bid(1, 3)),
    ("una as", bid(1, 1)),
    ("veintiún trenes", bid(21, 3)),
    ("veintiuna quinas", bid(21, 5)),
    ("veintiuno quinas", bid(21, 5)),
    ("veintiun trenes", bid(21, 3)),
    ("treinta y un ases", bid(31, 1)),
    ("treinta y uno ases", bid(31, 1)),
    ("cuarenta y una cuadras", bid(41, 4)),
    ("cuarenta y un cuadras", bid(41, 4)),
    ("sesenta sextos", bid(60, 6)),
    ("dieciséis tontos", bid(16, 2)),
    ("diez y seis tontos", bid(16, 2)),
    ("tres ases", bid(3, 1)),
    ("dos tontos", bid(2, 2)),
    ("un tonto", bid(1, 2)),
    ("dos dones", bid(2, 2)),
    ("un don", bid(1, 2)),
    ("dos donas", bid(2, 2)),
    ("dos patos", bid(2, 2)),
    ("tres trenes", bid(3, 3)),
    ("cuatro cuadras", bid(4, 4)),
    ("siete chinas", bid(7, 5)),
    ("una china", bid(1, 5)),
    ("cuatro sextos", bid(4, 6)),
    ("cuatro senas", bid(4, 6)),
    ("cuatro cenas", bid(4, 6)),
    ("cuatro sambas", bid(4, 6)),
    ("una sena", bid(1, 6)),
    ("un sexto", bid(1, 6)),
    ("tres quina", bid(3, 5)),
    ("hay cinco quinas", bid(5, 5)),
    ("van seis trenes", bid(6, 3)),
    ("subo a siete cuadras", bid(7, 4)),
    ("digo ocho sextos", bid(8, 6)),
    ("pongo tres ases", bid(3, 1)),
    ("canto nueve quinas", bid(9, 5)),
    ("voy con diez trenes", bid(10, 3)),
    ("son cuatro tontos", bid(4, 2)),
    ("yo digo cinco quinas", bid(5, 5)),
    ("eh, cinco quinas", bid(5, 5)),
    ("bueno, hay cinco quinas", bid(5, 5)),
    ("tres quinas limpias", bid(3, 5, True)),
    ("un tren limpio", bid(1, 3, True)),
    ("dos ases limpios", bid(2, 1, True)),
    ("una cuadra limpia", bid(1, 4, True)),
    ("tres quinas sucias", bid(3, 5, False)),
    ("seis trenes sucios", bid(6, 3, False)),
    ("cero quinas", bid(0, 5)),
    ("0 quinas", bid(0, 5)),
    ("ningún as", bid(0, 1)),
    ("sesenta y un trenes", bid(61, 3)),
    ("61 trenes", bid(61, 3)),
    ("setenta quinas", bid(70, 5)),
    ("cien ases", bid(100, 1)),
    ("Beto, cinco quinas", bid(5, 5, player="Beto")),
    ("Ana: hay tres trenes", bid(3, 3, player="Ana")),
    ("josé maría, dos ases", bid(2, 1, player="José María")),
    ("Diego 4 cuadras limpias", bid(4, 4, True, player="Diego")),
]

COMMANDS = [
    ("dudo", {"type": "dudo"}),
    ("¡Dudo!", {"type": "dudo"}),
    ("yo dudo", {"type": "dudo"}),
    ("dudó", {"type": "dudo"}),
    ("Carla dudo", {"type": "dudo", "player": "Carla"}),
    ("calzo", {"type": "calzo"}),
    ("yo calzo", {"type": "calzo"}),
    ("paso", {"type": "paso"}),
    ("yo paso", {"type": "paso"}),
    ("Beto: paso", {"type": "paso", "player": "Beto"}),
    ("repite", {"type": "repeat"}),
    ("repita", {"type": "repeat"}),
    ("repite por favor", {"type": "repeat"}),
    ("otra vez", {"type": "repeat"}),
    ("me equivoqué", {"type": "undo"}),
    ("me equivoque", {"type": "undo"}),
    ("corrige", {"type": "undo"}),
    ("corrección", {"type": "undo"}),
    ("deshacer", {"type": "undo"}),
    ("deshaz", {"type": "undo"}),
    ("nueva partida", {"type": "new_game"}),
    ("Nueva partida.", {"type": "new_game"}),
]

ANSWERS = [
    ("cero", {"type": "number", "value": 0}),
    ("ninguno", {"type": "number", "value": 0}),
    ("ninguna", {"type": "number", "value": 0}),
    ("no hay", {"type": "number", "value": 0}),
    ("no hay ninguna", {"type": "number", "value": 0}),
    ("4", {"type": "number", "value": 4}),
    ("cuatro", {"type": "number", "value": 4}),
    ("hay cuatro", {"type": "number", "value": 4}),
    ("son cuatro", {"type": "number", "value": 4}),
    ("había dos", {"type": "number", "value": 2}),
    ("una", {"type": "number", "value": 1}),
    ("uno", {"type": "number", "value": 1}),
    ("veintiuno", {"type": "number", "value": 21}),
    ("treinta y dos", {"type": "number", "value": 32}),
    ("sesenta", {"type": "number", "value": 60}),
    ("sí", {"type": "yes"}),
    ("si", {"type": "yes"}),
    ("Sí.", {"type": "yes"}),
    ("obligo", {"type": "yes"}),
    ("sí, obligo", {"type": "yes"}),
    ("no", {"type": "no"}),
    ("no obligo", {"type": "no"}),
    ("Diego: sí", {"type": "yes", "player": "Diego"}),
    ("abierta", {"type": "choice", "value": "abierta"}),
    ("cerrada", {"type": "choice", "value": "cerrada"}),
    ("izquierda", {"type": "choice", "value": "izquierda"}),
    ("a la izquierda", {"type": "choice", "value": "izquierda"}),
    ("para la derecha", {"type": "choice", "value": "derecha"}),
    ("hacia la derecha", {"type": "choice", "value": "derecha"}),
    ("derecha", {"type": "choice", "value": "derecha"}),
]

QUERIES = [
    ("¿cuántos dados quedan?", {"type": "query", "what": "dice"}),
    ("cuantos dados quedan", {"type": "query", "what": "dice"}),
    ("¿cuántos dados hay?", {"type": "query", "what": "dice"}),
    ("¿cuántos dados tiene Ana?", {"type": "query", "what": "dice", "player": "Ana"}),
    ("¿Cuántos dados le quedan a Beto?", {"type": "query", "what": "dice", "player": "Beto"}),
    ("cuantos dados tiene jose maria", {"type": "query", "what": "dice", "player": "José María"}),
    ("¿de quién es el turno?", {"type": "query", "what": "turn"}),
    ("¿a quién le toca?", {"type": "query", "what": "turn"}),
    ("¿quién sigue?", {"type": "query", "what": "turn"}),
    ("¿cuántos dados tiene cada uno?", {"type": "query", "what": "dice"}),
    ("¿qué hay que cantar?", {"type": "query", "what": "minimum"}),
    ("¿cuánto hay que cantar?", {"type": "query", "what": "minimum"}),
    ("¿cuál es el mínimo?", {"type": "query", "what": "minimum"}),
    ("¿qué se cantó?", {"type": "query", "what": "bid"}),
    ("¿cuál es la apuesta?", {"type": "query", "what": "bid"}),
]

OURS = [
    ("Ana", {"type": "none", "player": "Ana"}),
    ("beto", {"type": "none", "player": "Beto"}),
    ("José María", {"type": "none", "player": "José María"}),
    ("parte Ana", {"type": "starter", "player": "Ana"}),
    ("empieza Beto", {"type": "starter", "player": "Beto"}),
    ("comienza Carla", {"type": "starter", "player": "Carla"}),
    ("Diego parte", {"type": "starter", "player": "Diego"}),
    ("as, as, quina, sexto, sexto", {"type": "hand", "faces": [1, 1, 5, 6, 6]}),
    ("as as quina sexto sexto", {"type": "hand", "faces": [1, 1, 5, 6, 6]}),
    ("dos ases, tres sextos", {"type": "hand", "faces": [1, 1, 6, 6, 6]}),
    ("dos ases y tres sextos", {"type": "hand", "faces": [1, 1, 6, 6, 6]}),
    ("un as, dos quinas y dos sextos", {"type": "hand", "faces": [1, 5, 5, 6, 6]}),
    ("tenía tonto, tren, cuadra, quina, sexto", {"type": "hand", "faces": [2, 3, 4, 5, 6]}),
    ("todas quinas", {"type": "hand", "faces": [5, 5, 5, 5, 5]}),
    ("uno, uno, cinco, seis, seis", {"type": "hand", "faces": [1, 1, 5, 6, 6]}),
    ("tenía dos tres cuatro cinco y seis", {"type": "hand", "faces": [2, 3, 4, 5, 6]}),
    ("1 1 5 6 6", {"type": "hand", "faces": [1, 1, 5, 6, 6]}),
    ("todos ases", {"type": "hand", "faces": [1, 1, 1, 1, 1]}),
    ("as, quina, quina, sexto", {"type": "hand", "faces": [1, 5, 5, 6]}),
]


@pytest.mark.parametrize(("text", "expected"), BIDS + COMMANDS + ANSWERS + QUERIES + OURS)
def test_exact_phrases(text, expected):
    result = PARSER.parse(text)
    assert result.intent is not None, text
    assert result.intent.to_json() == expected
    assert result.score == 1.0
    assert intent_from_json(expected) == result.intent


TABLE_TALK = [
    "pásame el pan",
    "pasame la sal",
    "el tren llegó atrasado",
    "compré seis huevos",
    "tengo dos hermanos y una hermana",
    "la cena está lista",
    "ayer perdí tres veces seguidas",
    "¿cuántas sillas faltan?",
    "el bus pasa a las ocho",
    "no sé",
    "hola a todos",
    "qué rico está esto",
    "tengo hambre",
    "mañana trabajo a las nueve",
    "son las cinco y media",
    "cinco personas vinieron",
    "dos cervezas por favor",
    "mi hermana tiene tres hijos",
    "vamos a la playa",
    "el as de espadas",
    "dudo que llueva",
    "paso a buscarte mañana",
    "calzo cuarenta y dos",
    "quién quiere café",
    "a la derecha del baño",
    "no me digas",
    "Ana ven acá",
    "cinco quinas y algo más",
    "tres por tres nueve",
    "uno dos tres",
    "uno dos tres cuatro cinco seis",
    "uno uno siete seis seis",
    "quina",
    "yo",
    "y",
    "...",
    "???",
    "",
    "   ",
]


@pytest.mark.parametrize("text", TABLE_TALK + list(SIMULATED_TALK) + list(COUNT_TALK))
def test_table_talk_is_not_game_speech(text):
    result = PARSER.parse(text)
    assert result.intent is None, (text, result)
    assert result.score == 0.0


NEAR_MISSES = [
    ("sinco kinas", bid(5, 5)),
    ("sinco quina", bid(5, 5)),
    ("tres trene", bid(3, 3)),
    ("dos ace", bid(2, 1)),
    ("dos aces", bid(2, 1)),
    ("calso", {"type": "calzo"}),
    ("kalzo", {"type": "calzo"}),
    ("dudo", {"type": "dudo"}),
    ("beintiún trenes", bid(21, 3)),
    ("cuatro quadras", bid(4, 4)),
    ("Veto, paso", {"type": "paso", "player": "Beto"}),
    ("siete sestos", bid(7, 6)),
    ("ocho tontoz", bid(8, 2)),
    ("repitte", {"type": "repeat"}),
    ("deshas", {"type": "undo"}),
]


@pytest.mark.parametrize(("text", "expected"), NEAR_MISSES)
def test_near_misses_map_with_a_lower_score(text, expected):
    result = PARSER.parse(text)
    assert result.intent is not None, text
    assert result.intent.to_json() == expected
    if text != "dudo":
        assert 0.5 <= result.score < 1.0, result


def test_a_face_word_is_not_a_quantity_and_two_faces_are_not_a_hand():
    assert PARSER.parse("sexto cuadras").intent is None


def test_a_guess_the_grammar_cannot_use_gives_way_to_the_next_one():
    # "cuatno" is nearest to "cuanto" (a query word); the grammar needs "cuatro".
    result = PARSER.parse("cuatno ases")
    assert result.intent.to_json() == bid(4, 1)
    assert result.matched == "cuatro ases"
    assert PARSER.parse("un todto").intent.to_json() == bid(1, 2)


def test_a_name_alone_must_sound_exactly_like_the_name():
    assert PARSER.parse("Veto").intent.to_json() == {"type": "none", "player": "Beto"}
    assert PARSER.parse("veo").intent is None


def test_more_guessing_means_a_lower_score():
    one = PARSER.parse("sinco quinas").score
    two = PARSER.parse("sinco kinas").score
    far = PARSER.parse("tres trene").score
    assert 1.0 > one > two
    assert 1.0 > one > far


def test_matched_shows_the_corrected_words():
    assert PARSER.parse("Sinco KINAS!").matched == "cinco quinas"


def test_names_are_matched_accent_insensitively_and_fuzzily():
    parser = Parser(["Álvaro", "Chío"])
    assert parser.parse("alvaro dudo").intent.player == "Álvaro"
    assert parser.parse("CHIO, paso").intent.player == "Chío"
    assert parser.parse("Albaro dudo").intent.player == "Álvaro"
    assert parser.parse("cuántos dados tiene Chío").intent.player == "Chío"


def test_without_players_names_are_not_understood():
    assert Parser().parse("Ana").intent is None
    assert Parser().parse("Ana, dudo").intent is None
    assert Parser().parse("dudo").intent.to_json() == {"type": "dudo"}


def test_unknown_player_in_a_query_is_not_a_query():
    assert PARSER.parse("cuántos dados tiene Pedro").intent is None


def test_long_garbage_returns_quickly_with_nothing():
    assert PARSER.parse("a" * 10_000).intent is None
    assert PARSER.parse("cinco quinas " * 1000).intent is None
    assert PARSER.parse("x" * (MAX_CHARS + 1)).intent is None
    assert PARSER.parse("dudo " + "eh " * 20).intent is None


def test_wrong_gender_is_accepted_and_right_gender_everywhere():
    for fw in FACE_WORDS:
        for q in (1, 21, 31, 41, 51):
            for feminine in (False, True):
                text = f"{number_to_words(q, feminine=feminine)} {fw.noun(q)}"
                assert parsed(text) == bid(q, fw.face), text


@settings(max_examples=300, deadline=None)
@given(
    q=st.integers(min_value=0, max_value=99),
    fw=st.sampled_from(FACE_WORDS),
    filler=st.sampled_from(("",) + BID_FILLERS),
    player=st.sampled_from((None,) + PLAYERS),
    digits=st.booleans(),
    plural=st.booleans(),
)
def test_any_bid_phrasing_parses(q, fw, filler, player, digits, plural):
    number = str(q) if digits else number_to_words(q, feminine=fw.feminine)
    noun = fw.plural if plural else fw.singular
    text = " ".join(x for x in (player and f"{player},", filler, number, noun) if x)
    expected = bid(q, fw.face) if player is None else bid(q, fw.face, player=player)
    assert parsed(text) == expected


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_any_text_gives_a_result_in_range(text):
    result = PARSER.parse(text)
    assert 0.0 <= result.score <= 1.0
    assert (result.intent is None) == (result.score == 0.0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["el", "la", "pan", "mesa", "casa", "perro", "vino"]), min_size=1))
def test_ordinary_words_never_make_game_speech(extra):
    assert PARSER.parse(" ".join(extra)).intent is None
    assert PARSER.parse("cinco quinas " + " ".join(extra)).intent is None
