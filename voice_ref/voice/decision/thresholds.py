"""Every number the decision uses (`Thresholds`), and which intents need more evidence."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING

from voice_ref.language.intents import (
    CalzoIntent,
    DudoIntent,
    NameOnlyIntent,
    NewGameIntent,
    PasoIntent,
    QueryIntent,
    RepeatIntent,
    UndoIntent,
)

if TYPE_CHECKING:
    from voice_ref.config import Config

# Actions that end or rewrite a round: they need more evidence (`accept_consequential`,
# as do a "sí" and the count after a challenge: `decide`).
CONSEQUENTIAL = (DudoIntent, CalzoIntent, PasoIntent, UndoIntent, NewGameIntent)
# Lines that make no game move: wariness after a correction never slows them (a second
# "me equivoqué" is taken as the first was; a new game is asked about anyway).
NO_MOVE = (UndoIntent, QueryIntent, RepeatIntent, NewGameIntent, NameOnlyIntent)


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Every number the decision uses; the defaults were chosen on the DEV tuning voices
    and tuning-real (BENCHMARKS.md, "Decision thresholds"). `accept` and `confirm_margin`
    come from the config (`asr.speech_accept_score`, `asr.confirm_margin`); `accept` was
    re-chosen for speculative end-pointing (BENCHMARKS.md, session 6)."""

    accept: float = 0.45
    accept_consequential: float = 0.6
    confirm: float = 0.3
    confirm_margin: float = 0.15
    talk_similarity: float = 0.55  # free transcript vs chosen phrase, 0..1 (rapidfuzz ratio)
    # ... and a free transcript that *sounds* at least this like the chosen phrase
    # (`language.phonetic`, 0..1) is no evidence against it either ("Tuna" for "dudo").
    sound_alike: float = 0.75
    # ... unless the free transcript is at least this fluent: then it is what was said,
    # however it sounds ("presiones" is no "tres dones").
    sound_fluent: float = -0.8
    # A name said alone needs a free transcript that sounds at least this like the name
    # (when there is one, at least `fluent_words` fluent): "para" is no "Ana".
    name_sound: float = 0.5
    fluent: float = -0.8  # mean token log-probability above which a free transcript is sure
    # ... and above which it is sure when every word of it is an ordinary Spanish word
    # (`language.lexicon`): real voices' single words come out at -0.8 to -1.9.
    fluent_words: float = -2.5
    # ... and above which it counts against a consequential action (dudo, calzo, paso,
    # undo, new game: they end or rewrite a round), whatever its words.
    fluent_consequential: float = -2.0
    # With evidence against it, a legal reading is confirmed; ignored when the free
    # transcript is at least this fluent (no question for what was surely table talk).
    sure_talk: float = -0.8
    # A reading the free transcript doubts (`doubted_by_words`: other words, at least
    # `fluent_doubted` fluent, not sounding like it) needs `accept_doubted` share instead
    # of `accept` (a consequential action: the higher of it and `accept_consequential`);
    # below, it is confirmed. Chosen on the tuning rows (both halves of DEV tuning,
    # tuning-real under two CPU kernel settings) by the table's cost, in the middle of
    # the tied range (BENCHMARKS.md, "Table talk on real voices"). `accept_doubted` <=
    # `accept` switches it off.
    accept_doubted: float = 0.7
    # ... and a doubted count (other words, or right after a correction): table talk
    # while the count is awaited came out as other words Whisper was unsure of
    # ("Tertigüe" for "te pillé", taken as *son ninguna* at 0.73-0.82 in whole games).
    # Chosen on the tuning rows with their talk played while a count is awaited (`bench
    # --talk-in count`), the lowest of the tied range; whole games kept (BENCHMARKS.md,
    # sessions 49-50).
    accept_doubted_count: float = 0.9
    # ... and a doubted "sí" to the loop's own "¿Dijiste …?" needs this: with two
    # answers to choose from, a share says less, and a wrong "sí" commits the call.
    # Chosen on whole games of the DEV tuning voices (BENCHMARKS.md, session 9): a "no"
    # heard as "sí" over other words came out at 0.72-0.88, a right one spelled "sí".
    accept_doubted_yes: float = 0.9
    fluent_doubted: float = -3.5  # only loops ("No, no, no, ...": -inf) and garbage fall below
    duration_logp: float = -5.0  # below (> 3x too long or short): cannot be what was said
    raise_prior: float = 1.0  # nats for a likely raise (not tunable on clips: no standing bid)
    free_agree: float = 2.0  # nats for the reading the free transcript spells
    sound_agree: float = 1.0  # nats for the reading it sounds most like (>= sound_alike)
    # Nats against a reading each time the table said "no" to it at this question
    # (`GameView.refused`). Chosen on whole games of the DEV tuning voices
    # (BENCHMARKS.md, session 10).
    refused_penalty: float = 3.0
    # Nats against a bid per die above its ceiling (`GameView.ceilings`). Chosen on whole
    # games of the DEV tuning voices (BENCHMARKS.md, session 11); clips have no dice.
    implausible_nats: float = 1.0
    # Nats against a bid more than `illegal_reach` below the least raise of its face
    # (`GameView.far_below_nats`). Set a priori as strong as a refusal; measured on
    # whole games (BENCHMARKS.md, session 23).
    far_below_nats: float = 3.0
    illegal_reach: int = 2
    # Weight of the binomial prior on the count the table answers (`GameView.count_logp`).
    # Chosen on whole games of the DEV tuning voices (BENCHMARKS.md, session 11).
    count_prior: float = 0.5


def thresholds_from(config: Config) -> Thresholds:
    """The config's numbers, then those its speech model asks for (`asr.decision`: an
    adapted model's `decision.toml`)."""
    limits = Thresholds(
        accept=config.asr.speech_accept_score, confirm_margin=config.asr.confirm_margin
    )
    return replace(limits, **dict(config.asr.decision))


def checked_overrides(values: Mapping[str, object]) -> tuple[tuple[str, float], ...]:
    """`values` as `Thresholds` overrides; a name that is no threshold or a value that is
    no number raises ValueError saying which."""
    known = {f.name: f.default for f in fields(Thresholds)}
    out = []
    for name, value in values.items():
        if name not in known:
            raise ValueError(f"{name!r} is not a decision threshold "
                             f"(known: {', '.join(sorted(known))})")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{name} must be a number, not {value!r}")
        out.append((name, type(known[name])(value)))
    return tuple(out)
