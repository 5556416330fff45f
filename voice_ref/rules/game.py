"""The game state: one object that pushes and pops moves (exact undo), like python-chess's Board.

CONTRACT (written first so the dialogue can be built in parallel; bodies are
filled in by the rules engine work). Public surface used by other layers:

    game = Game(["Ana", "Beto", "Carla"], make_rules("chile"), starter=None, direction=None)
    game.awaiting            -> Awaiting
    game.turn                -> str | None   (who must speak; None when the table answers)
    game.addressed           -> str | None   (who a question is put to: the obligating player, ...)
    game.bid, game.bidder    -> Bid | None, str | None
    game.round_type          -> RoundType
    game.modality            -> Modality | None
    game.direction           -> Direction | None
    game.players             -> tuple[str, ...]  (seat order, clockwise)
    game.dice(name)          -> int  (a cachito player's lives, including set-aside dice)
    game.dice_in_cup(name)   -> int  (what the player rolls: min(dice, start_dice) in cachito)
    game.active_players      -> tuple[str, ...]
    game.dice_on_table       -> int  (sum of dice_in_cup over active players)
    game.passed_this_round   -> frozenset[str]
    game.last_pass_by        -> str | None  (the pass a dudo would doubt now)
    game.winner              -> str | None
    game.challenge           -> Challenge | None  (pending dudo/calzo/pass check)
    game.minimum_bids()      -> tuple[Bid, ...]  (lowest legal bids now, ordered by face)
    game.is_legal(move)      -> bool
    game.check(move)         -> None or raises IllegalMove (subclass) with reason + minimums
    game.push(move)          -> Outcome  (raises IllegalMove and changes nothing if illegal)
    game.pop()               -> Move     (exact undo of the last pushed move)
    game.move_stack          -> tuple[Move, ...]
    game.snapshot()          -> a hashable value; equal snapshots <=> identical states
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from voice_ref.rules.bid import Bid
from voice_ref.rules.moves import Direction, Move


class Awaiting(Enum):
    """What the game waits for next. Values are the protocol's `awaiting` strings."""

    STARTER = "starter"
    DIRECTION = "direction"
    BID = "bid"  # the player on turn: a bid, or dudo / calzo / paso when a bid stands
    COUNT = "count"  # the table: how many matching dice after dudo / calzo
    PASS_CHECK = "pass_check"  # the table: was the doubted pass valid (or the five dice)
    OBLIGAR = "obligar"  # the one-die player: "¿Obligas?" (chile)
    MODALITY = "modality"  # the obligating player: abierta / cerrada
    GAME_OVER = "game_over"


class RoundType(Enum):
    NORMAL = "normal"
    OBLIGAR = "obligar"  # chile obligar and dudo obliga
    PALO_FIJO = "palo_fijo"  # cachito


class ChallengeKind(Enum):
    DUDO = "dudo"
    CALZO = "calzo"
    PASS_DOUBT = "pass_doubt"


@dataclass(frozen=True, slots=True)
class Challenge:
    """A pending dudo / calzo / doubted pass waiting for the table's answer."""

    kind: ChallengeKind
    challenger: str
    bid: Bid  # the standing bid (for PASS_DOUBT: the bid that stood when the pass was made)
    bidder: str  # for PASS_DOUBT: the passer
    wild_aces: bool  # whether aces count for the face when the table counts


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a pushed move did, for the referee to announce. Never needed to rebuild state."""

    move: Move
    challenge: Challenge | None = None  # the challenge this move opened or resolved
    resolved: bool = False  # True when this move resolved a challenge (count / pass check)
    challenge_succeeded: bool | None = None  # dudo right, calzo exact, pass doubt right
    dice_changes: tuple[tuple[str, int], ...] = ()  # (player, delta), e.g. (("Beto", -1),)
    eliminated: tuple[str, ...] = ()
    new_round: bool = False  # a new round begins after this move
    starter: str | None = None  # who opens the new round
    winner: str | None = None
    notes: tuple[str, ...] = field(default=())  # e.g. "calzo_at_cap" (gained nothing)


class Game:
    """See the module docstring for the contract."""

    def __init__(
        self,
        players: list[str] | tuple[str, ...],
        rules,
        *,
        starter: str | None = None,
        direction: Direction | None = None,
    ) -> None:
        raise NotImplementedError
