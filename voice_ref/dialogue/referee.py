"""The referee: one utterance + the game -> what it does (and, via narration, what it says).

`Referee.handle_text` parses a line (a reading that scores below `accept_score` is not
understood), `Referee.handle_intent` acts on an intent; both return a `Reply`. Every
refused utterance leaves the game untouched and says why in Spanish. Every accepted
state-changing utterance is written to the game log (fsynced) before the reply is returned.

Corrections: "me equivoqué" takes back the last accepted line and says what it
took back; a named speaker may only take back their own line; taking back a
round's result (dice changed) or who starts is asked first ("¿Deshago el
resultado? Beto recupera un dado."), so undo never leaves the current round
silently. "No, dije cinco quinas" right after one's own accepted bid replaces it.

The dialogue keeps a little state of its own next to the `Game` (`_Talk`): the
starter roll ("Ana, ¿qué sacaste?") and the pending yes/no confirmations.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any, Protocol

from voice_ref.dialogue import narration
from voice_ref.dialogue.narration import join
from voice_ref.dialogue.prompts import Prompts, Speaker, join_words, number
from voice_ref.dialogue.protocol import LineKind, Reply, state_json
from voice_ref.dialogue.setup import STARTER_POLICIES, StarterPolicy, TableSetup
from voice_ref.language.expecting import Expecting
from voice_ref.language.intents import (
    BidIntent,
    CalzoIntent,
    ChoiceIntent,
    CorrectionIntent,
    DudoIntent,
    HandIntent,
    Intent,
    NameOnlyIntent,
    NewGameIntent,
    NoIntent,
    NumberIntent,
    PasoIntent,
    QueryIntent,
    RepeatIntent,
    StarterIntent,
    UndoIntent,
    YesIntent,
    intent_from_json,
)
from voice_ref.language.inventory import Phrase, PhraseInventory
from voice_ref.language.parser import Parser
from voice_ref.language.spoken import addressed_stranger, face_alone
from voice_ref.rules.bid import Bid
from voice_ref.rules.errors import IllegalMove
from voice_ref.rules.faces import Face
from voice_ref.rules.game import Awaiting, Game, Outcome
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

__all__ = ["MAX_QUANTITY", "STARTER_POLICIES", "Referee", "Reply", "TableSetup"]

MAX_QUANTITY = 60  # a bid above this is a mishearing (ten players of six dice)...
# ...unless the rules make it the minimum (after treinta ases: sesenta y una of a face).
MAX_TEXT = 200  # characters; longer lines are not speech
# A typed line whose best reading scores below this is a guess ("dos puntos" reads as
# "dos unos" at 0.45): not understood, as the voice layer ignores it (`asr.accept_score`).
ACCEPT_SCORE = 0.5

# What the referee listens for while the game awaits each thing (the simulated table says
# its lines with this context's phrases too).
EXPECTING_WHILE_AWAITING: dict[Awaiting, Expecting] = {
    Awaiting.STARTER: Expecting.STARTER,
    Awaiting.DIRECTION: Expecting.CHOICE,
    Awaiting.BID: Expecting.TURN,
    Awaiting.COUNT: Expecting.COUNT,
    Awaiting.PASS_CHECK: Expecting.PASS_CHECK,
    Awaiting.OBLIGAR: Expecting.YES_NO,
    Awaiting.MODALITY: Expecting.CHOICE,
    Awaiting.GAME_OVER: Expecting.ANY,
}


class GameLogWriter(Protocol):
    def append(self, record: dict[str, Any]) -> None: ...


@dataclass(frozen=True)
class _Talk:
    """The dialogue's own state next to the game (copied whole into undo frames)."""

    rolling: bool = False  # the starter is being rolled for
    rollers: tuple[str, ...] = ()  # who rolls this throw (all, then the tied)
    rolls: tuple[int, ...] = ()  # faces said so far, in `rollers` order
    confirm_new_game: bool = False
    confirm_undo: bool = False  # "¿Deshago el resultado?" is waiting for sí / no
    games: int = 1  # games started so far (each random draw has its own seed)


