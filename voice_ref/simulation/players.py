"""The simulated players: what they say next, given what the referee has done and said.

They follow the intended game and react as people do: they answer "¿Dijiste ...?" with sí or
no (by understanding the words of the question), say "me equivoqué" when the referee took
something nobody meant, say a line again (more carefully) when it was ignored, refused or
asked again, and answer counts and pass checks with the true dice. What to say next is worked
out from the referee's game itself, so any mishap — a wrong bid taken, a correct one undone —
is noticed and mended the way a table would.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from voice_ref.dialogue.prompts import Prompts
from voice_ref.dialogue.protocol import Reply
from voice_ref.dialogue.referee import EXPECTING_WHILE_AWAITING
from voice_ref.language.expecting import Expecting
from voice_ref.language.intents import (
    BidIntent,
    Intent,
    NoIntent,
    NumberIntent,
    UndoIntent,
    YesIntent,
)
from voice_ref.language.parser import Parser
from voice_ref.rules.game import Awaiting, Game
from voice_ref.rules.moves import Move, ObligarAnswer, Raise
from voice_ref.simulation.phrasing import Kind, Line, Phrasing
from voice_ref.simulation.script import IntendedGame, plain

UNDO_WORDS = ("me equivoqué", "corrige")  # both are grammar phrases (a test checks)
GIVE_UP_AFTER = 6  # corrections in a row that do not get the game back on track: give up


@dataclass
class TableStats:
    """What the players had to do to get their game refereed."""

    utterances: int = 0  # lines spent on intended actions: tries, repeats, sí/no, corrections
    extra_utterances: int = 0  # queries, table talk and deliberately illegal raises
    wrong_accepts: int = 0  # the referee changed the game in a way nobody meant
    confirmations: int = 0  # "¿Dijiste ...?" questions
    corrections: int = 0  # "me equivoqué" said
    repeats: int = 0  # intended actions said more than once
    refused_extras: int = 0  # illegal raises the referee refused (as it must)
    # Calls the referee refused although what was said was legal: heard as another call
    # ("dudo" as "una quina" over "dos cuadras") or from another player, and explained to
    # a player who broke no rule; the game does not change, so `wrong_accepts` misses them.
    refused_calls: int = 0
    # Replies that started > 0.25 s before the end of the line's speech: over the player, or
    # at the same moment as a repeat the player began while the referee spoke.
    interruptions: int = 0
    latencies_ms: list[float] = field(default_factory=list)


def same_meaning(a: Intent | None, b: Intent | None) -> bool:
    """Whether two intents mean the same (a name said before a call does not matter). A
    count is asked back with its face ("¿Dijiste cuatro quinas?"): the quantity is it."""
    if a is None or b is None:
        return a is b
    if isinstance(a, BidIntent) and isinstance(b, NumberIntent):
        a = NumberIntent(value=a.quantity)
    if a.type == "starter" or b.type == "starter":
        return a.to_json() == b.to_json()
    strip = lambda i: {k: v for k, v in i.to_json().items() if k != "player"}  # noqa: E731
    return strip(a) == strip(b)


class Table:
    """Everyone at the table, speaking one line at a time."""

    def __init__(self, intended: IntendedGame, phrasing: Phrasing, prompts: Prompts,
                 rng: random.Random) -> None:
        self.intended = intended
        self.phrasing = phrasing
        self.rng = rng
        self.stats = TableStats()
        self._target = [plain(m) for m in intended.moves]
        self._parser = Parser(list(intended.players))
        before, _, after = prompts.template("ask.did_you_say").partition("{words}")
        self._did_you_say = (before, after)
        self._new_game_question = prompts.say("ask.confirm_new_game")
        self._say_again = prompts.say("ask.say_again")
        self._attempts: dict[int, int] = {}
        self._extras: dict[int, list[Line]] = {}
        self._confirming: tuple[Line, Intent | None] | None = None  # the line, the words' intent
        self._new_game_open = False
        self._last: Line | None = None
        self._failed_corrections = 0
        self.gave_up = False

    # -- speaking ------------------------------------------------------------------------

    def next_line(self, game: Game) -> Line | None:
        """The next thing somebody says, or None when the game is over as intended."""
        moves = [plain(m) for m in game.move_stack]
        if self._confirming is not None:
            line, words = self._confirming
            # A correction is confirmed like a call ("¿Dijiste corrige?"): its speaker says sí.
            yes = line.kind in (Kind.ACTION, Kind.CORRECTION) and same_meaning(words, line.meant)
            answer = "sí" if yes else "no"
            return self._spoken(Line(line.speaker, answer, Kind.ANSWER,
                                     YesIntent() if yes else NoIntent()))
        if self._new_game_open:
            return self._spoken(Line(self._anyone(), "no", Kind.ANSWER, NoIntent()))
        if moves != self._target[: len(moves)]:
            self._failed_corrections += 1
            if self._failed_corrections > GIVE_UP_AFTER:
                self.gave_up = True
                return None
            speaker = self._last.speaker if self._last else self._anyone()
            self.stats.corrections += 1
            return self._spoken(Line(speaker, self.rng.choice(UNDO_WORDS), Kind.CORRECTION,
                                     UndoIntent()))
        self._failed_corrections = 0
        i = len(moves)
        if i == len(self._target):
            return None
        if i not in self._extras:
            self._extras[i] = self._plan_extras(i, game)
        if self._extras[i]:
            return self._spoken(self._extras[i].pop(0))
        action = self.intended.actions[i]
        tries = self._attempts[i] = self._attempts.get(i, 0) + 1
        if tries == 2:
            self.stats.repeats += 1
        if isinstance(action.move, ObligarAnswer):
            text = self.phrasing.obligar(action.move.obligate)
        else:
            text = self.phrasing.say(action.speaker, action.intent,
                                     EXPECTING_WHILE_AWAITING[game.awaiting], plain=tries > 1)
        return self._spoken(Line(action.speaker, text, Kind.ACTION, action.intent))

    def _plan_extras(self, i: int, game: Game) -> list[Line]:
        """Before some actions: a question to the referee, table talk, or a raise too low;
        before the count, talk while the dice are shown. (No draw when a style has none:
        the same seed plays the same games.)"""
        action = self.intended.actions[i]
        style = self.phrasing.style
        if game.awaiting is Awaiting.COUNT and style.count_talk:
            if self.rng.random() < style.count_talk:
                return [Line(self._anyone(), self.phrasing.count_talk(), Kind.TALK, None)]
            return []
        if game.awaiting is not Awaiting.BID:
            return []
        roll = self.rng.random()
        if roll < style.talk:
            others = [p for p in self.intended.players if p != action.speaker] or [action.speaker]
            return [Line(self.rng.choice(others), self.phrasing.talk(), Kind.TALK, None)]
        roll -= style.talk
        if roll < style.query:
            query = self.phrasing.query()
            return [Line(action.speaker, self.phrasing.say(action.speaker, query, Expecting.TURN),
                         Kind.QUERY, query)]
        roll -= style.query
        if roll < style.illegal_raise and isinstance(action.move, Raise):
            low = self.phrasing.illegal_raise(game)
            if low is not None:
                text = self.phrasing.say(action.speaker, low, Expecting.TURN, plain=True)
                return [Line(action.speaker, text, Kind.ILLEGAL, low)]
        return []

    def _spoken(self, line: Line) -> Line:
        if line.kind in (Kind.QUERY, Kind.TALK, Kind.ILLEGAL):
            self.stats.extra_utterances += 1
        else:
            self.stats.utterances += 1
        if line.kind is not Kind.ANSWER:
            self._last = line
        return line

    def _anyone(self) -> str:
        return self.rng.choice(self.intended.players)

    # -- listening -----------------------------------------------------------------------

    def observe(self, line: Line, before: list[Move], game: Game, replies: list[Reply],
                said: list[str]) -> None:
        """What the referee did with `line`: the game's moves before and now, the protocol
        replies it produced and every line it said meanwhile."""
        after = [plain(m) for m in game.move_stack]
        if after != before and after != self._meant_after(line, before):
            self.stats.wrong_accepts += 1
        refused = after == before and any(not r.accepted for r in replies)
        if refused and line.kind is Kind.ILLEGAL:
            self.stats.refused_extras += 1
        elif refused and line.kind is Kind.ACTION:
            self.stats.refused_calls += 1
        questions = [s for s in said if self._question_words(s) is not None]
        self.stats.confirmations += len(questions)
        # A question is pending only if it was the last thing said: one line heard as
        # several utterances can be asked about and then taken ("¿Dijiste tres?" … "Había
        # tres"); a player answering that "no" would be answering nothing, forever.
        if said and said[-1] in questions:
            words = self._question_words(said[-1])
            asked_for = self._confirming[0] if self._confirming else line
            self._confirming = (asked_for, self._parser.parse(words or "").intent)
        elif replies or any(self._say_again in s for s in said):
            self._confirming = None
        if replies:
            self._new_game_open = self._new_game_question in replies[-1].say

    def _meant_after(self, line: Line, before: list[Move]) -> list[Move]:
        if line.kind is Kind.ANSWER and isinstance(line.meant, YesIntent):
            # "sí" means what the question was about (still pending while it is observed)
            line = self._confirming[0] if self._confirming else line
        if line.kind is Kind.CORRECTION:
            return before[:-1]
        if line.kind is Kind.ACTION or (
            line.kind is Kind.ANSWER and isinstance(line.meant, YesIntent)
        ):
            i = len(before)
            return [*before, self._target[i]] if i < len(self._target) else before
        return before

    def _question_words(self, said: str) -> str | None:
        before, after = self._did_you_say
        if said.startswith(before) and said.endswith(after):
            return said[len(before) : len(said) - len(after)]
        return None
