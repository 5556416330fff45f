"""What the referee says: pure functions from the game (+ outcome, + dialect) to Spanish text.

Nothing here changes a game or remembers anything; the referee decides *when* to
speak and these functions decide *what*. Every sentence comes from prompts/es.toml
through a `Speaker` (the table's dialect). Result lines are kept to the outcome,
whose dice changed and who starts (at most 18 words); the rest is said on request
("¿cuántos dados quedan?").
"""

from __future__ import annotations

from collections.abc import Sequence

from voice_ref.dialogue.prompts import (
    Speaker,
    bare_number,
    dice,
    join_words,
    lives,
    sentence,
)
from voice_ref.dialogue.protocol import LineKind
from voice_ref.rules.errors import IllegalMove, Reason
from voice_ref.rules.faces import Face
from voice_ref.rules.game import Awaiting, ChallengeKind, Game, Outcome, RoundType, answers
from voice_ref.rules.moves import (
    Calzo,
    ChooseDirection,
    ChooseModality,
    ChooseStarter,
    Dudo,
    Modality,
    Move,
    ObligarAnswer,
    Paso,
    PassCheck,
    Raise,
    RevealCount,
)
from voice_ref.rules.variants import CalzoReward, DirectionPolicy, RuleSet


def join(*parts: str) -> str:
    """Sentences joined with spaces, each capitalised; empty parts are skipped."""
    return " ".join(sentence(p) for p in parts if p)


def rules_name(rules: RuleSet, sp: Speaker) -> str:
    key = f"rules_name.{rules.name}"
    return sp.prompts.say(key) if sp.prompts.has(key) else rules.name


# ------------------------------------------------------------------------------ questions


def question(game: Game, sp: Speaker, *, roller: str | None = None) -> str:
    """The line that asks for what the game waits for now (`roller`: the starter roll)."""
    p = sp.prompts
    awaiting = game.awaiting
    if awaiting is Awaiting.STARTER:
        if roller:
            return p.say("ask.roll", player=roller)
        return p.say("ask.starter", player=game.players[0])  # the example answer
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
        return count_question(game, sp)
    if awaiting is Awaiting.PASS_CHECK:
        passer = game.challenge.bidder if game.challenge else game.last_pass_by
        return p.say("ask.pass_check", player=passer)
    if awaiting is Awaiting.OBLIGAR:
        return p.say("ask.obligar", player=game.addressed or game.turn)
    if awaiting is Awaiting.MODALITY:
        return p.say("ask.modality")
    return p.say("ask.game_over", player=game.winner)


def count_question(game: Game, sp: Speaker) -> str:
    """ "¿Cuántas quinas hay, contando ases?" — says whether aces count."""
    challenge = game.challenge
    assert challenge is not None
    face = challenge.bid.face
    if face.is_ace:
        key = "ask.count"
    elif challenge.wild_aces:
        key = "ask.count_wild"
    else:
        key = "ask.count_clean"
    if sp.face_is_feminine(face):
        key += "_f"
    return sp.prompts.say(key, faces=sp.face_plural(face))


def round_start(game: Game, sp: Speaker) -> str:
    """Who opens the round that just began, folded with its first question."""
    p = sp.prompts
    opener = game.addressed or game.turn
    if game.awaiting is Awaiting.DIRECTION:
        return p.say("ask.open_direction", player=opener)
    if game.awaiting is Awaiting.MODALITY and game.round_type is RoundType.OBLIGAR:
        return p.say("announce.obligar_auto", player=opener)
    return question(game, sp)


def standing(game: Game, sp: Speaker) -> str:
    """ "Quedan en pie cinco quinas, de Ana." (on resume)."""
    if game.bid is None or game.awaiting is not Awaiting.BID:
        return ""
    key = "announce.standing_bid_one" if game.bid.quantity == 1 else "announce.standing_bid"
    return sp.prompts.say(key, bid=sp.the_bid(game.bid), player=game.bidder)


# ------------------------------------------------------------------------ announcements


