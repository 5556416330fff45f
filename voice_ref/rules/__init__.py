"""The rules of Dudo / Cacho: pure Python, no I/O, no speech."""

from voice_ref.rules.bid import Bid
from voice_ref.rules.counting import count_logp, count_matching, plausible_count
from voice_ref.rules.errors import (
    BadAnswer,
    CannotChallenge,
    IllegalBid,
    IllegalMove,
    NotAwaited,
    NotYourTurn,
    Reason,
)
from voice_ref.rules.faces import Face
from voice_ref.rules.game import (
    Awaiting,
    Challenge,
    ChallengeKind,
    Game,
    Outcome,
    RoundType,
    answers,
)
from voice_ref.rules.hands import HandKind, classify_pass_hand, is_valid_pass_hand
from voice_ref.rules.moves import (
    Calzo,
    ChooseDirection,
    ChooseModality,
    ChooseStarter,
    Direction,
    Dudo,
    Modality,
    Move,
    ObligarAnswer,
    Paso,
    PassCheck,
    Raise,
    RevealCount,
)
from voice_ref.rules.variants import PRESETS, ConfigError, RuleSet, make_rules

__all__ = [
    "PRESETS",
    "Awaiting",
    "BadAnswer",
    "Bid",
    "Calzo",
    "CannotChallenge",
    "Challenge",
    "ChallengeKind",
    "ChooseDirection",
    "ChooseModality",
    "ChooseStarter",
    "ConfigError",
    "Direction",
    "Dudo",
    "Face",
    "Game",
    "HandKind",
    "IllegalBid",
    "IllegalMove",
    "Modality",
    "Move",
    "NotAwaited",
    "NotYourTurn",
    "ObligarAnswer",
    "Outcome",
    "Paso",
    "PassCheck",
    "Raise",
    "Reason",
    "RoundType",
    "RuleSet",
    "RevealCount",
    "answers",
    "classify_pass_hand",
    "count_logp",
    "count_matching",
    "is_valid_pass_hand",
    "make_rules",
    "plausible_count",
]
