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
    answers(awaiting)        -> tuple[type[Move], ...]  (the moves that answer that question)

Also provided (additions to the first contract):

    game.rules               -> RuleSet
    game.starter             -> str | None   (who opened / opens the current round)
    game.round_number        -> int          (1 for the first round)
    game.obligar_used        -> frozenset[str] (had their obligar / obliga chance)
    game.original_dice       -> int          (players x start_dice: the calzo thresholds)
    game.legal_moves()       -> tuple[Move, ...] (every legal non-bid move + the minimum bids)
    game.pop() on an empty stack raises IndexError
    Game.replay(players, rules, moves, starter=..., direction=...) -> Game

How it works: the whole state is one frozen `_State` value. A move is applied by a
pure function that returns the next state (or raises without touching anything);
`push` keeps the previous state on a stack, so `pop` is an exact undo and
`snapshot()` is simply the current state. Decisions on cases RULES.md leaves
open are listed in docs/RULES_DECISIONS.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum

from voice_ref.rules.bid import Bid
from voice_ref.rules.errors import (
    BadAnswer,
    CannotChallenge,
    IllegalBid,
    IllegalMove,
    NotAwaited,
    NotYourTurn,
    Reason,
)
from voice_ref.rules.faces import ACE
from voice_ref.rules.hands import PASS_HAND_SIZE, is_valid_pass_hand
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
from voice_ref.rules.raising import BidContext, minimum_bids, normalize, refusal
from voice_ref.rules.variants import (
    CalzoReward,
    CalzoRule,
    ConfigError,
    DirectionPolicy,
    OneDieRound,
    RuleSet,
)


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
    round_type: RoundType | None = None  # the type of the round that begins (when new_round)


_ANSWERS: dict[Awaiting, tuple[type[Move], ...]] = {
    Awaiting.STARTER: (ChooseStarter,),
    Awaiting.DIRECTION: (ChooseDirection,),
    Awaiting.BID: (Raise, Dudo, Calzo, Paso),
    Awaiting.COUNT: (RevealCount,),
    Awaiting.PASS_CHECK: (PassCheck,),
    Awaiting.OBLIGAR: (ObligarAnswer,),
    Awaiting.MODALITY: (ChooseModality,),
    Awaiting.GAME_OVER: (),
}


def answers(awaiting: Awaiting) -> tuple[type[Move], ...]:
    """The move types that answer what the game waits for (RULES.md fine point 22)."""
    return _ANSWERS[awaiting]


# Questions put to one player; the others (count, pass check, starter) go to the whole table.
_ADDRESSED = frozenset({Awaiting.DIRECTION, Awaiting.BID, Awaiting.OBLIGAR, Awaiting.MODALITY})


@dataclass(frozen=True, slots=True)
class _State:
    """Everything that defines a position. Frozen and hashable: it is the snapshot."""

    players: tuple[str, ...]
    dice: tuple[int, ...]  # per seat; a cachito player's lives (set-aside dice included)
    direction: Direction | None = None
    starter: str | None = None  # opener of the current round; None until chosen
    questions: tuple[Awaiting, ...] = ()  # still to ask the opener before the opening bid
    turn: str | None = None  # who must speak (bidding, or answering the opener's questions)
    bid: Bid | None = None
    bidder: str | None = None
    passed: frozenset[str] = frozenset()
    last_pass_by: str | None = None  # set only while the last action of the round was a pass
    round_type: RoundType = RoundType.NORMAL
    modality: Modality | None = None
    challenge: Challenge | None = None
    obligar_used: frozenset[str] = frozenset()
    winner: str | None = None
    round_number: int = 1