@dataclass(frozen=True)
class _Step:
    """One accepted line that undo can take back: the state before it and what it was."""

    game: Game
    moves: int
    talk: _Talk
    actor: str | None  # who said it; None when the table answered
    what: str  # "cinco quinas de Ana", for "Deshecho: ..."
    move: Move | None = None  # the move it pushed, if any
    confirm: str | None = None  # asked before undoing it (a result, who starts, a new game)


@dataclass(frozen=True)
class _Before:
    """The state an accepted line starts from (becomes a `_Step` once accepted)."""

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
        accept_score: float = ACCEPT_SCORE,
    ) -> None:
        self.setup = setup
        self.accept_score = accept_score
        self.rules = setup.rules
        self.players = setup.players
        self.log = log
        self.prompts = prompts or Prompts.load()
        self.speaker = Speaker(self.prompts, setup.dialect, setup.dialect_faces)
        self._parser: Parser | None = None
        self._inventory: PhraseInventory | None = None
        self._steps: list[_Step] = []
        self._last_say = ""
        self._last_result: Outcome | None = None  # the result, while it is the last line
        self._taken_back: tuple[int, Bid] | None = None  # (moves then, the bid taken back)
        self._corrected_at: int | None = None  # moves when a line was last taken back
        self._count_taken_back: tuple[int, int] | None = None  # (moves then, the count)
        self._start_game(games=1)

    # ----------------------------------------------------------------- public API

    @property
    def expecting(self) -> Expecting:
        """What kind of answer the recognizer should listen for now."""
        if self._talk.confirm_new_game or self._talk.confirm_undo:
            return Expecting.YES_NO
        if self._roller() is not None:
            return Expecting.COUNT  # "¿qué sacaste?" is answered with a number
        return EXPECTING_WHILE_AWAITING[self.game.awaiting]

    def allowed_phrases(self) -> list[Phrase]:
        """The phrases that make sense now (for a recognizer's grammar), as tables say them:
        with one decoration ("Carla, tres trenes", "son cuatro sextos"). Offered only the
        plain phrases, Whisper heard "son cuatro sextos" as "catorce sextos" and ignored
        "Carla, tres trenes" (a simulated game, BENCHMARKS.md "Whole games", session 4)."""
        return self.phrases_for(self.expecting)

    def phrases_for(self, expecting: str, canonical: bool = False) -> list[Phrase]:
        """Every phrase this table may say while the referee expects `expecting` (what
        `allowed_phrases` gives then): a recognizer prepares them before the game.
        `canonical`: only the plain phrases, without names or fillers."""
        if self._inventory is None:
            self._inventory = PhraseInventory(
                list(self.players),
                self.setup.dialect,
                clean_bids=self.rules.clean_bids,
                faces=self.setup.dialect_faces,
            )
        return self._inventory.phrases(expecting, canonical=canonical)

    def taken_back(self) -> Bid | None:
        """The bid just taken back with "me equivoqué", while the game is still where it was
        taken back. The player says the call again, and it was not that one: the voice layer
        does not offer that reading again (a simulated game heard "dos cuadras" as "dos
        donas" fourteen times in a row, each undone). Only bids: a dudo taken back was
        usually table talk, and a real dudo may well follow."""
        if self._taken_back is None:
            return None
        moves, bid = self._taken_back
        return bid if len(self.game.move_stack) == moves else None

    def count_taken_back(self) -> int | None:
        """The revealed count just taken back, while the game is still where it was: as
        with a bid, the count said again was not that one (a simulated game heard "tres"
        as "una" seven times at one count, each undone)."""
        if self._count_taken_back is None:
            return None
        moves, count = self._count_taken_back
        return count if len(self.game.move_stack) == moves else None

    def corrected(self) -> bool:
        """Whether the table just took a line back ("me equivoqué") and the game is still
        where it was taken back: the line that follows is usually the same call said again,
        and the voice layer is wary of it (`voice.decision.GameView.wary`). Any line, not
        only bids: a count or a dudo misheard once is often misheard again."""
        return self._corrected_at == len(self.game.move_stack)

    def is_legal(self, intent: Intent) -> bool:
        """Whether the game would accept this intent now (the voice layer asks before acting,
        to confirm a misheard bid instead of rejecting it)."""
        if isinstance(intent, QueryIntent | RepeatIntent | UndoIntent | NewGameIntent):
            return True
        talk = self._talk
        rolling = talk.rolling and self.game.awaiting is Awaiting.STARTER
        if talk.confirm_new_game or talk.confirm_undo:
            return isinstance(intent, YesIntent | NoIntent)
        if rolling:
            return isinstance(intent, NumberIntent | BidIntent | NameOnlyIntent | StarterIntent)
        if isinstance(intent, CorrectionIntent):
            return self._corrected_step(intent.bid) is not None
        move = self._to_move(intent)
        if isinstance(move, str) or narration.not_awaited(move, self.game, self.speaker):
            return False
        return self.game.is_legal(move)

    def state(self) -> dict[str, Any]:
        return state_json(self.game, turn=self._roller())

    def opening(self, resumed: bool = False) -> Reply:
        """The first announcement: who plays, which rules, and the first question.

        On resume, a result that was the last logged line is said again: the program may
        have stopped between writing it and saying it."""
        p = self.prompts
        if resumed and self._last_result is not None:
            past = narration.result(self.game, self._last_result, self.speaker, past=True)
            say = join(p.say("opening.resume_short"), past)
        elif resumed:
            say = join(
                p.say("opening.resume"),
                narration.standing(self.game, self.speaker),
                self._question(),
            )
        else:
            welcome = p.say(
                "opening.welcome",
                players=join_words(self.players),
                rules=narration.rules_name(self.rules, self.speaker),
            )
            say = join(welcome, self._game_start_line())
        self._last_say = say
        return Reply(None, None, True, say, self.state(), kind=LineKind.QUESTION)

    def handle_text(self, text: str | None) -> Reply:
        """Parse one utterance and act on it."""
        if text is None or not text.strip():
            return self._reject(None, text, self.prompts.say("reject.empty"))
        if len(text) > MAX_TEXT:
            return self._reject(None, text, self.prompts.say("reject.too_long"))
        intent = self._parse(text)
        if intent is None and self._roller() is not None:
            intent = face_alone(text)  # "quina" answers "¿qué sacaste?"
        stranger = (
            addressed_stranger(text, self.players) if intent is None or not intent.player else None
        )
        if stranger:  # "Xavier, dudo": the parser only knows the seated names
            say = self.prompts.say("illegal.unknown_player", player=stranger)
            return self._reject(intent, text, say)
        if intent is None or (isinstance(intent, NameOnlyIntent) and intent.player is None):
            return self._reject(intent, text, self.prompts.say("reject.not_understood"))
        return self.handle_intent(intent, heard=text)

    def handle_intent(self, intent: Intent, heard: str | None = None) -> Reply:
        """Act on one intent (from the parser, the voice decision layer, or a log replay)."""
        if intent.player is not None:
            player = self.setup.seat(intent.player)
            if player is None:
                say = self.prompts.say("illegal.unknown_player", player=intent.player)
                return self._reject(intent, heard, say)
            if player != intent.player:
                intent = replace(intent, player=player)
        return self._dispatch(intent, heard)

    def correct(self, bid: BidIntent, heard: str | None = None) -> Reply:
        """ "No, dije cinco quinas": replace one's own bid just accepted, in one breath.

        Logged as the undo plus the new bid, so a replay needs no new intent type."""
        last = self._corrected_step(bid)
        if last is None:
            late = self.prompts.say("reject.correction_late", question=self._question())
            return self._reject(bid, heard, late)
        step = self._steps.pop()
        self._restore(step)
        retry = replace(bid, player=None)
        log, self.log = self.log, None  # logged below as undo + bid, the way replay needs it
        try:
            reply = self._play(retry, heard)
        finally:
            self.log = log
        if not reply.accepted:  # nothing accepted is lost: the first bid stands again
            assert step.move is not None
            self.game.push(step.move)
            self._steps.append(step)
            return self._reject(bid, heard, reply.say)
        self._write(UndoIntent(player=last.actor), heard)
        self._write(retry, heard)
        said = self.speaker.bid(retry.quantity, retry.face, retry.clean)
        say = join(self.prompts.say("announce.correction", bid=said), self._question())
        self._last_say = say
        return replace(reply, intent=bid, say=say)

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

    def _corrected_step(self, bid: BidIntent) -> _Step | None:
        """The bid a correction by `bid.player` would replace: the last accepted line, if it
        is a bid of theirs and no question is pending; else None."""
        last = self._steps[-1] if self._steps else None
        if last is None or not isinstance(last.move, Raise):
            return None
        if self._talk.confirm_new_game or self._talk.confirm_undo:
            return None
        if bid.player is not None and bid.player != last.actor:
            return None
        return last

    # ---------------------------------------------------------------- dispatch

    def _dispatch(self, intent: Intent, heard: str | None) -> Reply:
        """The one place an intent is routed to its handler."""
        talk = self._talk
        match intent:
            case QueryIntent():
                return self._query(intent, heard)
            case RepeatIntent():
                return Reply(heard, intent, True, self._last_say, self.state(),
                             kind=LineKind.QUERY)
            case UndoIntent():
                return self._undo(intent, heard)
            case CorrectionIntent():
                return self.correct(intent.bid, heard)
        if talk.confirm_undo:
            return self._confirm_undo(intent, heard)
        if isinstance(intent, NewGameIntent):
            return self._ask_new_game(intent, heard)
        if talk.confirm_new_game:
            return self._confirm_new_game(intent, heard)
        if talk.rolling and self.game.awaiting is Awaiting.STARTER:
            return self._roll(intent, heard)
        return self._play(intent, heard)

    # ------------------------------------------------------------ game moves

    def _play(self, intent: Intent, heard: str | None) -> Reply:
        """An intent that means a move: check it, push it, announce it."""
        move = self._to_move(intent)
        if isinstance(move, str):
            return self._reject(intent, heard, move)
        gate = narration.not_awaited(move, self.game, self.speaker)
        if gate:
            return self._reject(intent, heard, gate)
        before = self._before()
        actor = move.by or self.game.turn or self.game.addressed
        try:
            outcome = self.game.push(move)
        except IllegalMove as err:
            why = narration.explain(err, move, self.game, self.speaker, said_by=intent.player)
            return self._reject(intent, heard, why)
        say, kind = narration.announce(self.game, outcome, self.speaker, actor)
        what = narration.undone(move, actor, before.game, self.speaker)
        confirm = self._confirmation_for(outcome)
        if isinstance(move, RevealCount | PassCheck):
            actor = None  # the table answered
        reply = self._accept(
            before, intent, heard, say, kind=kind, urgent=kind is LineKind.CHALLENGE,
            actor=actor, what=what, move=move, confirm=confirm,
        )
        self._last_result = outcome if outcome.resolved else None
        return reply

    def _confirmation_for(self, outcome: Outcome) -> str | None:
        """The question asked before undoing this move, if it ended or started a round."""
        p = self.prompts
        if outcome.resolved:
            change = narration.undo_result_change(self.game, outcome, self.speaker)
            return p.say("ask.confirm_undo_result", change=change).strip()
        if isinstance(outcome.move, ChooseStarter):
            return p.say("ask.confirm_undo_start")
        return None

    def _to_move(self, intent: Intent) -> Move | str:
        """The move an intent means now, or the Spanish reason it means nothing."""
        p = self.prompts
        by = intent.player
        game = self.game
        awaiting = game.awaiting
        match intent:
            case BidIntent(quantity=quantity, face=face, clean=clean):
                if face not in range(1, 7):
                    return p.say("reject.bad_face")
                challenge = game.challenge
                if (awaiting is Awaiting.COUNT and challenge is not None
                        and face == challenge.bid.face):
                    # "había cuatro quinas" answers the count (docs/RULES_DECISIONS.md);
                    # "limpias" would say aces were left out of a count that includes them.
                    if clean and challenge.wild_aces:
                        question = narration.count_question(game, self.speaker)
                        return p.say("reject.count_clean_wrong", question=question)
                    return RevealCount(quantity)
                cap = max([MAX_QUANTITY, *(b.quantity for b in game.minimum_bids())])
                if quantity > cap:
                    return p.say("reject.too_many", number=number(cap))
                return Raise(Bid(quantity, Face(face), clean), by=by)
            case NumberIntent(value=value):
                if awaiting is Awaiting.BID:
                    return p.say("reject.incomplete_bid", number=number(value, feminine=True))
                return RevealCount(value)  # outside a count: refused with the pending question
            case DudoIntent():
                return Dudo(by=by)
            case CalzoIntent():
                return Calzo(by=by)
            case PasoIntent():
                return Paso(by=by)
            case YesIntent() | NoIntent():
                yes = isinstance(intent, YesIntent)
                if awaiting is Awaiting.OBLIGAR:
                    return ObligarAnswer(yes, by=by)
                return PassCheck(valid=yes)
            case HandIntent(faces=faces):
                if any(f not in range(1, 7) for f in faces):
                    return p.say("reject.bad_face")
                return PassCheck(hand=tuple(Face(f) for f in faces))
            case ChoiceIntent(value=value):
                if value in ("abierta", "cerrada"):
                    return ChooseModality(Modality(value), by=by)
                return ChooseDirection(Direction(value), by=by)
            case StarterIntent() if by is not None:
                return ChooseStarter(by)
            case NameOnlyIntent() if by is not None:
                if awaiting is Awaiting.STARTER:
                    return ChooseStarter(by)
                if awaiting is Awaiting.BID and by == game.turn:
                    return p.say("reject.name_only", player=by)
                expected = game.turn or game.addressed
                if expected and by != expected:
                    return p.say("illegal.not_your_turn_speaker", speaker=by, player=expected)
                return self._pending_or("reject.not_understood")
        return p.say("reject.not_understood")

    def _pending_or(self, key: str) -> str:
        if self.game.awaiting in (Awaiting.BID, Awaiting.GAME_OVER):
            return self.prompts.say(key)
        return self.prompts.say("reject.answer_first", question=self._question())

    # ----------------------------------------------------------- game lifecycle

    def _start_game(self, games: int) -> None:
        """A fresh game; the `games`-th random draw of a seed is always the same (replay)."""
        policy = self.setup.starter
        starter = self.setup.fixed_starter
        self._drawn = policy == StarterPolicy.RANDOM
        if self._drawn:
            starter = random.Random(f"{self.setup.seed}:{games}").choice(self.players)
        self.game = Game(
            list(self.players), self.rules, starter=starter, direction=self.setup.fixed_direction
        )
        rolling = policy == StarterPolicy.ROLL
        self._talk = _Talk(rolling=rolling, rollers=self.players if rolling else (), games=games)
        self._corrected_at = None  # a new game is no correction

    def _game_start_line(self) -> str:
        if self._drawn and self.game.awaiting is not Awaiting.STARTER:
            first = self.prompts.say("announce.starter_random", player=self._opener())
            if self.game.awaiting is Awaiting.BID:
                return first
            return join(first, self._question())
        return self._question()

    def _ask_new_game(self, intent: Intent, heard: str | None) -> Reply:
        before = self._before()
        self._talk = replace(self._talk, confirm_new_game=True)
        say = self.prompts.say("ask.confirm_new_game")
        what = self.prompts.say("undone.question")
        return self._accept(before, intent, heard, say, kind=LineKind.QUESTION,
                            actor=intent.player, what=what)

    def _confirm_new_game(self, intent: Intent, heard: str | None) -> Reply:
        p = self.prompts
        if isinstance(intent, YesIntent | NoIntent):
            before = self._before()
            if isinstance(intent, YesIntent):
                self._start_game(games=self._talk.games + 1)
                say = join(p.say("opening.new_game"), self._game_start_line())
                return self._accept(
                    before, intent, heard, say, kind=LineKind.QUESTION, actor=intent.player,
                    what=p.say("undone.new_game"), confirm=p.say("ask.confirm_undo_new_game"),
                )
            self._talk = replace(self._talk, confirm_new_game=False)
            say = join(p.say("announce.cancelled"), self._question())
            return self._accept(before, intent, heard, say, kind=LineKind.QUESTION,
                                actor=intent.player, what=p.say("undone.question"))
        question = p.say("ask.confirm_new_game")
        return self._reject(intent, heard, p.say("reject.answer_first", question=question))

    def _roll(self, intent: Intent, heard: str | None) -> Reply:
        """The starter roll: each player says their face; As is highest; ties roll again."""
        p = self.prompts
        talk = self._talk
        if isinstance(intent, StarterIntent) or (
            isinstance(intent, NameOnlyIntent) and intent.player
        ):
            self._talk = replace(talk, rolling=False)
            reply = self._play(intent, heard)
            if not reply.accepted:
                self._talk = talk
            else:
                self._steps[-1] = replace(self._steps[-1], talk=talk)
            return reply
        roller = talk.rollers[len(talk.rolls)]
        if intent.player is not None and intent.player != roller:
            say = p.say("illegal.not_your_turn_speaker", speaker=intent.player, player=roller)
            return self._reject(intent, heard, say)
        face = _rolled_face(intent)
        if face is None:
            again = p.say("ask.roll", player=roller)
            return self._reject(intent, heard, join(p.say("reject.roll_face"), again))
        before = self._before()
        what = p.say("undone.roll", player=roller)
        rolls = (*talk.rolls, face)
        if len(rolls) < len(talk.rollers):
            self._talk = replace(talk, rolls=rolls)
            return self._accept(before, intent, heard, self._question(), kind=LineKind.QUESTION,
                                actor=roller, what=what)
        rank = [7 if f == 1 else f for f in rolls]
        best = max(rank)
        top = tuple(name for name, r in zip(talk.rollers, rank, strict=True) if r == best)
        if len(top) > 1:
            self._talk = replace(talk, rollers=top, rolls=())
            tie = p.say("announce.roll_tie", players=join_words(top))
            return self._accept(before, intent, heard, join(tie, self._question()),
                                kind=LineKind.QUESTION, actor=roller, what=what)
        self._talk = replace(talk, rolling=False, rolls=rolls)
        outcome = self.game.push(ChooseStarter(top[0]))
        said = narration.roll_result(talk.rollers, rolls, top[0], self.speaker)
        # The roll already named the starter: next only the starter's question, if any.
        say = said if self.game.awaiting is Awaiting.BID else join(said, self._question())
        return self._accept(
            before, intent, heard, say, kind=LineKind.QUESTION, actor=roller, what=what,
            move=outcome.move, confirm=self._confirmation_for(outcome),
        )

    # ------------------------------------------------------------------ undo

    def _undo(self, intent: Intent, heard: str | None) -> Reply:
        """ "Me equivoqué": take back the last accepted line (asking first past a round)."""
        p = self.prompts
        if not self._steps:
            return self._reject(intent, heard, p.say("reject.nothing_to_undo"))
        step = self._steps[-1]
        if intent.player is not None and step.actor is not None and intent.player != step.actor:
            say = p.say("reject.undo_not_yours", player=intent.player, other=step.actor)
            return self._reject(intent, heard, say)
        if step.confirm is not None and not self._talk.confirm_undo:
            self._talk = replace(self._talk, confirm_undo=True)
            self._write(intent, heard)
            say = step.confirm
            self._last_say = say
            return Reply(heard, intent, True, say, self.state(), kind=LineKind.QUESTION)
        return self._take_back(intent, heard)

    def _confirm_undo(self, intent: Intent, heard: str | None) -> Reply:
        p = self.prompts
        if isinstance(intent, YesIntent):
            return self._take_back(intent, heard)
        if isinstance(intent, NoIntent):
            self._talk = replace(self._talk, confirm_undo=False)
            self._write(intent, heard)
            say = join(p.say("announce.undo_cancelled"), self._question())
            self._last_say = say
            return Reply(heard, intent, True, say, self.state(), kind=LineKind.QUESTION)
        return self._reject(intent, heard, p.say("reject.answer_first", question=self._question()))

    def _take_back(self, intent: Intent, heard: str | None) -> Reply:
        step = self._steps.pop()
        self._restore(step)
        self._last_result = None
        if isinstance(step.move, Raise):
            self._taken_back = (len(self.game.move_stack), step.move.bid)
        if isinstance(step.move, RevealCount):
            self._count_taken_back = (len(self.game.move_stack), step.move.count)
        self._corrected_at = len(self.game.move_stack)
        say = join(self.prompts.say("announce.undone", what=step.what), self._question())
        self._write(intent, heard)
        self._last_say = say
        return Reply(heard, intent, True, say, self.state(), kind=LineKind.QUESTION)

    def _restore(self, step: _Step) -> None:
        self.game = step.game
        while len(self.game.move_stack) > step.moves:
            self.game.pop()
        self._talk = step.talk

    # ---------------------------------------------------------------- queries

    def _query(self, intent: QueryIntent, heard: str | None) -> Reply:
        say = narration.answer_query(self.game, self.speaker, intent.what, intent.player)
        return Reply(heard, intent, True, join(say), self.state(), kind=LineKind.QUERY)

    # ---------------------------------------------------------------- plumbing

    def _question(self) -> str:
        """The line that asks for what the dialogue waits for now."""
        talk = self._talk
        if talk.confirm_undo and self._steps and self._steps[-1].confirm:
            return self._steps[-1].confirm
        if talk.confirm_new_game:
            return self.prompts.say("ask.confirm_new_game")
        return narration.question(self.game, self.speaker, roller=self._roller())

    def _before(self) -> _Before:
        return _Before(self.game, len(self.game.move_stack), self._talk)

    def _accept(
        self,
        before: _Before,
        intent: Intent,
        heard: str | None,
        say: str,
        *,
        kind: LineKind = LineKind.ROUTINE,
        urgent: bool = False,
        actor: str | None = None,
        what: str = "",
        move: Move | None = None,
        confirm: str | None = None,
    ) -> Reply:
        self._steps.append(
            _Step(before.game, before.moves, before.talk, actor, what, move, confirm)
        )
        self._last_result = None
        self._write(intent, heard)
        self._last_say = say
        if self.game.awaiting is Awaiting.GAME_OVER:
            kind = LineKind.GAME_OVER
        return Reply(heard, intent, True, say, self.state(), kind=kind, urgent=urgent)

    def _write(self, intent: Intent, heard: str | None) -> None:
        """Log before speaking: the reply is returned only after the line is on disk."""
        if self.log is not None:
            self.log.append({"intent": intent.to_json(), "heard": heard})

    def _reject(self, intent: Intent | None, heard: str | None, say: str) -> Reply:
        return Reply(heard, intent, False, say, self.state(), kind=LineKind.REJECT)

    def _parse(self, text: str) -> Intent | None:
        """The line's intent, or None when even its best reading is a guess."""
        if self._parser is None:
            self._parser = Parser(list(self.players))
        parsed = self._parser.parse(text)
        return parsed.intent if parsed.score >= self.accept_score else None

    def _roller(self) -> str | None:
        talk = self._talk
        if talk.rolling and self.game.awaiting is Awaiting.STARTER:
            return talk.rollers[len(talk.rolls)]
        return None

    def _opener(self) -> str | None:
        return self.game.turn or self.game.addressed


def _rolled_face(intent: Intent) -> int | None:
    """A starter-roll answer: "quina", "cinco", "un as" -> the face, else None."""
    match intent:
        case NumberIntent(value=value) if 1 <= value <= 6:
            return value
        case BidIntent(quantity=1, face=face):
            return face
    return None
