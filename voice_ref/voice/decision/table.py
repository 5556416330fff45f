"""The live loop's side: what the referee knows turned into a `GameView`, a verdict into
what the loop does (`Heard`), and the table's "no"s to "¿Dijiste …?" remembered."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from voice_ref.language.expecting import Expecting
from voice_ref.language.intents import (
    BidIntent,
    Intent,
    NoIntent,
    NumberIntent,
)
from voice_ref.language.inventory import Phrase
from voice_ref.rules.bid import Bid
from voice_ref.rules.counting import count_logp, plausible_count
from voice_ref.voice.asr.base import Utterance
from voice_ref.voice.decision.decider import Decider
from voice_ref.voice.decision.thresholds import thresholds_from
from voice_ref.voice.decision.values import Action
from voice_ref.voice.decision.view import (
    CONFIRMATION_KINDS,
    GameView,
    any_answer,
    bare,
    is_name,
    likely_raises,
)
from voice_ref.voice.ports import GamePort, RefereePort

if TYPE_CHECKING:
    from voice_ref.config import Config


@dataclass(frozen=True)
class Heard:
    """What the loop concluded about one utterance (the decision layer's verdict)."""

    action: Action
    text: str  # what was heard (best hypothesis)
    intent: Intent | None = None  # an Intent for accept/confirm
    score: float | None = None
    question: str = ""  # for confirm: "¿Dijiste cinco quinas?"; for reask: "Repitan"
    why: str = ""  # the decision's reason (`Decision.why`), for the operator and the bench
    passed_over: Intent | None = None  # for ignore: `Decision.passed_over`


DeciderFn = Callable[[Utterance, RefereePort, str], Heard]


def heard_record(utterance: Utterance, heard: Heard) -> dict[str, object]:
    """One decided utterance as JSON: what the loop did and why, beside what the
    recognizer heard (free transcript, best hypotheses, best-scored phrases before they
    pooled). `play --heard` and the games bench's `--rows` write it, so a table that kept
    asking can be understood afterwards."""
    return {
        "start_s": round(utterance.start_s, 2),
        "end_s": round(utterance.end_s, 2),
        "action": str(heard.action),
        "text": heard.text,
        "intent": None if heard.intent is None else heard.intent.to_json(),
        "score": heard.score,
        "why": heard.why,
        # an ignore's sure game reading, passed over as talk (`Decision.passed_over`)
        "passed_over": None if heard.passed_over is None else heard.passed_over.to_json(),
        "free": utterance.free_text,
        "fluency": utterance.free_fluency,
        "hypotheses": [[h.text, h.score] for h in utterance.hypotheses[:4]],
        "scored": utterance.extra.get("scored", []),  # Whisper only
        # Whisper only: the speech level as recorded (a quiet microphone is below -30 dBFS
        # and raised to it, `asr.level`)
        "level_dbfs": utterance.extra.get("level_dbfs"),
        "clipped_share": utterance.extra.get("clipped_share"),  # Whisper only: at full scale
    }


def _bid_intent(bid: Bid) -> BidIntent:
    return BidIntent(quantity=bid.quantity, face=int(bid.face), clean=bid.clean)


@dataclass(frozen=True, slots=True)
class Refusals:
    """The table's "no"s to the loop's "¿Dijiste …?" at one question (`moves` moves
    played, the referee expecting `expecting`): the calls refused, once per "no" (a "no"
    to a question about no call refuses nothing but is still a correction: the next
    call is wary). It holds until the game moves or the question changes."""

    moves: int
    expecting: str
    refused: tuple[Intent, ...] = ()
    corrected: bool = False

    def with_no(self, asked: Intent | None) -> Refusals:
        refused = self.refused if asked is None else (*self.refused, bare(asked))
        return replace(self, refused=refused, corrected=True)


def game_view(
    referee: RefereePort,
    expecting: str,
    refusals: Refusals | None = None,
    phrases: Sequence[Phrase] | None = None,
) -> GameView:
    """What the game allows now: the kinds of the phrases expected (`phrases`: the
    referee's allowed phrases, when the caller has them already), the dice on the table,
    the likely raises, the call just taken back, the calls refused at this question
    (`refusals`), and whether the table just corrected the referee (an undo, or a "no"
    since the game last moved): wary."""
    if expecting == referee.expecting:
        allowed = referee.allowed_phrases() if phrases is None else phrases
        kinds = frozenset(p.intent.type for p in allowed) or None
    else:  # a confirmation's sí / no
        kinds = CONFIRMATION_KINDS
    game = referee.game
    likely: frozenset[Intent] = frozenset()
    ceilings: dict[tuple[int, bool], float] = {}
    least: dict[tuple[int, bool], int] = {}
    if expecting == Expecting.TURN:
        standing = None if game.bid is None else _bid_intent(game.bid)
        minimums = game.minimum_bids()
        likely = likely_raises(standing, map(_bid_intent, minimums))
        ceilings = bid_ceilings(game, minimums)
        if standing is not None:  # an opening bid is never too low
            least = {(int(b.face), b.clean): b.quantity for b in minimums}
    odds: dict[int, float] = {}
    if expecting == Expecting.COUNT and game.challenge is not None:
        odds = count_odds(game.dice_on_table, wild_aces=game.challenge.wild_aces)
    own = expecting == referee.expecting  # not the answer to a question of the loop
    nos = refusals if own and refusals is not None else Refusals(0, expecting)
    return GameView(
        kinds=kinds, dice_on_table=game.dice_on_table, likely=likely,
        # The loop's "¿Dijiste …?" takes any sí or no: the referee judges the call asked
        # about when it gets it. Judged as a move, a "sí" was illegal, and an illegal
        # reading is accepted at the plain share to be explained, without the doubt
        # rule: "no" heard as "sí" at 0.63 (free transcript "Congeo") committed a call.
        is_legal=referee.is_legal if own else any_answer,
        taken_back=taken_back(referee) if own else None,
        refused=nos.refused,
        wary=own and (nos.corrected or referee.corrected()),
        confirming=not own,
        ceilings=ceilings,
        minimums=least,
        count_logp=odds,
    )


def count_odds(dice: int, *, wild_aces: bool) -> dict[int, float]:
    """Per possible count, its log-probability against the likeliest count's (<= 0)."""
    logp = {k: count_logp(k, dice, wild_aces=wild_aces) for k in range(dice + 1)}
    top = max(logp.values())
    return {k: v - top for k, v in logp.items()}


def bid_ceilings(game: GamePort, minimums: Iterable[Bid]) -> dict[tuple[int, bool], float]:
    """Per (face, clean) of each legal raise (`minimums`, the game's minimum bids): the most
    a bid plausibly says now, the dice's `plausible_count`, or one over the minimum raise
    when the bidding is already past it (a high standing bid must not make every raise
    implausible)."""
    dice = game.dice_on_table
    return {
        (int(low.face), low.clean): max(
            plausible_count(dice, wild_aces=game.aces_count_for(low)), low.quantity + 1
        )
        for low in minimums
    }


def taken_back(referee: RefereePort) -> Intent | None:
    """The bid or the count the table just took back, as the reading not to offer again."""
    bid = referee.taken_back()
    if bid is not None:
        return _bid_intent(bid)
    count = referee.count_taken_back()
    return None if count is None else NumberIntent(value=count)


def phrases_now(referee: RefereePort) -> tuple[Phrase, ...]:
    """The phrases a recognizer should consider now: the referee's allowed phrases minus
    the readings that cannot answer (counts and bids above the dice on the table). A
    3-player table listens for 15 quantities, not 60: a smaller search, faster answers."""
    allowed = referee.allowed_phrases()
    view = game_view(referee, referee.expecting, phrases=allowed)
    return tuple(p for p in allowed if view.possible(p.intent))


class TableDecider:
    """The live loop's decider for one table (N-best + what the game knows → accept /
    confirm / ignore / hold / reask). One `Decider` per set of players."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self._deciders: dict[tuple[str, ...], Decider] = {}
        # What our last "¿Dijiste …?" asked about: the loop only ever asks about the latest
        # confirmation (`VoiceSession` holds one a moment, and drops it if a call follows).
        self._asked: Intent | None = None
        self._refusals: Refusals | None = None

    def _decider(self, referee: RefereePort) -> Decider:
        from voice_ref.language.parser import Parser

        players = tuple(referee.players)
        decider = self._deciders.get(players)
        if decider is None:
            decider = Decider(Parser(players), thresholds_from(self.config))
            self._deciders[players] = decider
        return decider

    def _refusals_now(self, referee: RefereePort) -> Refusals:
        """The "no"s at the question now (none once the game moved or the question changed)."""
        moves, expecting = len(referee.game.move_stack), referee.expecting
        nos = self._refusals
        if nos is None or (nos.moves, nos.expecting) != (moves, expecting):
            nos = self._refusals = Refusals(moves, expecting)
        return nos

    def __call__(self, utterance: Utterance, referee: RefereePort, expecting: str) -> Heard:
        nos = self._refusals_now(referee)
        decider = self._decider(referee)
        verdict = decider(utterance, game_view(referee, expecting, nos))
        if expecting == referee.expecting:
            if verdict.action == Action.CONFIRM:  # the loop asks about the latest one
                self._asked = verdict.intent
        elif verdict.action == Action.ACCEPT and isinstance(verdict.intent, NoIntent):
            self._refusals = nos.with_no(self._asked)  # "no" to our "¿Dijiste …?"
        elif verdict.action == Action.IGNORE:  # no answer to our "¿Dijiste …?": a call?
            call = decider.call_in_free_transcript(
                utterance, game_view(referee, referee.expecting, nos)
            )
            if call is not None:  # asked about in its turn: a question, never an action
                self._asked = call
                words = phrase_for(referee, call) or utterance.free_text.strip(" .,;:!?¡¿")
                question = confirm_question(referee, call, words)
                return Heard(Action.CONFIRM, words, call, None, question,
                             "a call instead of sí or no")  # no share: no phrase scored it
        text = verdict.heard or (utterance.best.text if utterance.best else "")
        accepted = verdict.action == Action.ACCEPT
        if expecting == Expecting.TURN and accepted and is_name(verdict.intent):
            # Held, not answered: the referee would speak ("¿Sí, Ana?") over the call that
            # usually follows the name; the decider gives the name to that call.
            return Heard(Action.IGNORE, text, verdict.intent, verdict.score, why="a name held")
        question = ""
        if verdict.action == Action.CONFIRM:
            question = confirm_question(referee, verdict.intent, text)
        elif verdict.action == Action.REASK:
            question = referee.prompts.say("ask.say_again")
        return Heard(verdict.action, text, verdict.intent, verdict.score, question, verdict.why,
                     verdict.passed_over)

    def drop_fragment(self, referee: RefereePort) -> str:
        """The wait for a fragment's continuation ran out: forget it and return the
        question to ask ("" when nothing was held)."""
        if self._decider(referee).drop_fragment():
            return referee.prompts.say("ask.say_again")
        return ""

    def ask_about(self, referee: RefereePort, heard: Heard, why: str) -> Heard:
        """`ask_about`, remembered as our latest question: a "no" to it then counts against
        that reading as against the decider's own questions."""
        asked = ask_about(referee, heard, why)
        if asked is not heard:
            self._asked = asked.intent
        return asked


@runtime_checkable
class HoldsFragments(Protocol):
    """A decider that may hold a fragment ("hold"); the loop calls `drop_fragment` when
    no continuation came in time."""

    def drop_fragment(self, referee: RefereePort) -> str: ...


@runtime_checkable
class AsksAbout(Protocol):
    """A decider that keeps track of its questions; the loop turns a verdict into one
    through it (`ask_about`)."""

    def ask_about(self, referee: RefereePort, heard: Heard, why: str) -> Heard: ...


def ask_about(referee: RefereePort, heard: Heard, why: str) -> Heard:
    """An accepted verdict as a question ("¿Dijiste una?"), for a reason only the loop
    knows (a count said aloud that goes back down); any other verdict as it is."""
    if heard.action != Action.ACCEPT or heard.intent is None:
        return heard
    question = confirm_question(referee, heard.intent, heard.text)
    return replace(heard, action=Action.CONFIRM, question=question, why=why)


def make_decider(config: Config) -> TableDecider:
    """N-best + what the game knows → accept / confirm / ignore / hold / reask, for one table."""
    return TableDecider(config)


def phrase_for(referee: RefereePort, intent: Intent) -> str | None:
    """The first phrase the referee allows now for `intent` (its player aside): its own
    words for a call ("dudo"), not the recognizer's ("Dudo.")."""
    return next((p.text for p in referee.allowed_phrases() if bare(p.intent) == bare(intent)),
                None)


def confirm_question(referee: RefereePort, intent: Intent | None, heard: str) -> str:
    """ "¿Dijiste cuatro quinas?" in the referee's own words for a bid, and for the count
    after a challenge the count with the face counted (everyone at the table is looking
    at those dice; "¿Dijiste son 4?" echoed Whisper's digits); else what was heard."""
    challenge = referee.game.challenge
    if isinstance(intent, BidIntent):
        words = referee.speaker.bid(intent.quantity, intent.face, intent.clean)
    elif isinstance(intent, NumberIntent) and intent.value > 0 and challenge is not None:
        words = referee.speaker.bid(intent.value, challenge.bid.face)
    else:
        words = heard
    return referee.prompts.say("ask.did_you_say", words=words)