class Game:
    """A game of Dudo / Cacho under one `RuleSet`. See the module docstring for the contract."""

    def __init__(
        self,
        players: list[str] | tuple[str, ...],
        rules: RuleSet,
        *,
        starter: str | None = None,
        direction: Direction | None = None,
        dice: Mapping[str, int] | None = None,
    ) -> None:
        """`dice` sets some players' starting dice (default start_dice): a position to test
        or to resume from. Calzo thresholds still use players x start_dice."""
        players = tuple(players)
        if len(players) < 2:
            raise ConfigError("A game needs at least two players.")
        if any(not isinstance(p, str) or not p.strip() for p in players):
            raise ConfigError("Every player needs a name.")
        if len(set(players)) != len(players):
            raise ConfigError("Two players have the same name; give each player a different name.")
        if rules.direction is DirectionPolicy.CLOCKWISE:
            if direction not in (None, Direction.LEFT):
                raise ConfigError(
                    f"The '{rules.name}' rules always play clockwise (a la izquierda)."
                )
            direction = Direction.LEFT
        if starter is not None and starter not in players:
            raise ConfigError(f"The starter '{starter}' is not one of the players.")
        self.rules = rules
        self._stack: list[tuple[Move, _State]] = []
        counts = dict.fromkeys(players, rules.start_dice) | dict(dice or {})
        if set(counts) != set(players) or any(
            isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in counts.values()
        ):
            raise ConfigError("Starting dice must be whole numbers >= 0 for known players.")
        if sum(1 for n in counts.values() if n > 0) < 2:
            raise ConfigError("At least two players need dice to play.")
        if starter is not None and counts[starter] == 0:
            raise ConfigError(f"The starter '{starter}' has no dice.")
        state = _State(players=players, dice=tuple(counts[p] for p in players), direction=direction)
        if starter is not None:
            state = self._open_round(state, starter, first=True, reached_one_die=False)
        self._state = state

    @classmethod
    def replay(
        cls,
        players: list[str] | tuple[str, ...],
        rules: RuleSet,
        moves: Iterable[Move],
        *,
        starter: str | None = None,
        direction: Direction | None = None,
        dice: Mapping[str, int] | None = None,
    ) -> Game:
        """Rebuild a game from its moves (the game log); raises IllegalMove at the first bad one."""
        game = cls(players, rules, starter=starter, direction=direction, dice=dice)
        for move in moves:
            game.push(move)
        return game

    def __repr__(self) -> str:
        s = self._state
        return (
            f"<Game {self.rules.name} awaiting={self.awaiting.value} turn={self.turn} "
            f"bid={s.bid} dice={dict(zip(s.players, s.dice, strict=True))}>"
        )

    # ---- state queries -------------------------------------------------------------------

    @property
    def awaiting(self) -> Awaiting:
        return _awaiting(self._state)

    @property
    def turn(self) -> str | None:
        """Who must speak now; None when the whole table answers (or the game is over)."""
        return self._state.turn if self.awaiting in _ADDRESSED else None

    @property
    def addressed(self) -> str | None:
        """Who the pending question is put to (the bidder on turn, the obligating player...)."""
        return self.turn

    @property
    def players(self) -> tuple[str, ...]:
        return self._state.players

    @property
    def bid(self) -> Bid | None:
        return self._state.bid

    @property
    def bidder(self) -> str | None:
        return self._state.bidder

    @property
    def starter(self) -> str | None:
        return self._state.starter

    @property
    def round_number(self) -> int:
        return self._state.round_number

    @property
    def round_type(self) -> RoundType:
        return self._state.round_type

    @property
    def modality(self) -> Modality | None:
        return self._state.modality

    @property
    def direction(self) -> Direction | None:
        return self._state.direction

    @property
    def passed_this_round(self) -> frozenset[str]:
        return self._state.passed

    @property
    def last_pass_by(self) -> str | None:
        return self._state.last_pass_by

    @property
    def obligar_used(self) -> frozenset[str]:
        return self._state.obligar_used

    @property
    def winner(self) -> str | None:
        return self._state.winner

    @property
    def challenge(self) -> Challenge | None:
        return self._state.challenge

    @property
    def move_stack(self) -> tuple[Move, ...]:
        return tuple(move for move, _ in self._stack)

    @property
    def original_dice(self) -> int:
        """Dice on the table at the start of the game: the calzo thresholds use it."""
        return len(self._state.players) * self.rules.start_dice

    def dice(self, player: str) -> int:
        """The player's dice (in `cachito`: lives, set-aside dice included)."""
        return self._state.dice[self._seat(player)]

    def dice_in_cup(self, player: str) -> int:
        """The dice the player actually rolls (at most start_dice when extra lives are kept)."""
        return _in_cup(self.rules, self.dice(player))

    @property
    def active_players(self) -> tuple[str, ...]:
        return _active(self._state)

    @property
    def dice_on_table(self) -> int:
        return _table(self.rules, self._state)

    def snapshot(self) -> _State:
        """A hashable value; two snapshots are equal exactly when the states are identical."""
        return self._state

    def aces_count_for(self, bid: Bid) -> bool:
        """Whether aces would count for `bid` if the table counted now (not in a one-die
        round, nor for a limpio bid or a bid on aces)."""
        return _aces_count_for(self._state.round_type, bid)

    def minimum_bids(self) -> tuple[Bid, ...]:
        """The lowest legal bid of each kind for the player on turn; () when no bid is awaited."""
        s = self._state
        if _awaiting(s) is not Awaiting.BID:
            return ()
        return minimum_bids(s.bid, self._bid_context(s, s.turn))

    # ---- moves ---------------------------------------------------------------------------

    def check(self, move: Move) -> None:
        """Raise the IllegalMove `push(move)` would raise; otherwise do nothing."""
        self._apply(self._state, move)

    def is_legal(self, move: Move) -> bool:
        try:
            self._apply(self._state, move)
        except IllegalMove:
            return False
        return True

    def push(self, move: Move) -> Outcome:
        """Play `move`. Illegal moves raise IllegalMove and leave the game exactly as it was."""
        state, outcome = self._apply(self._state, move)
        self._stack.append((move, self._state))
        self._state = state
        return outcome

    def pop(self) -> Move:
        """Undo the last pushed move exactly and return it (IndexError when nothing to undo)."""
        move, previous = self._stack.pop()
        self._state = previous
        return move

    def legal_moves(self) -> tuple[Move, ...]:
        """A finite list of legal moves now: every legal non-bid move plus the minimum bids.

        Higher bids are legal too (a bid above the table is legal), so they cannot all be
        listed; the minimums are the useful ones to offer or to test with.
        """
        s = self._state
        aw = _awaiting(s)
        candidates: list[Move] = []
        if aw is Awaiting.STARTER:
            candidates = [ChooseStarter(p) for p in s.players]
        elif aw is Awaiting.DIRECTION:
            candidates = [ChooseDirection(d) for d in Direction]
        elif aw is Awaiting.OBLIGAR:
            candidates = [ObligarAnswer(True), ObligarAnswer(False)]
        elif aw is Awaiting.MODALITY:
            candidates = [ChooseModality(m) for m in Modality]
        elif aw is Awaiting.COUNT:
            candidates = [RevealCount(n) for n in range(_table(self.rules, s) + 1)]
        elif aw is Awaiting.PASS_CHECK:
            candidates = [PassCheck(valid=True), PassCheck(valid=False)]
        elif aw is Awaiting.BID:
            candidates = [Raise(b) for b in self.minimum_bids()]
            candidates += [Dudo(), Calzo(), Paso()]
            if self.rules.cross_dudo:
                candidates += [Dudo(by=p) for p in _active(s) if p != s.turn]
        return tuple(m for m in candidates if self.is_legal(m))

    # ---- the rules -----------------------------------------------------------------------

    def _apply(self, s: _State, move: Move) -> tuple[_State, Outcome]:
        """The state after `move`, and what happened; raises IllegalMove (s is never changed)."""
        aw = _awaiting(s)
        if aw is Awaiting.GAME_OVER:
            raise NotAwaited(Reason.GAME_OVER, winner=s.winner)
        if move.by is not None:
            if move.by not in s.players:
                raise NotYourTurn(Reason.UNKNOWN_PLAYER, player=move.by)
            if s.dice[s.players.index(move.by)] == 0:
                raise NotYourTurn(Reason.ELIMINATED_PLAYER, player=move.by)
        if not isinstance(move, _ANSWERS[aw]):
            reason = (
                Reason.DIRECTION_NOT_AWAITED
                if isinstance(move, ChooseDirection)
                else Reason.NOT_AWAITED
            )
            raise NotAwaited(reason, awaiting=aw.value)
        cross = self.rules.cross_dudo and isinstance(move, Dudo)
        if aw in _ADDRESSED and move.by not in (None, s.turn) and not cross:
            raise NotYourTurn(Reason.NOT_YOUR_TURN, expected=s.turn)

        match move:
            case ChooseStarter(player=player):
                if player not in _active(s):
                    raise BadAnswer(Reason.INVALID_STARTER, player=player)
                state = self._open_round(s, player, first=True, reached_one_die=False)
                return state, Outcome(
                    move, new_round=True, starter=player, round_type=state.round_type
                )
            case ChooseDirection(direction=direction):
                return replace(s, direction=direction, questions=s.questions[1:]), Outcome(move)
            case ObligarAnswer(obligate=obligate):
                used = s.obligar_used | {s.turn}
                if obligate:
                    state = replace(
                        s,
                        obligar_used=used,
                        round_type=RoundType.OBLIGAR,
                        questions=(Awaiting.MODALITY,) + s.questions[1:],
                    )
                    return state, Outcome(move, round_type=RoundType.OBLIGAR)
                state = replace(s, obligar_used=used, questions=s.questions[1:])
                return state, Outcome(move)
            case ChooseModality(modality=modality):
                return replace(s, modality=modality, questions=s.questions[1:]), Outcome(move)
            case Raise(bid=bid):
                return self._raise(s, move, bid)
            case Dudo():
                return self._dudo(s, move, move.by or s.turn)
            case Calzo():
                return self._calzo(s, move)
            case Paso():
                return self._paso(s, move)
            case RevealCount(count=count):
                return self._reveal(s, move, count)
            case PassCheck():
                return self._pass_check(s, move)
        raise NotAwaited(Reason.NOT_AWAITED, awaiting=aw.value)  # pragma: no cover

    def _open_round(self, s: _State, starter: str, *, first: bool, reached_one_die: bool) -> _State:
        """A fresh round opened by `starter`, with the questions to ask before its first bid."""
        rules = self.rules
        questions: list[Awaiting] = []
        if rules.direction is DirectionPolicy.EACH_ROUND_OPENER:
            if not (first and s.direction is not None):
                questions.append(Awaiting.DIRECTION)
        elif s.direction is None:
            questions.append(Awaiting.DIRECTION)
        round_type = RoundType.NORMAL
        used = s.obligar_used
        if reached_one_die:
            if rules.one_die_round is OneDieRound.OBLIGAR and starter not in used:
                questions.append(Awaiting.OBLIGAR)
            elif rules.one_die_round is OneDieRound.OBLIGA and starter not in used:
                round_type = RoundType.OBLIGAR
                used = used | {starter}
                questions.append(Awaiting.MODALITY)
            elif rules.one_die_round is OneDieRound.PALO_FIJO:
                round_type = RoundType.PALO_FIJO
        return replace(
            s,
            starter=starter,
            turn=starter,
            questions=tuple(questions),
            bid=None,
            bidder=None,
            passed=frozenset(),
            last_pass_by=None,
            round_type=round_type,
            modality=None,
            challenge=None,
            obligar_used=used,
            round_number=s.round_number if first else s.round_number + 1,
        )

    def _bid_context(self, s: _State, player: str | None) -> BidContext:
        one_die = player is not None and s.dice[s.players.index(player)] == 1
        return BidContext(
            rules=self.rules,
            one_die_round=s.round_type is not RoundType.NORMAL,
            palo_fijo=s.round_type is RoundType.PALO_FIJO,
            bidder_has_one_die=one_die,
        )

    def _raise(self, s: _State, move: Move, said: Bid) -> tuple[_State, Outcome]:
        ctx = self._bid_context(s, s.turn)
        bid = normalize(said, ctx)
        reason = refusal(s.bid, bid, ctx)
        if reason is not None:
            raise IllegalBid(reason, minimum_bids=minimum_bids(s.bid, ctx), bid=bid, previous=s.bid)
        state = replace(s, bid=bid, bidder=s.turn, turn=_next_active(s, s.turn), last_pass_by=None)
        return state, Outcome(move)

    def _must_raise(self, s: _State) -> None:
        """Common preconditions of dudo / calzo / paso by the player on turn."""
        if s.bid is None:
            raise CannotChallenge(Reason.NO_BID_TO_CHALLENGE)
        if s.turn == s.bidder:
            # Everyone else passed and the turn came back to the bidder.
            raise CannotChallenge(Reason.MUST_RAISE, minimum_bids=self._minimums(s))

    def _minimums(self, s: _State) -> tuple[Bid, ...]:
        return minimum_bids(s.bid, self._bid_context(s, s.turn))

    def _dudo(self, s: _State, move: Move, challenger: str) -> tuple[_State, Outcome]:
        cross = challenger != s.turn
        if s.bid is None:
            raise CannotChallenge(Reason.NO_BID_TO_CHALLENGE)
        if cross and challenger == s.bidder:
            raise NotYourTurn(Reason.NOT_YOUR_TURN, expected=s.turn)
        if not cross:
            self._must_raise(s)
        if s.last_pass_by is not None and not cross:
            kind, target = ChallengeKind.PASS_DOUBT, s.last_pass_by
        else:
            kind, target = ChallengeKind.DUDO, s.bidder
        challenge = Challenge(kind, challenger, s.bid, target, _wild_aces(s))
        return replace(s, challenge=challenge), Outcome(move, challenge=challenge)

    def _calzo(self, s: _State, move: Move) -> tuple[_State, Outcome]:
        self._must_raise(s)
        why = self._calzo_refusal(s, s.turn)
        if why is not None:
            raise CannotChallenge(Reason.CALZO_NOT_ALLOWED, why=why)
        challenge = Challenge(ChallengeKind.CALZO, s.turn, s.bid, s.bidder, _wild_aces(s))
        return replace(s, challenge=challenge), Outcome(move, challenge=challenge)

    def _calzo_refusal(self, s: _State, caller: str) -> str | None:
        """None when `caller` may calzo now, else why not: "table", "dice" or "never"."""
        rule = self.rules.calzo
        table2 = 2 * _table(self.rules, s)
        dice = s.dice[s.players.index(caller)]
        if rule is CalzoRule.ALWAYS:
            return None
        if rule is CalzoRule.HALF_TABLE_OR_ONE_DIE:
            return None if table2 >= self.original_dice or dice == 1 else "table"
        if rule is CalzoRule.MORE_THAN_HALF_TABLE:
            return None if table2 > self.original_dice else "table"
        if rule is CalzoRule.FEWER_THAN_START_DICE:
            return None if dice < self.rules.start_dice else "dice"
        return "never"

    def _paso(self, s: _State, move: Move) -> tuple[_State, Outcome]:
        player = s.turn
        if not self.rules.paso:
            raise CannotChallenge(Reason.PASO_NOT_ALLOWED, why="preset")
        self._must_raise(s)
        if s.round_type is RoundType.PALO_FIJO:
            raise CannotChallenge(Reason.PASO_NOT_ALLOWED, why="palo_fijo")
        if _in_cup(self.rules, s.dice[s.players.index(player)]) != PASS_HAND_SIZE:
            raise CannotChallenge(Reason.PASO_NOT_ALLOWED, why="dice")
        if player in s.passed:
            raise CannotChallenge(Reason.PASO_NOT_ALLOWED, why="already")
        if self.rules.pass_not_after_pass and s.last_pass_by is not None:
            raise CannotChallenge(Reason.PASO_NOT_ALLOWED, why="after_pass")
        state = replace(
            s, passed=s.passed | {player}, last_pass_by=player, turn=_next_active(s, player)
        )
        return state, Outcome(move)

    def _reveal(self, s: _State, move: Move, count: int) -> tuple[_State, Outcome]:
        maximum = _table(self.rules, s)
        if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= maximum:
            raise BadAnswer(Reason.COUNT_OUT_OF_RANGE, count=count, maximum=maximum)
        ch = s.challenge
        assert ch is not None
        q = ch.bid.quantity
        if ch.kind is ChallengeKind.CALZO:
            exact = count == q
            return self._settle(s, move, ch, ch.challenger, 1 if exact else -1, exact)
        bid_wrong = count < q
        loser = ch.bidder if bid_wrong else ch.challenger
        loss = max(1, abs(count - q)) if self.rules.lose_difference else 1
        return self._settle(s, move, ch, loser, -loss, bid_wrong)

    def _pass_check(self, s: _State, move: PassCheck) -> tuple[_State, Outcome]:
        valid = move.valid
        if move.hand is not None:
            try:
                judged = is_valid_pass_hand(move.hand, self.rules.pass_hands)
            except ValueError:
                raise BadAnswer(Reason.BAD_PASS_HAND, hand=move.hand) from None
            if valid is not None and valid != judged:
                raise BadAnswer(Reason.BAD_PASS_HAND, hand=move.hand, valid=valid)
            valid = judged
        if valid is None:
            raise BadAnswer(Reason.BAD_PASS_HAND, hand=None)
        ch = s.challenge
        assert ch is not None
        loser = ch.challenger if valid else ch.bidder
        return self._settle(s, move, ch, loser, -1, not valid)

    def _settle(
        self,
        s: _State,
        move: Move,
        challenge: Challenge,
        player: str,
        delta: int,
        succeeded: bool,
    ) -> tuple[_State, Outcome]:
        """Apply the one dice change a challenge causes, then end the round (or the game)."""
        seat = s.players.index(player)
        before = s.dice[seat]
        after = max(0, before + delta)
        if delta > 0 and self.rules.calzo_reward is CalzoReward.CAPPED:
            after = min(after, max(before, self.rules.start_dice))
        notes = ("calzo_at_cap",) if delta > 0 and after == before else ()
        dice = s.dice[:seat] + (after,) + s.dice[seat + 1 :]
        changed = replace(s, dice=dice, challenge=None)
        result = dict(
            move=move,
            challenge=challenge,
            resolved=True,
            challenge_succeeded=succeeded,
            dice_changes=((player, after - before),) if after != before else (),
            eliminated=(player,) if after == 0 else (),
            notes=notes,
        )
        active = _active(changed)
        if len(active) == 1:
            state = replace(
                changed,
                winner=active[0],
                turn=None,
                questions=(),
                bid=None,
                bidder=None,
                passed=frozenset(),
                last_pass_by=None,
            )
            return state, Outcome(**result, winner=active[0])
        starter = player if after > 0 else _next_active(changed, player)
        reached_one = starter == player and after == 1 and before > 1
        state = self._open_round(changed, starter, first=False, reached_one_die=reached_one)
        return state, Outcome(
            **result, new_round=True, starter=starter, round_type=state.round_type
        )

    def _seat(self, player: str) -> int:
        try:
            return self._state.players.index(player)
        except ValueError:
            raise ValueError(f"'{player}' is not one of the players") from None


