"""What the game knows now, as the decision layer sees it (`GameView`): which answers are
possible, which are likely, what the dice make plausible, what the table refused."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

from voice_ref.language.intents import (
    BidIntent,
    CorrectionIntent,
    DudoIntent,
    Intent,
    NameOnlyIntent,
    NumberIntent,
    names_its_speaker,
)
from voice_ref.voice.asr.base import ListenContext
from voice_ref.voice.decision.thresholds import Thresholds

# What can answer the loop's own "¿Dijiste …?": sí / no, and what never moves the game
# (a name, "repite", "me equivoqué", a question to the referee).
CONFIRMATION_KINDS = frozenset({"yes", "no", "none", "repeat", "undo", "query"})


def any_answer(_intent: Intent) -> bool:
    """Legality when nothing rules a reading out: no game state, or the loop's own
    "¿Dijiste …?" (any sí or no answers it)."""
    return True


@dataclass(frozen=True, slots=True)
class GameView:
    """What the game knows now. `kinds` = intent types that can answer (None: any);
    `dice_on_table` bounds counts and bids; `likely` are the likely raises."""

    kinds: frozenset[str] | None = None
    dice_on_table: int | None = None
    likely: frozenset[Intent] = frozenset()
    is_legal: Callable[[Intent], bool] = any_answer
    taken_back: Intent | None = None  # just undone ("me equivoqué"): not that reading again
    # The calls the table said "no" to at this question ("¿Dijiste …?" "no"), once per
    # "no": a soft prior (`Thresholds.refused_penalty`), never a ban, so a wrong "no"
    # cannot lock the table out of its own call.
    refused: tuple[Intent, ...] = ()
    # The table just corrected the referee here (an undo, or "no" to "¿Dijiste …?") and the
    # game has not moved since: a game move needs `accept_doubted` (package docstring, step 4).
    wary: bool = False
    # The answer to the loop's own "¿Dijiste …?": a "no" there costs the table what the
    # question asked again costs (the call is said again), so nothing holds it back.
    confirming: bool = False
    # Per (face, clean): the highest quantity a bid plausibly has now (`bid_ceilings`).
    ceilings: Mapping[tuple[int, bool], float] = field(default_factory=dict)
    # Per (face, clean): the least quantity that beats the standing bid (the game's
    # minimum bids; empty when no bid is awaited).
    minimums: Mapping[tuple[int, bool], int] = field(default_factory=dict)
    # Asked for the count: per count, its binomial log-probability minus the likeliest
    # count's (<= 0), from the dice on the table (the referee never sees them).
    count_logp: Mapping[int, float] = field(default_factory=dict)

    @classmethod
    def of_context(cls, context: ListenContext, **kw) -> GameView:  # noqa: ANN003
        kinds = frozenset(p.intent.type for p in context.phrases) if context.phrases else None
        return cls(kinds=kinds, **kw)

    def possible(self, intent: Intent) -> bool:
        """Could this be an answer now, whatever its legality? (see package docstring, step 2)"""
        if self.kinds is not None and intent.type not in self.kinds:
            return False
        if bare(intent) == self.taken_back:
            return False
        match intent:
            case (
                BidIntent(quantity=amount)
                | CorrectionIntent(quantity=amount)
                | NumberIntent(value=amount)
            ):
                return self.dice_on_table is None or amount <= self.dice_on_table
        return True

    def is_likely(self, intent: Intent) -> bool:
        return bare(intent) in self.likely

    def refusal_nats(self, intent: Intent, limits: Thresholds) -> float:
        """What the table's "no"s at this question say against `intent` (nats, <= 0)."""
        return -limits.refused_penalty * self.refused.count(bare(intent))

    def implausible_nats(self, intent: Intent, limits: Thresholds) -> float:
        """What the dice on the table say against a bid this high (nats, <= 0)."""
        if not isinstance(intent, (BidIntent, CorrectionIntent)):
            return 0.0
        ceiling = self.ceilings.get((intent.face, intent.clean))
        if ceiling is None or intent.quantity <= ceiling:
            return 0.0
        return -limits.implausible_nats * (intent.quantity - ceiling)

    def far_below_nats(self, intent: Intent, limits: Thresholds) -> float:
        """What the standing bid says against a bid far below the least raise (nats,
        <= 0): players who misjudge a raise say the same bid again or one less
        (`Thresholds.illegal_reach`), nobody says "una quina" over "cuatro sextos"; such
        a reading is a call misheard ("dudo" as "una quina"), and explaining a rule to a
        player who never broke it costs the table two lines."""
        if not isinstance(intent, BidIntent):
            return 0.0
        least = self.minimums.get((intent.face, intent.clean))
        if least is None or intent.quantity >= least - limits.illegal_reach:
            return 0.0
        return -limits.far_below_nats

    def count_nats(self, intent: Intent, limits: Thresholds) -> float:
        """What the odds of the dice say about a count this far from the likeliest."""
        if not isinstance(intent, NumberIntent):
            return 0.0
        return limits.count_prior * self.count_logp.get(intent.value, 0.0)


def bare(intent: Intent) -> Intent:
    """The call without the name of who said it ("Ana, dudo" is "dudo"); a name that is
    what the call is about stays ("parte Ana" is no "parte Beto")."""
    return replace(intent, player=None) if names_its_speaker(intent) else intent


def is_name(intent: Intent | None) -> bool:
    return isinstance(intent, NameOnlyIntent) and intent.player is not None


def likely_raises(standing: BidIntent | None, minimums: Iterable[BidIntent]) -> frozenset[Intent]:
    """The minimum raises, one more of the standing face and, over a standing bid, dudo:
    what players mostly say. (A question to the referee, "¿quién va?", is rare: offered
    the decorated phrases, Whisper gave it 0.31 of an espeak "dudo" that then went
    unaccepted.)"""
    likely: set[Intent] = {bare(b) for b in minimums}
    if standing is not None:
        likely.add(
            BidIntent(quantity=standing.quantity + 1, face=standing.face, clean=standing.clean)
        )
        likely.add(DudoIntent())
    return frozenset(likely)