def announce(game: Game, outcome: Outcome, sp: Speaker, actor: str | None) -> tuple[str, LineKind]:
    """What to say after an accepted move (made by `actor`), and the kind of line it is."""
    p = sp.prompts
    move = outcome.move
    if isinstance(move, Raise):
        return join(p.say("announce.bid", bid=sp.the_bid(move.bid)), question(game, sp)), (
            LineKind.ROUTINE
        )
    if isinstance(move, Paso):
        return join(p.say("announce.paso", player=actor), question(game, sp)), LineKind.ROUTINE
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
        return join(line, question(game, sp)), LineKind.CHALLENGE
    if outcome.resolved:
        return result(game, outcome, sp), LineKind.RESULT
    if isinstance(move, ObligarAnswer):
        key = "announce.obligar_yes" if move.obligate else "announce.obligar_no"
        return join(p.say(key, player=actor), question(game, sp)), LineKind.QUESTION
    if isinstance(move, ChooseModality):
        key = "announce.modality_open" if move.modality is Modality.OPEN else (
            "announce.modality_closed"
        )
        return join(p.say(key), question(game, sp)), LineKind.QUESTION
    if isinstance(move, ChooseDirection):
        line = p.say("announce.direction", direction=move.direction.value)
        return join(line, question(game, sp)), LineKind.QUESTION
    if isinstance(move, ChooseStarter):
        return round_start(game, sp), LineKind.QUESTION
    return question(game, sp), LineKind.QUESTION


def result(game: Game, outcome: Outcome, sp: Speaker, *, past: bool = False) -> str:
    """After the count or the pass check, in one breath: what was there, whose dice changed,
    who starts. `past` words the change as already happened (the resume opening)."""
    p = sp.prompts
    head = _result_head(outcome, sp)
    changes = change_clauses(game, outcome, sp, past=past)
    first = f"{head}: {changes[0]}" if changes else head
    parts = [_period(line) for line in (first, *changes[1:])]
    if game.winner is not None:
        return join(*parts, p.say("result.winner", player=game.winner))
    return join(*parts, round_start(game, sp))


def _period(line: str) -> str:
    return line if line.endswith((".", "?", "!")) else line + "."


def _result_head(outcome: Outcome, sp: Speaker) -> str:
    p = sp.prompts
    challenge = outcome.challenge
    move = outcome.move
    if challenge is None:
        return ""
    if challenge.kind is ChallengeKind.PASS_DOUBT or isinstance(move, PassCheck):
        key = "announce.pass_invalid" if outcome.challenge_succeeded else "announce.pass_valid"
        return p.say(key)
    assert isinstance(move, RevealCount)
    face = challenge.bid.face
    if move.count == 0:
        key = "result.count_none_f" if sp.face_is_feminine(face) else "result.count_none"
        return p.say(key, face=sp.face_singular(face))
    count = p.say("result.count", count=sp.bid(move.count, face))
    if challenge.kind is ChallengeKind.CALZO and outcome.challenge_succeeded:
        return p.say("result.exact", count=count)
    return count


def _amount(rules: RuleSet, n: int, before: int, after: int) -> str:
    """ "un dado", or "una vida" when cachito keeps lives above the cup."""
    if rules.calzo_reward is CalzoReward.LIVES and max(before, after) > rules.start_dice:
        return lives(n)
    return dice(n)


def change_clauses(game: Game, outcome: Outcome, sp: Speaker, *, past: bool = False) -> list[str]:
    """ "Ana pierde un dado, le quedan cuatro" for each player whose dice changed."""
    p = sp.prompts
    tense = "_past" if past else ""
    hidden = game.rules.hidden_counts
    out: list[str] = []
    for name, delta in outcome.dice_changes:
        after = game.dice(name)
        before = after - delta
        amount = _amount(game.rules, abs(delta), before, after)
        if name in outcome.eliminated:
            out.append(p.say(f"result.out{tense}", player=name))
        elif delta < 0 and hidden:
            out.append(p.say(f"result.lost_hidden{tense}", player=name, lost=amount))
        elif delta < 0:
            key = "result.lost_one_left" if after == 1 else "result.lost"
            out.append(p.say(key + tense, player=name, lost=amount, left=bare_number(after)))
        elif hidden:
            out.append(p.say(f"result.gained_hidden{tense}", player=name, gained=amount))
        else:
            out.append(
                p.say(f"result.gained{tense}", player=name, gained=amount, total=bare_number(after))
            )
    if "calzo_at_cap" in outcome.notes and outcome.challenge is not None:
        out.append(p.say(f"result.at_cap{tense}", player=outcome.challenge.challenger))
    return out