def _awaiting(s: _State) -> Awaiting:
    if s.winner is not None:
        return Awaiting.GAME_OVER
    if s.challenge is not None:
        if s.challenge.kind is ChallengeKind.PASS_DOUBT:
            return Awaiting.PASS_CHECK
        return Awaiting.COUNT
    if s.starter is None:
        return Awaiting.STARTER
    if s.questions:
        return s.questions[0]
    return Awaiting.BID


def _in_cup(rules: RuleSet, dice: int) -> int:
    if rules.calzo_reward is CalzoReward.LIVES:
        return min(dice, rules.start_dice)
    return dice


def _active(s: _State) -> tuple[str, ...]:
    return tuple(p for p, d in zip(s.players, s.dice, strict=True) if d > 0)


def _table(rules: RuleSet, s: _State) -> int:
    return sum(_in_cup(rules, d) for d in s.dice)


def _next_active(s: _State, player: str) -> str:
    """The next player after `player`'s seat in the direction of play who still has dice."""
    step = -1 if s.direction is Direction.RIGHT else 1
    n = len(s.players)
    seat = s.players.index(player)
    for i in range(1, n + 1):
        candidate = (seat + step * i) % n
        if s.dice[candidate] > 0:
            return s.players[candidate]
    raise AssertionError("no active player")  # pragma: no cover


def _wild_aces(s: _State) -> bool:
    """Whether aces count for the bid's face when the table counts."""
    assert s.bid is not None
    return _aces_count_for(s.round_type, s.bid)


def _aces_count_for(round_type: RoundType, bid: Bid) -> bool:
    return round_type is RoundType.NORMAL and not bid.clean and bid.face is not ACE
