"""What the referee says: templates from prompts/es.toml plus the Spanish glue they need.

The templates hold every sentence; this module only fills them: numbers in words
with the right gender ("una quina", "un as", "veintiún dados"), bids in the
table's dialect, lists ("Ana, Beto y Carla") and the compressed minimum-bid
list a person would say ("cinco sextos, seis de otra pinta o tres ases").
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from voice_ref.language.numbers import number_to_words
from voice_ref.language.vocabulary import dialect_faces, say_bid
from voice_ref.rules.bid import Bid
from voice_ref.rules.faces import Face

DEFAULT_PROMPTS = Path(__file__).resolve().parent.parent / "prompts" / "es.toml"  # in the package


class Prompts:
    """The templates of one language file, addressed as "section.key"."""

    def __init__(self, templates: dict[str, str]) -> None:
        self._templates = templates

    @classmethod
    def load(cls, path: Path | str | None = None) -> Prompts:
        data = tomllib.loads(Path(path or DEFAULT_PROMPTS).read_text(encoding="utf-8"))
        flat: dict[str, str] = {}
        for section, entries in data.items():
            for key, text in entries.items():
                flat[f"{section}.{key}"] = str(text)
        return cls(flat)

    def names(self) -> Iterable[str]:
        return self._templates.keys()

    def template(self, key: str) -> str:
        return self._templates[key]

    def has(self, key: str) -> bool:
        return key in self._templates

    def say(self, key: str, **values: Any) -> str:
        """The filled template; a missing key or placeholder is a programming error."""
        return self._templates[key].format(**values)


def sentence(text: str) -> str:
    """Capitalise the first letter, skipping Spanish opening marks ("¿", "¡")."""
    for i, ch in enumerate(text):
        if ch.isalpha():
            return text[:i] + ch.upper() + text[i + 1 :]
    return text


def join_words(items: Sequence[str], last: str = "y") -> str:
    """ "Ana", "Ana y Beto", "Ana, Beto y Carla"."""
    items = list(items)
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return f"{', '.join(items[:-1])} {last} {items[-1]}"


def number(n: int, *, feminine: bool = False) -> str:
    """A number said before a noun: "un" / "una" / "veintiún" (apocope), never "uno"."""
    return number_to_words(n, feminine=feminine)


def bare_number(n: int) -> str:
    """A number said alone ("Ana, uno"): no apocope."""
    return number_to_words(n, apocope=False)


def dice(n: int) -> str:
    """ "un dado", "cinco dados", "veintiún dados"."""
    return f"{number(n)} {'dado' if n == 1 else 'dados'}"


def lives(n: int) -> str:
    """ "una vida", "seis vidas" (cachito: dice above the cup are set-aside lives)."""
    return f"{number(n, feminine=True)} {'vida' if n == 1 else 'vidas'}"


class Speaker:
    """Bids, faces and minimums said in one table's dialect."""

    def __init__(
        self, prompts: Prompts, dialect: str = "chile", overrides: dict[int, str] | None = None
    ) -> None:
        self.prompts = prompts
        self.dialect = dialect
        self.overrides = dict(overrides or {})
        self._faces = dialect_faces(dialect, self.overrides)

    def bid(self, quantity: int, face: Face | int, clean: bool = False) -> str:
        """ "cinco quinas", "tres quinas limpias"; aces are always limpio: never "ases limpios"."""
        return say_bid(quantity, int(face), clean and int(face) != 1, self.dialect, self.overrides)

    def the_bid(self, bid: Bid) -> str:
        return self.bid(bid.quantity, bid.face, bid.clean)

    def face_singular(self, face: Face | int) -> str:
        return self._faces[int(face)].singular

    def face_plural(self, face: Face | int) -> str:
        return self._faces[int(face)].plural

    def face_is_feminine(self, face: Face | int) -> bool:
        return self._faces[int(face)].feminine

    def minimum(self, standing: Bid | None, minimums: Sequence[Bid]) -> str:
        """Compress the minimum bids the way a person says them.

        Same quantity, next faces -> the next face only ("cinco sextos"); several
        faces at one quantity -> "seis de otra pinta"; aces on their own ("tres ases").
        """
        # Aces stand apart among dirty bids; among clean (limpio) bids they are one more face.
        groups: dict[tuple[int, bool, bool], list[Face]] = {}
        for b in minimums:
            key = (b.quantity, b.clean, b.face.is_ace and not b.clean)
            groups.setdefault(key, []).append(b.face)
        # Same quantity first, then higher quantities, aces last: the order people say them.
        standing_clean = standing is not None and standing.clean
        order = sorted(groups, key=lambda k: (k[1] != standing_clean, k[2], k[1], k[0]))
        parts: list[str] = []
        named: set[bool] = set()  # cleanliness of single faces already named ("cinco sextos")
        for quantity, clean, ace in order:
            faces = sorted(groups[(quantity, clean, ace)])
            same_quantity = standing is not None and quantity == standing.quantity
            if len(faces) == 1 or same_quantity:
                parts.append(self.bid(quantity, faces[0], clean))
                if not faces[0].is_ace:
                    named.add(clean)
                continue
            # "de otra pinta" only after a face was named; else every face is allowed.
            key = "minimum.other_face" if clean in named else "minimum.any_face"
            if clean:
                parts.append(self.prompts.say(key + "_clean", number=number(quantity)))
            else:
                parts.append(self.prompts.say(key, number=number(quantity, feminine=True)))
        return join_words(parts, "o")
