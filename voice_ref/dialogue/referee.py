"""The referee: one utterance + the game -> what it says and what it does.

`Referee.handle_text` parses a line, `Referee.handle_intent` acts on an intent;
both return a `Reply`. Every refused utterance leaves the game untouched and
says why in Spanish. Every accepted state-changing utterance is written to the
game log (fsynced) before the reply is returned, and can be undone
("me equivoqué"), several steps back.

The dialogue keeps a little state of its own next to the `Game`: the starter
roll ("Ana, ¿qué sacaste?") and the "¿nueva partida?" confirmation.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from voice_ref.dialogue.prompts import (
    Prompts,
    Speaker,
    bare_number,
    dice,
    join_words,
    number,
    sentence,
)
from voice_ref.dialogue.protocol import Reply, state_json
from voice_ref.language.intents import BidIntent, Intent, intent_from_json
from voice_ref.language.inventory import PhraseInventory
from voice_ref.language.parser import Parser
from voice_ref.language.text import fold, tokenize
from voice_ref.language.vocabulary import FACE_WORDS, dialect_faces
from voice_ref.rules.bid import Bid
from voice_ref.rules.errors import IllegalMove, Reason
from voice_ref.rules.faces import Face
from voice_ref.rules.game import Awaiting, ChallengeKind, Game, Outcome, RoundType
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
from voice_ref.rules.variants import ConfigError, RuleSet, make_rules

MAX_QUANTITY = 60  # a bid above this is certainly a mishearing (ten players of six dice)
MAX_TEXT = 200  # characters; longer lines are not speech
STARTER_POLICIES = ("ask", "roll", "random")

# Which moves answer what the game waits for (RULES.md fine point 22).
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
_EXPECTING = {
    Awaiting.STARTER: "starter",
    Awaiting.DIRECTION: "choice",
    Awaiting.BID: "turn",
    Awaiting.COUNT: "count",
    Awaiting.PASS_CHECK: "pass_check",
    Awaiting.OBLIGAR: "yes_no",
    Awaiting.MODALITY: "choice",
    Awaiting.GAME_OVER: "any",
}


class GameLogWriter(Protocol):
    def append(self, record: dict[str, Any]) -> None: ...


@dataclass(frozen=True)
class TableSetup:
    """Everything needed to start (or replay) a game; it is the game log's header."""

    players: tuple[str, ...]
    preset: str = "chile"
    overrides: dict[str, Any] = field(default_factory=dict)
    starter: str = "ask"  # a player's name, "ask", "roll" or "random"
    direction: str | None = None  # "izquierda", "derecha", or None to ask
    seed: int | None = None
    dialect: str = "chile"
    dialect_faces: dict[int, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        players = tuple(p.strip() for p in self.players)
        if len(players) < 2 or any(not p for p in players):
            raise ConfigError("A game needs at least two players with non-empty names.")
        if len({p.casefold() for p in players}) != len(players):
            raise ConfigError("Two players have the same name; every name must differ.")
        object.__setattr__(self, "players", players)
        if self.starter not in STARTER_POLICIES:
            match = [p for p in players if p.casefold() == self.starter.strip().casefold()]
            if not match:
                raise ConfigError(
                    f"Starter {self.starter!r} is not one of the players "
                    f"({', '.join(players)}) nor 'ask', 'roll' or 'random'."
                )
            object.__setattr__(self, "starter", match[0])
        if self.direction in ("ask", ""):
            object.__setattr__(self, "direction", None)
        if self.direction is not None and self.direction not in ("izquierda", "derecha"):
            raise ConfigError(f"Direction must be izquierda or derecha, not {self.direction!r}.")
        _ = self.rules  # unknown presets and overrides are refused now, not mid-game
        faces = {int(k): str(v) for k, v in self.dialect_faces.items()}
        object.__setattr__(self, "dialect_faces", faces)
        try:
            dialect_faces(self.dialect, faces)
        except ValueError as exc:
            raise ConfigError(f"[dialect]: {exc}.") from None

    @property
    def rules(self) -> RuleSet:
        return make_rules(self.preset, self.overrides)

    def to_json(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "rules": {"preset": self.preset, "overrides": dict(self.overrides)},
            "starter": self.starter,
            "direction": self.direction,
            "seed": self.seed,
            "dialect": self.dialect,
            "dialect_faces": {str(k): v for k, v in self.dialect_faces.items()},
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> TableSetup:
        rules = obj.get("rules", {})
        return cls(
            players=tuple(obj["players"]),
            preset=rules.get("preset", "chile"),
            overrides=dict(rules.get("overrides", {})),
            starter=obj.get("starter", "ask"),
            direction=obj.get("direction"),
            seed=obj.get("seed"),
            dialect=obj.get("dialect", "chile"),
            dialect_faces=dict(obj.get("dialect_faces", {})),
        )


@dataclass(frozen=True)
class _Talk:
    """The dialogue's own state next to the game (copied whole into undo frames)."""

    rolling: bool = False  # the starter is being rolled for
    rollers: tuple[str, ...] = ()  # who rolls this throw (all, then the tied)
    rolls: tuple[int, ...] = ()  # faces said so far, in `rollers` order
    confirm_new_game: bool = False
    games: int = 1  # games started so far (each random draw has its own seed)


@dataclass(frozen=True)
class _Frame:
    """What undo restores: the game object, how many moves it had, and the talk."""

    game: Game
    moves: int
    talk: _Talk


class Referee:
    """Intent + game state -> a `Reply` (what to say, whether it was accepted, the state)."""

    def __init__(
        self,
        setup: TableSetup,
        *,
        log: GameLogWriter | None = None,
        prompts: Prompts | None = None,
    ) -> None:
        self.setup = setup
        self.rules = setup.rules
        self.players = setup.players
        self.log = log
        self.prompts = prompts or Prompts.load()
        self.speaker = Speaker(self.prompts, setup.dialect, setup.dialect_faces)
        self._parser: Any = None
        self._inventory: Any = None
        self._undo: list[_Frame] = []
        self._last_say = ""
        self._start_game(games=1)

    # ----------------------------------------------------------------- public API

    @property
    def expecting(self) -> str:
        """What kind of answer the recognizer should listen for now."""
        if self._talk.confirm_new_game:
            return "yes_no"
        if self._roller() is not None:
            return "count"  # "¿qué sacaste?" is answered with a number
        return _EXPECTING[self.game.awaiting]

    def allowed_phrases(self) -> list[Any]:
        """The phrases that make sense now (for a recognizer's grammar)."""
        if self._inventory is None:
            self._inventory = PhraseInventory(
                list(self.players), self.setup.dialect, clean_bids=self.rules.clean_bids
            )
        return self._inventory.phrases(self.expecting)

    def is_legal(self, intent: Intent) -> bool:
        """Whether the game would accept this intent now (the voice layer asks before acting,
        to confirm a misheard bid instead of rejecting it)."""
        if intent.type in ("query", "repeat", "undo", "new_game"):
            return True
        rolling = self._talk.rolling and self.game.awaiting is Awaiting.STARTER
        if self._talk.confirm_new_game or rolling:
            return intent.type in ("yes", "no", "number", "bid", "none", "starter")
        move = self._to_move(intent)
        if isinstance(move, str) or self._gate(move):
            return False
        return self.game.is_legal(move)

    def state(self) -> dict[str, Any]:
        return state_json(self.game, turn=self._roller())

    def opening(self, resumed: bool = False) -> Reply:
        """The first announcement: who plays, which rules, and the first question."""
        if resumed:
            say = self._join(self.prompts.say("opening.resume"), self._standing(), self._question())
        else:
            rules_key = f"rules_name.{self.rules.name}"
            rules = self.prompts.say(rules_key) if self.prompts.has(rules_key) else self.rules.name
            welcome = self.prompts.say(
                "opening.welcome", players=join_words(self.players), rules=rules
            )
            say = self._join(welcome, self._game_start_line())
        self._last_say = say
        return Reply(None, None, True, say, self.state(), kind="question")

    def handle_text(self, text: str | None) -> Reply:
        """Parse one utterance and act on it."""
        if text is None or not text.strip():
            return self._reject(None, text, self.prompts.say("reject.empty"))
        if len(text) > MAX_TEXT:
            return self._reject(None, text, self.prompts.say("reject.too_long"))
        intent = self._parse(text)
        if intent is None and self._roller() is not None:
            intent = _face_alone(text)  # "quina" answers "¿qué sacaste?"
        stranger = (
            _spoken_stranger(text, self.players) if intent is None or not intent.player else None
        )
        if stranger:  # "Xavier, dudo": the parser only knows the seated names
            say = self.prompts.say("illegal.unknown_player", player=stranger)
            return self._reject(intent, text, say)
        if intent is None or (intent.type == "none" and intent.player is None):
            return self._reject(intent, text, self.prompts.say("reject.not_understood"))
        return self.handle_intent(intent, heard=text)

    def handle_intent(self, intent: Intent, heard: str | None = None) -> Reply:
        """Act on one intent (from the parser, the voice decision layer, or a log replay)."""
        if intent.player is not None:
            player = self._seat(intent.player)
            if player is None:
                say = self.prompts.say("illegal.unknown_player", player=intent.player)
                return self._reject(intent, heard, say)
            if player != intent.player:
                intent = replace(intent, player=player)
        kind = intent.type
        if kind == "query":
            return self._query(intent, heard)
        if kind == "repeat":
            return Reply(heard, intent, True, self._last_say, self.state(), kind="query")
        if kind == "undo":
            return self._undo_last(intent, heard)
        if kind == "new_game":
            frame = self._frame()
            self._talk = replace(self._talk, confirm_new_game=True)
            say = self.prompts.say("ask.confirm_new_game")
            return self._accept(frame, intent, heard, say, kind="question")
        if self._talk.confirm_new_game:
            return self._confirm_new_game(intent, heard)
        if self._talk.rolling and self.game.awaiting is Awaiting.STARTER:
            return self._roll(intent, heard)
        move = self._to_move(intent)
        if isinstance(move, str):
            return self._reject(intent, heard, move)
        gate = self._gate(move)
        if gate:
            return self._reject(intent, heard, gate)
        frame = self._frame()
        actor = move.by or self.game.turn or self.game.addressed
        try:
            outcome = self.game.push(move)
        except IllegalMove as err:
            return self._reject(intent, heard, self._explain(err, move))
        say, kind = self._announce(outcome, actor)
        return self._accept(frame, intent, heard, say, kind=kind, urgent=kind == "challenge")

    def replay(self, records: list[dict[str, Any]]) -> list[str]:
        """Re-apply logged intents (resume); returns warnings for any that no longer apply."""
        log, self.log = self.log, None
        warnings: list[str] = []
        try:
            for i, record in enumerate(records, start=2):
                try:
                    intent = intent_from_json(record["intent"])
                except (KeyError, TypeError, ValueError):
                    warnings.append(f"line {i}: not an intent, skipped.")
                    continue
                if not self.handle_intent(intent, heard=record.get("heard")).accepted:
                    warnings.append(f"line {i}: {record['intent']} was refused on replay.")
        finally:
            self.log = log
        return warnings

    # ----------------------------------------------------------- game lifecycle

    def _start_game(self, games: int) -> None:
        """A fresh game; the `games`-th random draw of a seed is always the same (replay)."""
        policy = self.setup.starter
        starter = None
        self._drawn = False
        if policy == "random":
            starter = random.Random(f"{self.setup.seed}:{games}").choice(self.players)
            self._drawn = True
        elif policy not in STARTER_POLICIES:
            starter = policy
        direction = Direction(self.setup.direction) if self.setup.direction else None
        self.game = Game(list(self.players), self.rules, starter=starter, direction=direction)
        rolling = policy == "roll"
        self._talk = _Talk(rolling=rolling, rollers=self.players if rolling else (), games=games)

    def _game_start_line(self) -> str:
        if self._drawn and self.game.awaiting is not Awaiting.STARTER:
            first = self.prompts.say("announce.starter_random", player=self._opener())
            if self.game.awaiting is Awaiting.BID:
                return first
            return self._join(first, self._question())
        return self._question()

    def _confirm_new_game(self, intent: Intent, heard: str | None) -> Reply:
        if intent.type == "yes":
            frame = self._frame()
            self._start_game(games=self._talk.games + 1)
            say = self._join(self.prompts.say("opening.new_game"), self._game_start_line())
            return self._accept(frame, intent, heard, say, kind="question")
        if intent.type == "no":
            frame = self._frame()
            self._talk = replace(self._talk, confirm_new_game=False)
            say = self._join(self.prompts.say("announce.cancelled"), self._question())
            return self._accept(frame, intent, heard, say, kind="question")
        question = self.prompts.say("ask.confirm_new_game")
        return self._reject(
            intent, heard, self.prompts.say("reject.answer_first", question=question)
        )

    def _roll(self, intent: Intent, heard: str | None) -> Reply:
        """The starter roll: each player says their face; As is highest; ties roll again."""
        talk = self._talk
        if intent.type == "starter" or (intent.type == "none" and intent.player):
            move = ChooseStarter(intent.player or "")
            frame = self._frame()
            try:
                outcome = self.game.push(move)
            except IllegalMove as err:
                return self._reject(intent, heard, self._explain(err, move))
            self._talk = replace(talk, rolling=False)
            say, kind = self._announce(outcome, None)
            return self._accept(frame, intent, heard, say, kind=kind)
        roller = talk.rollers[len(talk.rolls)]
        if intent.player is not None and intent.player != roller:
            return self._reject(
                intent, heard, self.prompts.say("illegal.not_your_turn", player=roller)
            )
        face = _rolled_face(intent)
        if face is None:
            again = self.prompts.say("ask.roll", player=roller)
            return self._reject(
                intent, heard, self._join(self.prompts.say("reject.roll_face"), again)
            )
        frame = self._frame()
        rolls = (*talk.rolls, face)
        if len(rolls) < len(talk.rollers):
            self._talk = replace(talk, rolls=rolls)
            return self._accept(frame, intent, heard, self._question(), kind="question")
        rank = [7 if f == 1 else f for f in rolls]
        best = max(rank)
        top = tuple(p for p, r in zip(talk.rollers, rank, strict=True) if r == best)
        if len(top) > 1:
            self._talk = replace(talk, rollers=top, rolls=())
            tie = self.prompts.say("announce.roll_tie", players=join_words(top))
            return self._accept(frame, intent, heard, self._join(tie, self._question()), "question")
        self._talk = replace(talk, rolling=False, rolls=rolls)
        outcome = self.game.push(ChooseStarter(top[0]))
        say, kind = self._announce(outcome, None)
        return self._accept(frame, intent, heard, say, kind=kind)

    # ------------------------------------------------------------ intent -> move

    def _to_move(self, intent: Intent) -> Move | str:
        """The move an intent means now, or the Spanish reason it means nothing."""
        kind = intent.type
        by = intent.player
        awaiting = self.game.awaiting
        if kind == "bid":
            quantity, face = intent.quantity, intent.face  # type: ignore[attr-defined]
            if face not in range(1, 7):
                return self.prompts.say("reject.bad_face")
            challenge = self.game.challenge
            if (
                awaiting is Awaiting.COUNT
                and challenge is not None
                and face == int(challenge.bid.face)
            ):
                return RevealCount(quantity)  # "había cuatro quinas" answers the count
            if quantity > MAX_QUANTITY:
                return self.prompts.say("reject.too_many")
            return Raise(Bid(quantity, Face(face), intent.clean), by=by)  # type: ignore[attr-defined]
        if kind == "number":
            value = intent.value  # type: ignore[attr-defined]
            if awaiting is Awaiting.COUNT:
                return RevealCount(value)
            if awaiting is Awaiting.BID:
                return self.prompts.say(
                    "reject.incomplete_bid", number=number(value, feminine=True)
                )
            return RevealCount(value)  # refused below with the pending question
        if kind == "dudo":
            return Dudo(by=by)
        if kind == "calzo":
            return Calzo(by=by)
        if kind == "paso":
            return Paso(by=by)
        if kind in ("yes", "no"):
            if awaiting is Awaiting.OBLIGAR:
                return ObligarAnswer(kind == "yes", by=by)
            return PassCheck(valid=kind == "yes")
        if kind == "hand":
            faces = intent.faces  # type: ignore[attr-defined]
            if any(f not in range(1, 7) for f in faces):
                return self.prompts.say("reject.bad_face")
            return PassCheck(hand=tuple(Face(f) for f in faces))
        if kind == "choice":
            value = intent.value  # type: ignore[attr-defined]
            if value in ("abierta", "cerrada"):
                return ChooseModality(Modality(value), by=by)
            return ChooseDirection(Direction(value), by=by)
        if kind == "starter" and by is not None:
            return ChooseStarter(by)
        if kind == "none" and by is not None:
            if awaiting is Awaiting.STARTER:
                return ChooseStarter(by)
            if awaiting is Awaiting.BID and by == self.game.turn:
                return self.prompts.say("reject.name_only", player=by)
            expected = self.game.turn or self.game.addressed
            if expected and by != expected:
                return self.prompts.say("illegal.not_your_turn", player=expected)
            return self._pending_or("reject.not_understood")
        return self.prompts.say("reject.not_understood")

    def _gate(self, move: Move) -> str | None:
        """Refuse a move that does not answer what the game waits for (fine points 22, 23)."""
        awaiting = self.game.awaiting
        if isinstance(move, _ANSWERS[awaiting]):
            return None
        if awaiting is Awaiting.GAME_OVER:
            return self.prompts.say("illegal.game_over", player=self.game.winner)
        if awaiting is Awaiting.BID:
            if isinstance(move, ChooseDirection):
                return self.prompts.say("illegal.direction_not_awaited")
            return self._join(self.prompts.say("reject.no_question"), self._question())
        return self.prompts.say("reject.answer_first", question=self._question())

    def _pending_or(self, key: str) -> str:
        if self.game.awaiting in (Awaiting.BID, Awaiting.GAME_OVER):
            return self.prompts.say(key)
        return self.prompts.say("reject.answer_first", question=self._question())

    # ------------------------------------------------------------- what to say

    def _question(self) -> str:
        """The line that asks for what the game waits for now."""
        game = self.game
        p = self.prompts
        if self._talk.confirm_new_game:
            return p.say("ask.confirm_new_game")
        awaiting = game.awaiting
        if awaiting is Awaiting.STARTER:
            roller = self._roller()
            if roller:
                return p.say("ask.roll", player=roller)
            return p.say("ask.starter", player=self.players[0])  # the example answer
        if awaiting is Awaiting.DIRECTION:
            return p.say("ask.direction", player=game.addressed or game.turn)
        if awaiting is Awaiting.BID:
            if game.bid is None:
                if game.round_type is RoundType.PALO_FIJO:
                    return p.say("announce.palo_fijo", player=game.turn)
                return p.say("ask.open", player=game.turn)
            if game.turn == game.bidder:
                return p.say("ask.must_raise", player=game.turn)
            return p.say("ask.turn", player=game.turn)
        if awaiting is Awaiting.COUNT:
            return self._count_question()
        if awaiting is Awaiting.PASS_CHECK:
            passer = game.challenge.bidder if game.challenge else game.last_pass_by
            return p.say("ask.pass_check", player=passer)
        if awaiting is Awaiting.OBLIGAR:
            return p.say("ask.obligar", player=game.addressed or game.turn)
        if awaiting is Awaiting.MODALITY:
            return p.say("ask.modality")
        return p.say("ask.game_over", player=game.winner)

    def _count_question(self) -> str:
        challenge = self.game.challenge
        assert challenge is not None
        face = challenge.bid.face
        faces = self.speaker.face_plural(face)
        if face.is_ace:
            key = "ask.count"
        elif challenge.wild_aces:
            key = "ask.count_wild"
        else:
            key = "ask.count_clean"
        if self.speaker.face_is_feminine(face):
            key += "_f"
        return self.prompts.say(key, faces=faces)

    def _announce(self, outcome: Outcome, actor: str | None) -> tuple[str, str]:
        """What to say after an accepted move (made by `actor`), and the kind of line it is."""
        p = self.prompts
        move = outcome.move
        game = self.game
        if isinstance(move, Raise):
            echo = sentence(p.say("announce.bid", bid=self.speaker.the_bid(move.bid)))
            return self._join(echo, self._question()), "routine"
        if isinstance(move, Paso):
            return self._join(p.say("announce.paso", player=actor), self._question()), "routine"
        if isinstance(move, Dudo | Calzo) and not outcome.resolved:
            challenge = outcome.challenge or game.challenge
            assert challenge is not None
            if challenge.kind is ChallengeKind.PASS_DOUBT:
                line = p.say(
                    "announce.pass_doubt", player=challenge.challenger, passer=challenge.bidder
                )
            else:
                key = "announce.dudo" if challenge.kind is ChallengeKind.DUDO else "announce.calzo"
                line = p.say(key, player=challenge.challenger)
            return self._join(line, self._question()), "challenge"
        if outcome.resolved:
            return self._result(outcome), "result"
        if isinstance(move, ObligarAnswer):
            player = actor
            key = "announce.obligar_yes" if move.obligate else "announce.obligar_no"
            return self._join(p.say(key, player=player), self._question()), "question"
        if isinstance(move, ChooseModality):
            key = (
                "announce.modality_open"
                if move.modality is Modality.OPEN
                else ("announce.modality_closed")
            )
            return self._join(p.say(key), self._question()), "question"
        if isinstance(move, ChooseDirection):
            line = p.say("announce.direction", direction=move.direction.value)
            return self._join(line, self._question()), "question"
        if isinstance(move, ChooseStarter):
            if game.awaiting is Awaiting.BID:
                return self._question(), "question"
            return self._join(p.say("ask.open", player=move.player), self._question()), "question"
        return self._question(), "question"

    def _result(self, outcome: Outcome) -> str:
        """After the count or the pass check: who loses, dice left, next round."""
        p = self.prompts
        game = self.game
        challenge = outcome.challenge
        move = outcome.move
        losers = [name for name, delta in outcome.dice_changes if delta < 0]
        gainers = [name for name, delta in outcome.dice_changes if delta > 0]
        parts: list[str] = []
        if challenge is not None and challenge.kind is ChallengeKind.PASS_DOUBT:
            loser = losers[0] if losers else challenge.challenger
            key = "announce.pass_invalid" if outcome.challenge_succeeded else "announce.pass_valid"
            parts.append(p.say(key, player=loser))
        elif challenge is not None and isinstance(move, RevealCount):
            count = self.speaker.bid(move.count, challenge.bid.face)
            if challenge.kind is ChallengeKind.CALZO:
                if outcome.challenge_succeeded:
                    parts.append(
                        p.say(
                            "announce.count_calzo_right", count=count, player=challenge.challenger
                        )
                    )
                    if not gainers:
                        parts.append(p.say("announce.calzo_at_cap", player=challenge.challenger))
                else:
                    parts.append(
                        p.say(
                            "announce.count_calzo_wrong", count=count, player=challenge.challenger
                        )
                    )
            else:
                loser = losers[0] if losers else challenge.challenger
                parts.append(p.say("announce.count_dudo", count=count, player=loser))
        hidden = self.rules.hidden_counts
        for name, _delta in outcome.dice_changes:
            if name in outcome.eliminated:
                parts.append(p.say("announce.eliminated", player=name))
            elif not hidden:
                left = game.dice(name)
                if left == 1:
                    parts.append(p.say("announce.dice_left_one", player=name))
                else:
                    parts.append(p.say("announce.dice_left", player=name, dice=dice(left)))
        for name in outcome.eliminated:
            line = p.say("announce.eliminated", player=name)
            if line not in parts:
                parts.append(line)
        if game.winner is not None:
            parts.append(p.say("announce.winner", player=game.winner))
            return self._join(*parts)
        if not hidden:
            parts.append(p.say("announce.table_dice", **self._remain(game.dice_on_table)))
        if game.awaiting is Awaiting.DIRECTION:
            parts.append(p.say("ask.open", player=game.addressed or game.turn))
        if game.awaiting is Awaiting.MODALITY and game.round_type is RoundType.OBLIGAR:
            parts.append(p.say("announce.obligar_auto", player=game.addressed or game.turn))
        parts.append(self._question())
        return self._join(*parts)

    def _remain(self, n: int) -> dict[str, str]:
        """ "quedan quince dados" / "queda un dado": the verb agrees with the count."""
        verb = self.prompts.say("words.remain_one" if n == 1 else "words.remain_many")
        return {"remain": verb, "dice": dice(n)}

    def _standing(self) -> str:
        """ "Queda en pie cinco quinas, de Ana." (after an undo or on resume)."""
        game = self.game
        if game.bid is None or game.awaiting is not Awaiting.BID:
            return ""
        return self.prompts.say(
            "announce.standing_bid", bid=self.speaker.the_bid(game.bid), player=game.bidder
        )

    def _explain(self, err: IllegalMove, move: Move) -> str:
        """The Spanish reason for a refused move."""
        p = self.prompts
        game = self.game
        reason = err.reason
        details = err.details
        turn = game.turn or game.addressed
        if reason is Reason.NOT_YOUR_TURN:
            return p.say("illegal.not_your_turn", player=details.get("expected") or turn)
        if reason in (Reason.UNKNOWN_PLAYER, Reason.ELIMINATED_PLAYER, Reason.INVALID_STARTER):
            who = details.get("player") or getattr(move, "by", None) or getattr(move, "player", "")
            if reason is Reason.INVALID_STARTER and who in self.players:
                reason = Reason.ELIMINATED_PLAYER
            return p.say(f"illegal.{reason.value}", player=who)
        if reason is Reason.NOT_AWAITED:
            return self._gate(move) or p.say("illegal.not_awaited", question=self._question())
        if reason is Reason.GAME_OVER:
            return p.say("illegal.game_over", player=game.winner)
        if reason in (Reason.TOO_LOW, Reason.FIXED_FACE):
            minimums = err.minimum_bids or game.minimum_bids()
            minimum = self.speaker.minimum(game.bid, minimums)
            if reason is Reason.FIXED_FACE:
                return p.say("illegal.fixed_face", minimum=minimum)
            if game.bid is None:
                return p.say("illegal.too_low_open", minimum=minimum)
            return p.say("illegal.too_low", bid=self.speaker.the_bid(game.bid), minimum=minimum)
        if reason in (Reason.CALZO_NOT_ALLOWED, Reason.PASO_NOT_ALLOWED):
            key = f"illegal.{reason.value}_{details.get('why', '')}"
            if not p.has(key):
                key = f"illegal.{reason.value}"
            return p.say(key, player=getattr(move, "by", None) or turn)
        if reason is Reason.COUNT_OUT_OF_RANGE:
            maximum = details.get("maximum", game.dice_on_table)
            return p.say(
                "illegal.count_out_of_range", dice=dice(maximum), question=self._question()
            )
        if reason is Reason.BAD_PASS_HAND:
            return p.say("illegal.bad_pass_hand", question=self._question())
        key = f"illegal.{reason.value}"
        if p.has(key):
            return p.say(key, player=turn, question=self._question())
        return p.say("reject.not_understood")

    # ----------------------------------------------------------------- queries

    def _query(self, intent: Intent, heard: str | None) -> Reply:
        p = self.prompts
        game = self.game
        what = intent.what  # type: ignore[attr-defined]
        player = intent.player
        hidden = self.rules.hidden_counts
        if what == "dice":
            if player is not None:
                if hidden:
                    say = p.say("query.dice_hidden", **self._remain(game.dice_on_table))
                elif player not in game.active_players:
                    say = p.say("query.dice_player_out", player=player)
                else:
                    say = p.say("query.dice_player", player=player, dice=dice(game.dice(player)))
            elif hidden:
                say = p.say("query.dice_total_hidden", **self._remain(game.dice_on_table))
            else:
                detail = ", ".join(
                    f"{name} {bare_number(game.dice(name))}" for name in game.active_players
                )
                say = p.say("query.dice_total", **self._remain(game.dice_on_table), detail=detail)
        elif what == "turn":
            if game.awaiting in (Awaiting.COUNT, Awaiting.PASS_CHECK):
                say = p.say("query.turn_table", question=self._question())
            elif game.awaiting is Awaiting.BID:
                say = p.say("query.turn", player=game.turn)
            else:
                say = self._question()
        elif what == "minimum":
            if game.awaiting is not Awaiting.BID:
                say = self._question()
            elif game.bid is None:
                minimums = game.minimum_bids()
                key = "query.minimum_open"
                if not any(b.face.is_ace for b in minimums):
                    key += "_no_aces"
                say = p.say(key, player=game.turn)
            else:
                say = p.say(
                    "query.minimum", minimum=self.speaker.minimum(game.bid, game.minimum_bids())
                )
        else:
            if game.bid is None:
                say = p.say("query.no_bid")
            else:
                say = p.say("query.bid", bid=self.speaker.the_bid(game.bid), player=game.bidder)
        return Reply(heard, intent, True, sentence(say), self.state(), kind="query")

    # ---------------------------------------------------------------- plumbing

    def _undo_last(self, intent: Intent, heard: str | None) -> Reply:
        if not self._undo:
            return self._reject(intent, heard, self.prompts.say("reject.nothing_to_undo"))
        frame = self._undo.pop()
        self.game = frame.game
        while len(self.game.move_stack) > frame.moves:
            self.game.pop()
        self._talk = frame.talk
        say = self._join(self.prompts.say("announce.undone"), self._standing(), self._question())
        self._write(intent, heard)
        self._last_say = say
        return Reply(heard, intent, True, say, self.state(), kind="question")

    def _frame(self) -> _Frame:
        return _Frame(self.game, len(self.game.move_stack), self._talk)

    def _accept(
        self,
        frame: _Frame,
        intent: Intent,
        heard: str | None,
        say: str,
        kind: str = "routine",
        urgent: bool = False,
    ) -> Reply:
        self._undo.append(frame)
        self._write(intent, heard)
        self._last_say = say
        if self.game.awaiting is Awaiting.GAME_OVER:
            kind = "game_over"
        return Reply(heard, intent, True, say, self.state(), kind=kind, urgent=urgent)

    def _write(self, intent: Intent, heard: str | None) -> None:
        """Log before speaking: the reply is returned only after the line is on disk."""
        if self.log is not None:
            self.log.append({"intent": intent.to_json(), "heard": heard})

    def _reject(self, intent: Intent | None, heard: str | None, say: str) -> Reply:
        return Reply(heard, intent, False, say, self.state(), kind="reject")

    def _parse(self, text: str) -> Intent | None:
        if self._parser is None:
            self._parser = Parser(list(self.players))
        return self._parser.parse(text).intent

    def _seat(self, name: str) -> str | None:
        """The seated player's own spelling of a name, or None."""
        folded = name.strip().casefold()
        for player in self.players:
            if player.casefold() == folded:
                return player
        return None

    def _roller(self) -> str | None:
        talk = self._talk
        if talk.rolling and self.game.awaiting is Awaiting.STARTER:
            return talk.rollers[len(talk.rolls)]
        return None

    def _opener(self) -> str | None:
        return self.game.turn or self.game.addressed

    @staticmethod
    def _join(*parts: str) -> str:
        return " ".join(sentence(p) for p in parts if p)


def _face_alone(text: str) -> Intent | None:
    """A face name said alone ("quina", "as") as a one-die bid, for the starter roll."""
    word = " ".join(tokenize(text))
    for fw in FACE_WORDS:
        if word == fold(fw.singular):
            return BidIntent(quantity=1, face=fw.face)
    return None


def _rolled_face(intent: Intent) -> int | None:
    """A starter-roll answer: "quina", "cinco", "un as" -> the face, else None."""
    if intent.type == "number" and 1 <= intent.value <= 6:  # type: ignore[attr-defined]
        return intent.value  # type: ignore[attr-defined]
    if intent.type == "bid" and intent.quantity == 1:  # type: ignore[attr-defined]
        return intent.face  # type: ignore[attr-defined]
    return None


_NAME_FIRST = re.compile(r"^\s*([A-ZÁÉÍÓÚÑ][\wáéíóúñü]+)\s*,")
_NAME_AFTER = re.compile(r"\b(?:parte|empieza|llamado)\s+([A-ZÁÉÍÓÚÑ][\wáéíóúñü]+)", re.UNICODE)


def _spoken_stranger(text: str, players: tuple[str, ...]) -> str | None:
    """A capitalised name addressed in typed text that is nobody at the table."""
    seated = {p.casefold() for p in players}
    for pattern in (_NAME_FIRST, _NAME_AFTER):
        m = pattern.search(text)
        if m and m.group(1).casefold() not in seated and m.group(1).casefold() not in _NOT_NAMES:
            return m.group(1)
    return None


_NOT_NAMES_TEXT = """
    sí si no dudo calzo paso oye ya bueno vale ok okay eh ah uy mira pues entonces listo
    claro ahora perdón disculpa a la izquierda derecha abierta cerrada partida nueva
    repite cuántos cuántas quién
"""
_NOT_NAMES = frozenset(_NOT_NAMES_TEXT.split())
