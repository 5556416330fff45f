"""Which bids may follow which: the raise order of every preset, in one place.

The whole raise order is expressed as the list of *minimum bids*: for each kind
of bid (face, and limpio / sucio in `cachito`) the lowest legal quantity. A bid
is legal exactly when its kind is in that list and its quantity is at least the
minimum. So the list the referee reads out after a refused raise and the check
itself can never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from voice_ref.rules.bid import Bid
from voice_ref.rules.errors import Reason
from voice_ref.rules.faces import ACE, NON_ACE_FACES, Face
from voice_ref.rules.variants import OpenWithAces, RuleSet


@dataclass(frozen=True, slots=True)
class BidContext:
    """What, besides the standing bid, decides which bids are legal now."""

    rules: RuleSet
    one_die_round: bool = False  # obligar / obliga / palo fijo: face fixed, nothing wild
    palo_fijo: bool = False  # cachito's one-die round: every bid limpio, face never changes
    bidder_has_one_die: bool = False  # may change the face in chile/dudo one-die rounds;
    #   may open with aces under OpenWithAces.ONE_DIE_OPENER


def normalize(bid: Bid, ctx: BidContext) -> Bid:
    """The bid as the table means it: in `cachito` aces are always limpio, and so is palo fijo.

    A bid said "limpio" outside `cachito` is left as is (and then refused).
    """
    if ctx.rules.clean_bids and not bid.clean and (bid.face is ACE or ctx.palo_fijo):
        return Bid(bid.quantity, bid.face, clean=True)
    return bid


def minimum_bids(standing: Bid | None, ctx: BidContext) -> tuple[Bid, ...]:
    """The lowest legal bid of every allowed kind, ordered by face (As first), sucio before limpio.

    `standing` None means an opening bid.
    """
    if standing is None:
        bids = _openings(ctx)
    elif ctx.one_die_round:
        bids = _one_die_raises(standing, ctx)
    elif ctx.rules.clean_bids:
        bids = _clean_dirty_raises(standing, ctx)
    else:
        bids = _normal_raises(standing, ctx)
    return tuple(sorted(bids, key=lambda b: (b.face, b.clean)))


def refusal(standing: Bid | None, bid: Bid, ctx: BidContext) -> Reason | None:
    """Why `bid` (already normalized) may not follow `standing`; None when it is legal."""
    if bid.quantity < 1:
        return Reason.ZERO_QUANTITY
    if bid.clean and not ctx.rules.clean_bids:
        return Reason.CLEAN_NOT_ALLOWED
    minimums = minimum_bids(standing, ctx)
    for minimum in minimums:
        if (minimum.face, minimum.clean) == (bid.face, bid.clean):
            return None if bid.quantity >= minimum.quantity else Reason.TOO_LOW
    # This kind of bid is not available at all now: say which rule forbids it.
    if standing is None:
        return Reason.OPEN_WITH_ACES
    if ctx.one_die_round:
        return Reason.FIXED_FACE
    return Reason.TOO_LOW  # cannot happen with the presets; kept as a safe answer


def _openings(ctx: BidContext) -> list[Bid]:
    if ctx.one_die_round:
        return [Bid(1, f, clean=ctx.palo_fijo) for f in Face]
    aces_allowed = (
        ctx.rules.open_with_aces is OpenWithAces.ONE_DIE_OPENER and ctx.bidder_has_one_die
    )
    bids = [Bid(1, f) for f in NON_ACE_FACES]
    if ctx.rules.clean_bids:
        bids += [Bid(1, f, clean=True) for f in NON_ACE_FACES]
    if aces_allowed:
        bids.append(Bid(1, ACE, clean=ctx.rules.clean_bids))
    return bids


def _plain_order(standing: Bid, faces: tuple[Face, ...], clean: bool) -> list[Bid]:
    """Plain order As < Tonto < ... < Sexto: a higher face at q, the same or lower at q + 1."""
    q = standing.quantity
    return [Bid(q if f > standing.face else q + 1, f, clean=clean) for f in faces]


def _one_die_raises(standing: Bid, ctx: BidContext) -> list[Bid]:
    if ctx.bidder_has_one_die and not ctx.palo_fijo:
        return _plain_order(standing, tuple(Face), clean=False)
    return [Bid(standing.quantity + 1, standing.face, clean=standing.clean)]


def _normal_raises(standing: Bid, ctx: BidContext) -> list[Bid]:
    q = standing.quantity
    if standing.face is ACE:
        return [Bid(q + 1, ACE)] + [Bid(2 * q + 1, f) for f in NON_ACE_FACES]
    return [Bid(ctx.rules.to_aces.minimum_aces(q), ACE)] + _plain_order(
        standing, NON_ACE_FACES, clean=False
    )


def _clean_dirty_raises(standing: Bid, ctx: BidContext) -> list[Bid]:
    """`cachito`: sucio bids (aces wild) and limpio bids (nothing wild, aces always limpio)."""
    q = standing.quantity
    if standing.clean:
        clean = _plain_order(standing, tuple(Face), clean=True)
        dirty = [Bid(2 * q + 1, f) for f in NON_ACE_FACES]
    else:
        dirty = _plain_order(standing, NON_ACE_FACES, clean=False)
        to_clean = ctx.rules.to_aces.minimum_aces(q)
        clean = [Bid(to_clean, f, clean=True) for f in Face]
    return dirty + clean
