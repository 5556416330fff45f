"""The rules of Dudo / Cacho: pure Python, no I/O, no speech."""

from voice_ref.rules.bid import Bid
from voice_ref.rules.errors import IllegalMove, Reason
from voice_ref.rules.faces import Face
from voice_ref.rules.moves import Direction, Modality
from voice_ref.rules.variants import PRESETS, ConfigError, RuleSet, make_rules

__all__ = [
    "PRESETS",
    "Bid",
    "ConfigError",
    "Direction",
    "Face",
    "IllegalMove",
    "Modality",
    "Reason",
    "RuleSet",
    "make_rules",
]
