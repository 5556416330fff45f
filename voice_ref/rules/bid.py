"""A bid (canto): "at least `quantity` dice showing `face` on the whole table"."""

from __future__ import annotations

from dataclasses import dataclass

from voice_ref.rules.faces import Face


@dataclass(frozen=True, slots=True)
class Bid:
    """An immutable bid. `clean` (limpio) only exists in the `cachito` preset.

    A bid on aces is always clean in `cachito`; elsewhere `clean` stays False.
    """

    quantity: int
    face: Face
    clean: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.face, Face):
            object.__setattr__(self, "face", Face(self.face))

    def __str__(self) -> str:
        suffix = " limpio" if self.clean else ""
        return f"{self.quantity}x{self.face.name.lower()}{suffix}"