def undo_result_change(game_after: Game, outcome: Outcome, sp: Speaker) -> str:
    """ "Beto recupera un dado." — what undoing a result gives back or takes away."""
    p = sp.prompts
    lines = []
    for name, delta in outcome.dice_changes:
        after = game_after.dice(name)
        before = after - delta
        amount = _amount(game_after.rules, abs(delta), before, after)
        key = "result.undo_lost" if delta < 0 else "result.undo_gained"
        lines.append(p.say(key, player=name, lost=amount, gained=amount))
    return " ".join(sentence(line) for line in lines)


def roll_result(rollers: Sequence[str], rolls: Sequence[int], starter: str, sp: Speaker) -> str:
    """ "Ana un sexto, Beto un as y Carla una cuadra: parte Beto." """
    p = sp.prompts
    said = [
        p.say("announce.roll_one", player=name, face=sp.bid(1, face))
        for name, face in zip(rollers, rolls, strict=True)
    ]
    return p.say("announce.roll_result", rolls=join_words(said), player=starter)


def undone(move: Move, actor: str | None, game_before: Game, sp: Speaker) -> str:
    """What an undo took back, for "Deshecho: {what}."."""
    p = sp.prompts
    if isinstance(move, Raise):
        return p.say("undone.bid", bid=sp.the_bid(move.bid), player=actor)
    if isinstance(move, Paso):
        return p.say("undone.paso", player=actor)
    if isinstance(move, Dudo):
        return p.say("undone.dudo", player=actor)
    if isinstance(move, Calzo):
        return p.say("undone.calzo", player=actor)
    if isinstance(move, RevealCount | PassCheck):
        return p.say("undone.result")
    if isinstance(move, ChooseDirection):
        return p.say("undone.direction")
    if isinstance(move, ChooseStarter):
        return p.say("undone.starter")
    if isinstance(move, ObligarAnswer):
        return p.say("undone.obligar", player=actor)
    if isinstance(move, ChooseModality):
        return p.say("undone.modality")
    return p.say("undone.question")


# ----------------------------------------------------------------------------- refusals


def not_awaited(move: Move, game: Game, sp: Speaker) -> str | None:
    """Refuse a move that does not answer what the game waits for (fine points 22, 23)."""
    p = sp.prompts
    awaiting = game.awaiting
    if isinstance(move, answers(awaiting)):
        return None
    if awaiting is Awaiting.GAME_OVER:
        return p.say("illegal.game_over", player=game.winner)
    if awaiting is Awaiting.BID:
        if isinstance(move, ChooseDirection):
            return direction_refusal(game, sp)
        return join(p.say("reject.no_question"), question(game, sp))
    return p.say("reject.answer_first", question=question(game, sp))


def direction_refusal(game: Game, sp: Speaker) -> str:
    """A direction word when none is asked: the rule when the rules fix the direction."""
    if game.rules.direction is DirectionPolicy.CLOCKWISE:
        return sp.prompts.say("illegal.direction_fixed", rules=rules_name(game.rules, sp))
    return sp.prompts.say("illegal.direction_not_awaited")


