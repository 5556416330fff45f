"""The game's Spanish words as data: the single source for what the referee says,
what the phrase inventory lists and what the parser understands.

Tables hold *core* phrases (what `PhraseInventory(canonical=True)` lists);
the decorations below them ("yo dudo", "a la izquierda", "Beto, ...", "hay
cinco quinas") are added by the inventory and accepted by the parser.
`{player}` marks where a player's name goes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from voice_ref.language.numbers import number_to_words


@dataclass(frozen=True, slots=True)
class FaceWord:
    """One name of a face, with the gender that numbers and "limpio" agree with."""

    face: int
    singular: str
    plural: str
    feminine: bool

    def noun(self, quantity: int) -> str:
        return self.singular if quantity == 1 else self.plural


# Every face name heard at a table (RULES.md, "Core"); all are always understood.
FACE_WORDS: tuple[FaceWord, ...] = (
    FaceWord(1, "as", "ases", False),
    FaceWord(2, "tonto", "tontos", False),
    FaceWord(2, "don", "dones", False),
    FaceWord(2, "dona", "donas", True),
    FaceWord(2, "pato", "patos", False),
    FaceWord(3, "tren", "trenes", False),
    FaceWord(4, "cuadra", "cuadras", True),
    FaceWord(5, "quina", "quinas", True),
    FaceWord(5, "china", "chinas", True),
    FaceWord(6, "sexto", "sextos", False),
    FaceWord(6, "sena", "senas", True),
    FaceWord(6, "cena", "cenas", True),
    FaceWord(6, "samba", "sambas", True),
)

# The names the referee *says*, per dialect (config `[dialect] name`).
_CHILE = {1: "as", 2: "tonto", 3: "tren", 4: "cuadra", 5: "quina", 6: "sexto"}
_ANDES = {1: "as", 2: "don", 3: "tren", 4: "cuadra", 5: "quina", 6: "sena"}
DIALECTS: dict[str, dict[int, str]] = {
    "chile": _CHILE,
    "peru": _ANDES,
    "bolivia": _ANDES,
    "costa_rica": _ANDES,
}

# "limpio" (clean: no wilds) / "sucio" (dirty: aces wild) after the face, agreeing with it.
CLEAN_WORDS: dict[str, bool] = {
    "limpio": True,
    "limpios": True,
    "limpia": True,
    "limpias": True,
    "sucio": False,
    "sucios": False,
    "sucia": False,
    "sucias": False,
}

# Said before a bid: "hay cinco quinas", "subo a seis trenes".
BID_FILLERS: tuple[str, ...] = (
    "hay",
    "van",
    "son",
    "digo",
    "pongo",
    "canto",
    "subo",
    "subo a",
    "voy con",
    "yo digo",
    "yo pongo",
    "yo canto",
    "yo subo a",
)
# Said before a count: "hay cuatro", "eran dos".
NUMBER_FILLERS: tuple[str, ...] = ("hay", "son", "había", "habían", "eran")
# Said before dictated pass dice: "tenía as, as, quina, sexto, sexto".
HAND_FILLERS: tuple[str, ...] = ("tenía", "tiene", "tengo", "tenías", "tenés")
# Five of a kind as a hand ("todas quinas"); "cinco quinas" would be a bid.
HAND_ALL: tuple[str, ...] = ("todos", "todas")
# Hesitations a recognizer may put first ("eh, dudo"); ignored.
INTERJECTIONS: tuple[str, ...] = (
    "eh",
    "em",
    "ehm",
    "mm",
    "mmm",
    "bueno",
    "pues",
    "ya",
    "ok",
    "okey",
)

# Commands and answers: intent type -> core phrases.
COMMANDS: dict[str, tuple[str, ...]] = {
    "dudo": ("dudo",),
    "calzo": ("calzo",),
    "paso": ("paso",),
    "yes": ("sí", "obligo", "sí obligo"),
    "no": ("no", "no obligo"),
    "repeat": ("repite", "repita", "otra vez", "repítelo"),
    "undo": ("me equivoqué", "corrige", "corrección", "deshacer", "deshaz", "corregir"),
    "new_game": ("nueva partida", "otra partida"),
}
# Commands that also take a leading "yo": "yo dudo", "yo paso".
PRONOUN = "yo"
PRONOUN_COMMANDS: tuple[str, ...] = ("dudo", "calzo", "paso")
POLITE = "por favor"
POLITE_COMMANDS: tuple[str, ...] = ("repeat",)
# Counts that mean zero without a number word.
ZERO_PHRASES: tuple[str, ...] = ("no hay", "no hay ninguno", "no hay ninguna", "nada")

CHOICES: dict[str, tuple[str, ...]] = {
    "abierta": ("abierta",),
    "cerrada": ("cerrada",),
    "izquierda": ("izquierda",),
    "derecha": ("derecha",),
}
DIRECTION_PREFIXES: tuple[str, ...] = ("a la", "para la", "hacia la", "por la")

QUERIES: dict[str, tuple[str, ...]] = {
    "dice": (
        "cuántos dados quedan",
        "cuántos dados hay",
        "cuántos dados hay en la mesa",
        "cuántos dados tengo",
        "cuántos dados tiene cada uno",
        "cuántos dados tiene {player}",
        "cuántos dados le quedan a {player}",
    ),
    "turn": ("de quién es el turno", "a quién le toca", "quién sigue", "quién juega"),
    "minimum": (
        "cuánto hay que cantar",
        "cuál es el mínimo",
        "qué puedo cantar",
        "cuánto tengo que cantar",
        "qué hay que cantar",
    ),
    "bid": ("qué se cantó", "cuál es la apuesta", "qué cantaron", "cuál es el canto"),
}

STARTERS: tuple[str, ...] = (
    "parte {player}",
    "empieza {player}",
    "comienza {player}",
    "sale {player}",
    "{player} parte",
    "{player} empieza",
)

# Joins dictated hand groups: "dos ases y tres sextos".
AND = "y"


def dialect_faces(
    dialect: str = "chile", overrides: Mapping[int, str] | None = None
) -> dict[int, FaceWord]:
    """Face -> the FaceWord the referee says, for a dialect plus per-face overrides."""
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}; choose one of {', '.join(DIALECTS)}")
    names = {**DIALECTS[dialect], **(overrides or {})}
    by_name = {fw.singular: fw for fw in FACE_WORDS}
    out: dict[int, FaceWord] = {}
    for face, name in names.items():
        fw = by_name.get(name)
        if fw is None or fw.face != face:
            known = ", ".join(w.singular for w in FACE_WORDS if w.face == face)
            raise ValueError(f"{name!r} is not a name of face {face}; use one of: {known}")
        out[face] = fw
    return out


def face_name(
    face: int, quantity: int = 1, dialect: str = "chile", overrides: Mapping[int, str] | None = None
) -> str:
    """The face's name in the dialect, singular for 1, plural otherwise ("quina", "quinas")."""
    return dialect_faces(dialect, overrides)[face].noun(quantity)


def clean_word(fw: FaceWord, quantity: int, clean: bool) -> str:
    """ "limpias" / "sucio" agreeing with the face word and the quantity."""
    stem = "limpi" if clean else "suci"
    return stem + ("a" if fw.feminine else "o") + ("" if quantity == 1 else "s")


def say_bid_with(quantity: int, fw: FaceWord, clean: bool = False) -> str:
    """A bid spoken with a given face word: "veintiún trenes", "una quina limpia"."""
    text = f"{number_to_words(quantity, feminine=fw.feminine)} {fw.noun(quantity)}"
    return f"{text} {clean_word(fw, quantity, True)}" if clean else text


def say_bid(
    quantity: int,
    face: int,
    clean: bool = False,
    dialect: str = "chile",
    overrides: Mapping[int, str] | None = None,
) -> str:
    """What the referee says for a bid: "cinco quinas", "un as", "tres quinas limpias"."""
    return say_bid_with(quantity, dialect_faces(dialect, overrides)[face], clean)
