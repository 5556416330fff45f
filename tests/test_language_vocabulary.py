"""Face names per dialect and the bids the referee says."""

import pytest

from voice_ref.language.vocabulary import (
    DIALECTS,
    FACE_WORDS,
    dialect_faces,
    face_name,
    say_bid,
)


@pytest.mark.parametrize(
    ("quantity", "face", "clean", "dialect", "text"),
    [
        (5, 5, False, "chile", "cinco quinas"),
        (1, 1, False, "chile", "un as"),
        (1, 5, False, "chile", "una quina"),
        (21, 3, False, "chile", "veintiún trenes"),
        (21, 5, False, "chile", "veintiuna quinas"),
        (31, 1, False, "chile", "treinta y un ases"),
        (41, 4, False, "chile", "cuarenta y una cuadras"),
        (3, 5, True, "chile", "tres quinas limpias"),
        (1, 3, True, "chile", "un tren limpio"),
        (2, 2, False, "chile", "dos tontos"),
        (2, 2, False, "peru", "dos dones"),
        (4, 6, False, "chile", "cuatro sextos"),
        (4, 6, False, "bolivia", "cuatro senas"),
        (1, 6, True, "costa_rica", "una sena limpia"),
        (7, 6, True, "peru", "siete senas limpias"),
    ],
)
def test_say_bid(quantity, face, clean, dialect, text):
    assert say_bid(quantity, face, clean, dialect) == text


def test_say_bid_with_overrides():
    assert say_bid(3, 2, overrides={2: "pato"}) == "tres patos"
    assert say_bid(1, 6, overrides={6: "cena"}) == "una cena"


def test_face_name_singular_and_plural():
    assert face_name(1) == "as"
    assert face_name(1, 2) == "ases"
    assert face_name(2, 3, dialect="peru") == "dones"


def test_every_dialect_names_all_six_faces_with_known_words():
    for dialect in DIALECTS:
        faces = dialect_faces(dialect)
        assert sorted(faces) == [1, 2, 3, 4, 5, 6]
        assert all(fw in FACE_WORDS and fw.face == face for face, fw in faces.items())


def test_face_words_cover_every_face_and_words_are_unique():
    assert {fw.face for fw in FACE_WORDS} == {1, 2, 3, 4, 5, 6}
    words = [w for fw in FACE_WORDS for w in (fw.singular, fw.plural)]
    assert len(words) == len(set(words))


def test_unknown_dialect_is_explained():
    with pytest.raises(ValueError, match="unknown dialect 'mexico'"):
        dialect_faces("mexico")


def test_override_with_a_name_of_another_face_is_explained():
    with pytest.raises(ValueError, match="not a name of face 2"):
        dialect_faces("chile", {2: "quina"})