def explain(err: IllegalMove, move: Move, game: Game, sp: Speaker, *, said_by: str | None) -> str:
    """The Spanish reason for a refused move; `said_by` is the name spoken, if any."""
    p = sp.prompts
    reason = err.reason
    details = err.details
    turn = game.turn or game.addressed
    if reason is Reason.NOT_YOUR_TURN:
        expected = details.get("expected") or turn
        if said_by and said_by != expected:
            return p.say("illegal.not_your_turn_speaker", speaker=said_by, player=expected)
        return p.say("illegal.not_your_turn", player=expected)
    if reason in (Reason.UNKNOWN_PLAYER, Reason.ELIMINATED_PLAYER, Reason.INVALID_STARTER):
        who = details.get("player") or getattr(move, "by", None) or getattr(move, "player", "")
        if reason is Reason.INVALID_STARTER and who in game.players:
            reason = Reason.ELIMINATED_PLAYER
        return p.say(f"illegal.{reason.value}", player=who)
    if reason is Reason.DIRECTION_NOT_AWAITED and game.awaiting is Awaiting.BID:
        return direction_refusal(game, sp)
    if reason is Reason.NOT_AWAITED or reason is Reason.DIRECTION_NOT_AWAITED:
        return not_awaited(move, game, sp) or p.say(
            "illegal.not_awaited", question=question(game, sp)
        )
    if reason is Reason.GAME_OVER:
        return p.say("illegal.game_over", player=game.winner)
    if reason in (Reason.TOO_LOW, Reason.FIXED_FACE):
        minimums = err.minimum_bids or game.minimum_bids()
        minimum = sp.minimum(game.bid, minimums)
        if reason is Reason.FIXED_FACE:
            return p.say("illegal.fixed_face", minimum=minimum)
        if game.bid is None:
            return p.say("illegal.too_low_open", minimum=minimum)
        return p.say("illegal.too_low", bid=sp.the_bid(game.bid), minimum=minimum)
    if reason in (Reason.CALZO_NOT_ALLOWED, Reason.PASO_NOT_ALLOWED):
        key = f"illegal.{reason.value}_{details.get('why', '')}"
        if not p.has(key):
            key = f"illegal.{reason.value}"
        return p.say(key, player=getattr(move, "by", None) or turn)
    if reason is Reason.COUNT_OUT_OF_RANGE:
        maximum = details.get("maximum", game.dice_on_table)
        return p.say("illegal.count_out_of_range", dice=dice(maximum), question=question(game, sp))
    if reason is Reason.BAD_PASS_HAND:
        return p.say("illegal.bad_pass_hand", question=question(game, sp))
    key = f"illegal.{reason.value}"
    if p.has(key):
        return p.say(key, player=turn, question=question(game, sp))
    return p.say("reject.not_understood")


# ------------------------------------------------------------------------------ queries


def answer_query(game: Game, sp: Speaker, what: str, player: str | None) -> str:
    """The answer to "¿cuántos dados hay?", "¿a quién le toca?", "¿cuál es el mínimo?"..."""
    p = sp.prompts
    rules = game.rules
    hidden = rules.hidden_counts
    lives_kept = rules.calzo_reward is CalzoReward.LIVES
    if what == "dice":
        remain = _remain(game.dice_on_table, sp)
        if player is not None:
            if hidden:
                return p.say("query.dice_hidden", **remain)
            if player not in game.active_players:
                return p.say("query.dice_player_out", player=player)
            n = game.dice(player)
            if lives_kept and n > rules.start_dice:
                cup = dice(game.dice_in_cup(player))
                return p.say("query.dice_player_lives", player=player, lives=lives(n), cup=cup)
            return p.say("query.dice_player", player=player, dice=dice(n))
        if hidden:
            return p.say("query.dice_total_hidden", **remain)
        detail = ", ".join(f"{name} {bare_number(game.dice(name))}" for name in game.active_players)
        if lives_kept and any(game.dice(n) > rules.start_dice for n in game.active_players):
            return p.say("query.dice_lives", **remain, detail=detail)
        return p.say("query.dice_total", **remain, detail=detail)
    if what == "turn":
        if game.awaiting in (Awaiting.COUNT, Awaiting.PASS_CHECK):
            return p.say("query.turn_table", question=question(game, sp))
        if game.awaiting is Awaiting.BID:
            return p.say("query.turn", player=game.turn)
        return question(game, sp)
    if what == "minimum":
        if game.awaiting is not Awaiting.BID:
            return question(game, sp)
        if game.bid is None:
            key = "query.minimum_open"
            if not any(b.face is Face.AS for b in game.minimum_bids()):
                key += "_no_aces"
            return p.say(key, player=game.turn)
        return p.say("query.minimum", minimum=sp.minimum(game.bid, game.minimum_bids()))
    if game.bid is None:
        return p.say("query.no_bid")
    return p.say("query.bid", bid=sp.the_bid(game.bid), player=game.bidder)


def _remain(n: int, sp: Speaker) -> dict[str, str]:
    """ "quedan quince dados" / "queda un dado": the verb agrees with the count."""
    verb = sp.prompts.say("words.remain_one" if n == 1 else "words.remain_many")
    return {"remain": verb, "dice": dice(n)}
