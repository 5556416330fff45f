"""The intended game: a legal random game in any preset, played with real dice by the rules engine.

Every player rolls real dice each round, decides like a (simple) player would, and the table
answers counts and pass checks with the true dice, so the script is exactly what an honest
table would say. The referee is later judged against it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from voice_ref.language.intents import (
    BidIntent,
    ChoiceIntent,
    Intent,
    NumberIntent,
    StarterIntent,
    plain_intent,
)
from voice_ref.rules.bid import Bid
from voice_ref.rules.game import Awaiting, Game
from voice_ref.rules.hands import is_valid_pass_hand
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
from voice_ref.rules.variants import RuleSet

MAX_ACTIONS = 1000  # a game longer than this is a bug in the player policy, not a game

Hands = dict[str, tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class Action:
    """One thing a player intends to say that changes the game."""

    speaker: str  # who says it (for a count or a pass check: whoever answers for the table)
    intent: Intent  # what they mean
    move: Move  # what the rules engine makes of it
    hands: tuple[tuple[str, tuple[int, ...]], ...]  # the dice under the cups meanwhile


@dataclass(frozen=True)
class IntendedGame:
    players: tuple[str, ...]
    rules: RuleSet
    actions: tuple[Action, ...]
    final: Game  # the game after every action (its snapshot is what the referee must reach)

    @property
    def moves(self) -> tuple[Move, ...]:
        return tuple(a.move for a in self.actions)


def plain(move: Move) -> Move:
    """A move without its speaker: "Beto, dudo" and "dudo" on Beto's turn are the same move."""
    return replace(move, by=None)


def roll(game: Game, rng: random.Random) -> Hands:
    return {p: tuple(rng.randint(1, 6) for _ in range(game.dice_in_cup(p)))
            for p in game.active_players}


def true_count(hands: Hands, face: int, wild_aces: bool) -> int:
    """How many dice show `face` (aces counting too when they are wild)."""
    return sum(1 for hand in hands.values() for f in hand
               if f == face or (wild_aces and f == 1 and face != 1))


def play(players: tuple[str, ...], rules: RuleSet, rng: random.Random) -> IntendedGame:
    """Play one whole game to a winner; every move is checked by the engine as it is pushed."""
    game = Game(players, rules)
    hands = roll(game, rng)
    actions: list[Action] = []
    while game.awaiting is not Awaiting.GAME_OVER:
        if len(actions) >= MAX_ACTIONS:
            raise RuntimeError(f"the simulated game did not end after {MAX_ACTIONS} actions")
        speaker, intent, move = _choose(game, hands, rng)
        outcome = game.push(move)  # raises IllegalMove if the policy ever picks an illegal one
        actions.append(Action(speaker, intent, move, tuple(sorted(hands.items()))))
        if outcome.new_round:
            hands = roll(game, rng)
    return IntendedGame(players, rules, tuple(actions), game)


def _choose(game: Game, hands: Hands, rng: random.Random) -> tuple[str, Intent, Move]:
    awaiting = game.awaiting
    anyone = rng.choice(game.active_players)
    if awaiting is Awaiting.STARTER:
        starter = rng.choice(game.players)
        return anyone, StarterIntent(player=starter), ChooseStarter(starter)
    if awaiting is Awaiting.DIRECTION:
        side = rng.choice(("izquierda", "derecha"))
        return _addressed(game), ChoiceIntent(value=side), ChooseDirection(Direction(side))
    if awaiting is Awaiting.OBLIGAR:
        yes = rng.random() < 0.6
        return _addressed(game), plain_intent("yes" if yes else "no"), ObligarAnswer(yes)
    if awaiting is Awaiting.MODALITY:
        value = rng.choice(("abierta", "cerrada"))
        return _addressed(game), ChoiceIntent(value=value), ChooseModality(Modality(value))
    if awaiting is Awaiting.COUNT:
        challenge = game.challenge
        assert challenge is not None
        n = true_count(hands, int(challenge.bid.face), challenge.wild_aces)
        return anyone, NumberIntent(value=n), RevealCount(n)
    if awaiting is Awaiting.PASS_CHECK:
        challenge = game.challenge
        assert challenge is not None
        valid = is_valid_pass_hand(hands[challenge.bidder], game.rules.pass_hands)
        return anyone, plain_intent("yes" if valid else "no"), PassCheck(valid=valid)
    return _turn(game, hands, rng)


def _addressed(game: Game) -> str:
    who = game.addressed or game.turn
    assert who is not None
    return who


def _turn(game: Game, hands: Hands, rng: random.Random) -> tuple[str, Intent, Move]:
    """A bidding turn: doubt a bid that looks too high, now and then calzo or paso, else raise."""
    me = _addressed(game)
    mine = hands.get(me, ())
    standing = game.bid
    if standing is not None:
        expected = _expected(game, mine, standing)
        if standing.quantity > expected + 0.3 and game.is_legal(Dudo()) and rng.random() < 0.9:
            return me, plain_intent("dudo"), Dudo()
        if abs(standing.quantity - expected) < 0.6 and game.is_legal(Calzo()) \
                and rng.random() < 0.25:
            return me, plain_intent("calzo"), Calzo()
        if game.is_legal(Paso()):
            valid = len(mine) == 5 and is_valid_pass_hand(mine, game.rules.pass_hands)
            if (valid and rng.random() < 0.8) or rng.random() < 0.03:
                return me, plain_intent("paso"), Paso()
    raises = _raises(game, mine, rng)
    if not raises:
        for move in (Dudo(), Calzo(), Paso()):
            if game.is_legal(move):
                return me, plain_intent(type(move).__name__.lower()), move
        raise RuntimeError(f"no legal move for {me} in {game!r}")
    bid = raises[0][1]
    return me, BidIntent(quantity=bid.quantity, face=int(bid.face), clean=bid.clean), Raise(bid)


def _raises(game: Game, mine: tuple[int, ...], rng: random.Random) -> list[tuple[float, Bid]]:
    """Legal raises, the most plausible (for this player's dice) first, with a little chance."""
    options: list[Bid] = []
    for low in game.minimum_bids():
        for extra in (0, 1, 2):
            bid = Bid(low.quantity + extra, low.face, low.clean)
            if game.is_legal(Raise(bid)):
                options.append(bid)
    if game.bid is None:  # an opening: a quantity near the player's own share of the table
        for low in game.minimum_bids():
            guess = max(low.quantity, round(_expected(game, mine, low) * 0.6))
            bid = Bid(guess, low.face, low.clean)
            if bid not in options and game.is_legal(Raise(bid)):
                options.append(bid)
    scored = [(_expected(game, mine, b) - b.quantity + rng.uniform(-1.0, 1.0), b)
              for b in options]
    return sorted(scored, key=lambda item: -item[0])


def _expected(game: Game, mine: tuple[int, ...], bid: Bid) -> float:
    """What a player expects there to be of the bid's face: their own dice plus the odds."""
    face = int(bid.face)
    wild = face != 1 and not bid.clean and game.modality is None
    own = sum(1 for f in mine if f == face or (wild and f == 1))
    others = game.dice_on_table - len(mine)
    return own + others * (1 / 3 if wild else 1 / 6)

