"""The game's Spanish words as data: the single source for what the referee says,
what the phrase inventory lists and what the parser understands.

Word tables (faces, fillers, numbers) and the sentence rules (`TEMPLATES`, in
hassil's template syntax) are data here; `grammar.py` turns them into the one
rule tree that the phrase inventory samples and the parser matches.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from voice_ref.language.expecting import Expecting
from voice_ref.language.numbers import number_to_words
from voice_ref.language.text import tokenize


@dataclass(frozen=True, slots=True)
class FaceWord:
    """One name of a face, with the gender that numbers and "limpio" agree with."""

    face: int
    singular: str
    plural: str
    feminine: bool
    # In the rule book's list (RULES.md, "Core"). A name only a seed uses is understood
    # but not offered to the recognizers ("donas" took "cuadras" and "dudo" from them),
    # unless the table's config makes it the referee's own name for the face.
    listed: bool = True

    def noun(self, quantity: int) -> str:
        return self.singular if quantity == 1 else self.plural


# Every face name heard at a table (RULES.md, "Core", and seed 000's "donas"); all are
# always understood.
FACE_WORDS: tuple[FaceWord, ...] = (
    FaceWord(1, "as", "ases", False),
    FaceWord(2, "tonto", "tontos", False),
    FaceWord(2, "don", "dones", False),
    FaceWord(2, "dona", "donas", True, listed=False),
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

# Faces said as their number, common in Peru, Bolivia, Costa Rica and at many Chilean
# tables (RULES.md, "Core"): "cuatro cincos" = four quinas, "tres unos" = three aces.
# The plural only follows a plural count; the singular only follows "un" ("un seis").
NUMERAL_FACES: tuple[FaceWord, ...] = (
    FaceWord(1, "uno", "unos", False),
    FaceWord(2, "dos", "doses", False),
    FaceWord(3, "tres", "treses", False),
    FaceWord(4, "cuatro", "cuatros", False),
    FaceWord(5, "cinco", "cincos", False),
    FaceWord(6, "seis", "seises", False),
)

# Every face as spelled, folded ("cuadras", "tren"): the words that make a face heard.
FACE_SPELLINGS: frozenset[str] = frozenset(
    word for fw in FACE_WORDS for text in (fw.singular, fw.plural) for word in tokenize(text)
)
# ... and as a number, plural only ("cincos"): "dos" alone is the count more often.
NUMERAL_FACE_SPELLINGS: frozenset[str] = frozenset(
    word for fw in NUMERAL_FACES for word in tokenize(fw.plural)
)

# Dialects whose recognizer lists include faces said as numbers (all dialects understand them).
NUMERAL_FACE_DIALECTS: tuple[str, ...] = ("peru", "bolivia", "costa_rica")

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
HAND_ALL: tuple[str, str] = ("todos", "todas")
# Joins dictated hand groups: "dos ases y tres sextos".
AND = "y"
DIRECTION_PREFIXES: tuple[str, ...] = ("a la", "para la", "hacia la", "por la")
# Wrapped around calls and bids ("no te creo, dudo", "calzo nomás", "a ver... seis tontos").
BID_LEADS: tuple[str, ...] = ("a ver",)
ONLY: tuple[str, ...] = ("nomás", "no más")
DOUBT_LEADS: tuple[str, ...] = ("no te creo", "mentira")
CALL_ENDS: tuple[str, ...] = ("yo", "nomás", "no más")
# Before a bid that corrects the one just heard: "no, dije cinco quinas", "no, cinco quinas".
CORRECTION_LEADS: tuple[str, ...] = ("no", "no dije", "no era", "dije")
# Counts that mean zero without a number word.
ZERO_PHRASES: tuple[str, ...] = ("no hay", "no hay ninguno", "no hay ninguna", "nada")
# Hesitations a recognizer may write anywhere ("eh, dudo"); skipped before matching
# (hassil's skip words), so they are neither sampled nor part of any rule.
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
# Their words, as the parser skips them anywhere.
INTERJECTION_WORDS: frozenset[str] = frozenset(
    word for text in INTERJECTIONS for word in tokenize(text)
)
# ... and how Whisper writes a hesitation it hears: "eh" as "E", "ehm" as "En" or "Em", and
# "bueno" as "Nuevo" or "Gueno" (the commonest spellings in simulated games of the tuning
# voice es+m1, BENCHMARKS.md sessions 42 and 43); skipped only where a line or a count
# begins ("eh, uno, dos"). "Nueva partida" begins with another word.
HESITATIONS: frozenset[str] = INTERJECTION_WORDS | {"e", "en", "em", "nuevo", "gueno"}
# ... of which the sounds, no word: a transcript of only these heard a hesitation alone
# ("eh" | "cuatro" cut by a pause: the "eh" written "E", "En" or "Em").
HESITATION_SOUNDS: frozenset[str] = frozenset({"e", "eh", "em", "ehm", "en", "mm", "mmm"})

# The sentence rules: (intent key, contexts where the phrases are listened for, template).
# hassil syntax: [optional], (a | b), {list} or {list:slot}, <expansion>. The lists are
# built in `grammar.spanish_grammar` from the tables above and the players' names. The
# key names the intent (`grammar.build_intent`); rules are tried in this order.
_T, _C, _Y, _CH, _P, _S = (
    Expecting.TURN,
    Expecting.COUNT,
    Expecting.YES_NO,
    Expecting.CHOICE,
    Expecting.PASS_CHECK,
    Expecting.STARTER,
)
EXPANSIONS: dict[str, str] = {
    "by": "[{player}]",  # who speaks: "Beto, cinco quinas"
    "bid": "{quantity} {face} {clean}",  # {clean} may be silent
}
TEMPLATES: tuple[tuple[str, tuple[Expecting, ...], str], ...] = (
    ("bid", (_T,), "<by> [{bid_lead}] [{bid_filler}] <bid> [{only}]"),
    ("bid", (_T,), "<by> un {numeral:face}"),  # "un seis": one die, face said as a number
    ("correction", (_T,), "<by> {correction_lead} <bid>"),  # "no, dije cinco quinas"
    ("dudo", (_T,), "<by> [{doubt_lead}] [yo] dudo [{call_end} | dudo]"),
    ("calzo", (_T,), "<by> [yo] calzo [{call_end}]"),
    ("paso", (_T,), "<by> [yo] paso [{call_end}]"),
    ("repeat", (_T,), "<by> (repite | repita | repítelo | otra vez) [por favor]"),
    ("repeat", (_T,), "<by> (me repites | me lo repites) [por favor]"),
    (  # heard at every question too: a misheard count can be undone at the next one
        "undo",
        (_T, _C, _Y, _CH, _P, _S),
        "<by> [perdón] (me equivoqué | corrige | corrección | deshacer | deshaz | corregir)",
    ),
    ("new_game", (_T,), "(nueva | otra) partida"),
    ("yes", (_Y, _P), "<by> (sí | obligo | sí obligo)"),
    ("no", (_Y, _P), "<by> (no | no obligo)"),
    ("number", (_C,), "[{number_filler}] {count}"),
    ("number", (_C,), "{zero:count}"),  # "no hay", "nada"
    ("choice:abierta", (_CH,), "abierta"),
    ("choice:cerrada", (_CH,), "cerrada"),
    ("choice:izquierda", (_CH,), "[{direction_prefix}] izquierda"),
    ("choice:derecha", (_CH,), "[{direction_prefix}] derecha"),
    ("query:dice", (_T,), "cuántos dados (quedan | hay [en la mesa] | tengo | tiene cada uno)"),
    ("query:dice", (_T,), "cuántos dados (tiene {player} | le quedan a {player})"),
    ("query:turn", (_T,), "de quién es el turno"),
    ("query:turn", (_T,), "a quién le toca"),
    ("query:turn", (_T,), "quién (sigue | juega)"),
    ("query:turn", (_T,), "quién va"),
    ("query:minimum", (_T,), "cuánto (hay | tengo) que cantar"),
    ("query:minimum", (_T,), "cuál es el mínimo"),
    ("query:minimum", (_T,), "qué (puedo | hay que) cantar"),
    ("query:bid", (_T,), "qué (se cantó | cantaron)"),
    ("query:bid", (_T,), "cuál es (la apuesta | el canto)"),
    ("starter", (_S,), "(parte | empieza | comienza | sale) {player}"),
    ("starter", (_S,), "{player} (parte | empieza)"),
    ("none", (_T, _S), "{player}"),  # a name alone
    ("hand", (_P,), "[{hand_filler}] {hand}"),
    # the starter roll: "saqué un cinco", "tengo sexto"
    ("bid", (_S,), "<by> (saqué | me salió | salió | tengo | tiré) {roll:face}"),
)
# Rules whose phrases count as a decoration (not in the recognizers' core lists): they
# are understood, but offering them to Whisper in every turn cost more than they bring
# (with "quién va" among the core phrases, an espeak "dudo" was heard as "quién va").
UNCOMMON_TEMPLATES: frozenset[str] = frozenset(
    {
        "quién va",
        "<by> (me repites | me lo repites) [por favor]",
        "<by> (saqué | me salió | salió | tengo | tiré) {roll:face}",
    }
)


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
