"""prompts/es.toml and the Spanish glue that fills it."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from voice_ref.dialogue.prompts import Prompts, Speaker, dice, join_words, number, sentence
from voice_ref.rules.bid import Bid
from voice_ref.rules.errors import Reason
from voice_ref.rules.faces import Face

PROMPTS = Prompts.load()
DIALOGUE = Path(__file__).resolve().parent.parent / "voice_ref" / "dialogue"
REFEREE_SOURCE = "".join(
    (DIALOGUE / name).read_text(encoding="utf-8") for name in ("referee.py", "narration.py")
)


def test_every_key_the_referee_uses_exists():
    sections = "opening|ask|announce|result|undone|query|reject|illegal|minimum|words"
    used = set(re.findall(rf'"((?:{sections})\.[a-z_]+)"', REFEREE_SOURCE))
    assert used, "the pattern found nothing: the test would prove nothing"
    missing = sorted(k for k in used if not PROMPTS.has(k))
    assert missing == []


def test_every_refusal_reason_has_a_line():
    assert [r.value for r in Reason if not PROMPTS.has(f"illegal.{r.value}")] == []


def test_templates_only_use_known_placeholders():
    known = {"player", "players", "rules", "bid", "count", "dice", "detail", "question",
             "minimum", "number", "faces", "passer", "direction", "remain", "words",
             "face", "rolls", "what", "change", "lost", "left", "gained", "total", "lives",
             "cup", "other", "speaker"}
    for key in PROMPTS.names():
        fields = {f for _, f, _, _ in string.Formatter().parse(PROMPTS.template(key)) if f}
        assert fields <= known, key


@pytest.mark.parametrize(
    ("n", "feminine", "words"),
    [
        (1, False, "un"),
        (1, True, "una"),
        (21, False, "veintiún"),
        (21, True, "veintiuna"),
        (31, False, "treinta y un"),
        (5, True, "cinco"),
    ],
)
def test_numbers_agree_with_the_noun(n, feminine, words):
    assert number(n, feminine=feminine) == words


@pytest.mark.parametrize(
    ("n", "words"), [(1, "un dado"), (2, "dos dados"), (21, "veintiún dados"), (0, "cero dados")]
)
def test_dice(n, words):
    assert dice(n) == words


def test_join_and_sentence():
    assert join_words(["Ana"]) == "Ana"
    assert join_words(["Ana", "Beto", "Carla"]) == "Ana, Beto y Carla"
    assert join_words(["a", "b"], "o") == "a o b"
    assert sentence("¿cuántas quinas hay?") == "¿Cuántas quinas hay?"
    assert sentence("¡ana gana!") == "¡Ana gana!"


def B(q: int, f: int, clean: bool = False) -> Bid:
    return Bid(q, Face(f), clean)


@pytest.mark.parametrize(
    ("standing", "minimums", "said"),
    [
        # chile after cinco quinas
        (B(5, 5), [B(3, 1), B(6, 2), B(6, 3), B(6, 4), B(6, 5), B(5, 6)],
         "cinco sextos, seis de otra pinta o tres ases"),
        # after tres trenes: the next face only, not every face above
        (B(3, 3), [B(2, 1), B(4, 2), B(4, 3), B(3, 4), B(3, 5), B(3, 6)],
         "tres cuadras, cuatro de otra pinta o dos ases"),
        # after sextos: every face at q+1, sextos included
        (B(4, 6), [B(3, 1), B(5, 2), B(5, 3), B(5, 4), B(5, 5), B(5, 6)],
         "cinco de cualquier pinta o tres ases"),
        # after aces
        (B(3, 1), [B(4, 1), B(7, 2), B(7, 3), B(7, 4), B(7, 5), B(7, 6)],
         "siete de cualquier pinta o cuatro ases"),
        # cachito: a clean group names that it may be any face; aces are never "limpios"
        (B(7, 5), [B(5, 1, True), B(8, 2), B(5, 2, True), B(8, 3), B(5, 3, True), B(8, 4),
                   B(5, 4, True), B(8, 5), B(5, 5, True), B(7, 6), B(5, 6, True)],
         "siete sextos, ocho de otra pinta o cinco limpios de cualquier pinta"),
        (B(3, 5, True), [B(4, 1, True)], "cuatro ases"),
        # a one-die round with the face fixed
        (B(2, 5), [B(3, 5)], "tres quinas"),
        # nothing else to compare with
        (None, [B(1, 2), B(1, 3), B(1, 4), B(1, 5), B(1, 6)], "una de cualquier pinta"),
    ],
)
def test_minimum_is_said_the_way_people_say_it(standing, minimums, said):
    assert Speaker(PROMPTS).minimum(standing, minimums) == said


def test_dialects_name_faces():
    assert Speaker(PROMPTS, "chile").bid(2, 6) == "dos sextos"
    assert Speaker(PROMPTS, "peru").bid(2, 6) == "dos senas"
    assert Speaker(PROMPTS, "peru").bid(1, 2) == "un don"
    assert Speaker(PROMPTS, "chile", {2: "pato"}).bid(3, 2) == "tres patos"
    assert Speaker(PROMPTS).face_is_feminine(5) and not Speaker(PROMPTS).face_is_feminine(3)
