"""Spanish number words: gender, apocope, and reading back every form."""

import pytest

from voice_ref.language.numbers import (
    MAX_NUMBER,
    counting_up,
    number_to_words,
    read_number,
    words_to_number,
)
from voice_ref.language.spoken import spelled_out
from voice_ref.language.text import tokenize

SPOKEN = [
    # (n, feminine, apocope, words)
    (0, False, True, "cero"),
    (1, False, True, "un"),
    (1, True, True, "una"),
    (1, False, False, "uno"),
    (2, True, True, "dos"),
    (10, False, True, "diez"),
    (15, False, True, "quince"),
    (16, False, True, "dieciséis"),
    (20, False, True, "veinte"),
    (21, False, True, "veintiún"),
    (21, True, True, "veintiuna"),
    (21, False, False, "veintiuno"),
    (22, False, True, "veintidós"),
    (23, False, True, "veintitrés"),
    (26, False, True, "veintiséis"),
    (30, False, True, "treinta"),
    (31, False, True, "treinta y un"),
    (31, True, True, "treinta y una"),
    (31, False, False, "treinta y uno"),
    (41, True, True, "cuarenta y una"),
    (45, False, True, "cuarenta y cinco"),
    (51, False, True, "cincuenta y un"),
    (60, False, True, "sesenta"),
    (61, True, True, "sesenta y una"),
    (99, False, True, "noventa y nueve"),
    (100, False, True, "cien"),
    (101, False, True, "ciento un"),
    (200, True, True, "doscientas"),
    (221, True, True, "doscientas veintiuna"),
    (500, False, True, "quinientos"),
    (999, False, True, "novecientos noventa y nueve"),
]


@pytest.mark.parametrize(("n", "feminine", "apocope", "words"), SPOKEN)
def test_number_to_words(n, feminine, apocope, words):
    assert number_to_words(n, feminine=feminine, apocope=apocope) == words


@pytest.mark.parametrize(("n", "feminine", "apocope", "words"), SPOKEN)
def test_words_to_number_reads_the_spoken_form(n, feminine, apocope, words):
    assert words_to_number(words) == n


def test_every_form_of_every_number_reads_back():
    for n in range(MAX_NUMBER + 1):
        for feminine in (False, True):
            for apocope in (False, True):
                assert words_to_number(number_to_words(n, feminine, apocope)) == n


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Veintiún", 21),
        ("VEINTIUNO", 21),
        ("diez y seis", 16),
        ("veinte y uno", 21),
        ("ninguno", 0),
        ("ninguna", 0),
        ("7", 7),
        ("60", 60),
        ("  treinta   y  dos ", 32),
    ],
)
def test_words_to_number_variants(text, value):
    assert words_to_number(text) == value


@pytest.mark.parametrize("text", ["", "quinas", "cinco quinas", "y", "treinta y", "1000", "mil"])
def test_words_to_number_rejects_non_numbers(text):
    assert words_to_number(text) is None


@pytest.mark.parametrize("n", [-1, MAX_NUMBER + 1])
def test_number_to_words_out_of_range(n):
    with pytest.raises(ValueError, match="0 to"):
        number_to_words(n)


def test_read_number_is_longest_match_and_reports_the_end():
    tokens = tokenize("treinta y un ases")
    assert read_number(tokens) == (31, 3)
    assert read_number(tokenize("treinta ases")) == (30, 1)
    assert read_number(tokens, 3) is None
    assert read_number(tokens, 10) is None


@pytest.mark.parametrize(
    ("text", "spelled"),
    [
        ("14 dones", "catorce dones"),
        ("1016", "1016"),  # no call: left in digits, not an error (a free transcript)
        ("3 y 2000", "tres y 2000"),
    ],
)
def test_spelled_out_leaves_numbers_beyond_words_in_digits(text: str, spelled: str) -> None:
    assert spelled_out(text) == spelled


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("Uno, dos.", (1, 2)),
        ("tres cuatro cinco", (3, 4, 5)),
        ("1, 2, 3", (1, 2, 3)),  # Whisper writes a count in digits too
        ("treinta y uno, treinta y dos", (31, 32)),
        ("Cinco.", None),  # one number is an answer, not counting
        ("uno, dos, cuatro", None),  # not one by one
        ("veinte, uno", None),
        ("Uno, dos, tres y cuatro.", (1, 2, 3, 4)),  # a list's last item takes "y"
        ("uno y dos", (1, 2)),
        ("y tres, y cuatro", (3, 4)),  # a chunk of a count that goes on
        ("veinte y veintiuno", (20, 21)),
        ("veinte y uno", None),  # one number: 21
        ("uno y", None),
        ("uno y tres", None),
        ("uno, otro dos", None),  # other words
        ("", None),
    ],
)
def test_counting_up_reads_a_count_said_aloud(text, numbers):
    assert counting_up(text) == numbers


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("E, dos, tres.", (2, 3)),  # Whisper's spelling of "eh, dos, tres"
        ("Em, em, tres, cuatro", (3, 4)),
        ("E, dos.", None),  # still one number
        ("dos, e, tres", None),  # only before the count
        ("Hay dos, tres", None),  # not a hesitation
    ],
)
def test_counting_up_after_a_hesitation(text, numbers):
    assert counting_up(text, lead_ins={"e", "em"}) == numbers
    assert counting_up(text) is None


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("Nuevo, uno, dos.", (1, 2)),  # "bueno, uno, dos" misheard
        ("Es, uno, dos, tres", (1, 2, 3)),
        ("Hay uno, dos", (1, 2)),
        ("Bueno, dos, tres", None),  # after other words, only a count from one
        ("son tres, uno, dos", None),  # a number before: no count from one
        ("uno, otro dos", None),
        ("dame uno", None),
        ("Tengo un dos.", None),  # "un" is an article: a bid of one two
        ("3, 2, 1, 2", None),  # numbers before: not a count from one
    ],
)
def test_counting_up_from_one_after_other_words(text, numbers):
    assert counting_up(text) == numbers
