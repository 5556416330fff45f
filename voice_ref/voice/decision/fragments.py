"""A call cut in two by the VAD ("un" | "sexto", "cuarenta y" | "siete"): which
utterance is a fragment to hold, and how it joins its continuation."""

from __future__ import annotations

import re
from dataclasses import dataclass

from voice_ref.language.intents import NumberIntent
from voice_ref.language.spoken import spelled_out
from voice_ref.language.text import tokenize
from voice_ref.language.vocabulary import FACE_SPELLINGS
from voice_ref.voice.asr.base import Hypothesis, Utterance
from voice_ref.voice.decision.readings import TextParser
from voice_ref.voice.decision.view import GameView, is_name


@dataclass(frozen=True, slots=True)
class Fragment:
    """An utterance held for its continuation; `lead` is its text to join."""

    utterance: Utterance
    lead: str


def unfinished(lead: str) -> bool:
    """A count or bid cut after its "y" ("cuarenta y" | "siete"): never complete."""
    tokens = tokenize(lead)
    return len(tokens) >= 2 and tokens[-1] == "y"


def fragment_lead(utterance: Utterance, parser: TextParser, view: GameView) -> str:
    """The text to hold when `utterance` is the first part of a cut call: where a count or
    a bid can answer, a number ending in "y" ("40 y"); while a bid is expected (and no
    count), a free transcript that is a bare count ("un", "Cinco.", "Ana, cinco") or a
    face word alone ("Sextos."). "" when it is no fragment."""
    text = re.sub(r"[.!?¿¡…]+", " ", utterance.free_text).strip(" ,")
    if not text:
        return ""
    head, _, tail = text.partition(",")
    body = tail.strip() if tail and is_name(parser.parse(head).intent) else text  # "Ana, cinco"
    if unfinished(body):  # where a count or a bid can answer
        if view.kinds is not None and not view.kinds & {"number", "bid"}:
            return ""
        before = spelled_out(re.sub(r"\s*\by\s*$", "", body))
        return text if isinstance(parser.parse(before).intent, NumberIntent) else ""
    if view.kinds is not None and ("bid" not in view.kinds or "number" in view.kinds):
        return ""
    if isinstance(parser.parse(spelled_out(body)).intent, NumberIntent):
        return text
    return text if " ".join(tokenize(body)) in FACE_SPELLINGS else ""


def joined(first: Fragment, second: Utterance, parser: TextParser, view: GameView) -> Utterance:
    """One utterance from a fragment and its continuation: each reading of `second`
    prefixed by the fragment where the result still parses ("un" + "Sexto." = "un Sexto."),
    else as it was (a complete call said again); the free transcripts joined. A join that
    turns a call possible now into one that is not is no join: "Tren" (an "ehm" heard as
    a face) + "Tres quinas." reads as a hand, "tren, tres quinas", and would drop the
    call the player made."""
    hyps = tuple(
        Hypothesis(_join(first.lead, h.text, parser, view, spelled=True), h.score)
        for h in second.hypotheses
    )
    fluencies = [f for f in (first.utterance.free_fluency, second.free_fluency) if f is not None]
    return Utterance(
        hyps,
        first.utterance.start_s,
        second.end_s,
        decoded_at_s=second.decoded_at_s,
        free_text=_join(first.lead, second.free_text.strip(), parser, view, spelled=False),
        free_fluency=min(fluencies) if fluencies else None,
    )


def _join(lead: str, text: str, parser: TextParser, view: GameView, *, spelled: bool) -> str:
    """`lead` + `text` ("40 y" + "7": "cuarenta y siete" when `spelled`), unless the join
    loses a call: it reads as nothing (a reading, not the free transcript, stays as it
    was) or as no possible answer where `text` alone is one."""
    both = f"{lead} {text}".strip()
    both_spelled = spelled_out(both)
    intent = parser.parse(both_spelled).intent
    if intent is None:
        return text if spelled else both
    if not view.possible(intent):
        alone = parser.parse(spelled_out(text)).intent
        if alone is not None and view.possible(alone):
            return text
    return both_spelled if spelled else both
