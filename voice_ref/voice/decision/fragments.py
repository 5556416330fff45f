"""A call cut in two by the VAD ("un" | "sexto", "cuarenta y" | "siete"): which
utterance is a fragment to hold, and how it joins its continuation."""

from __future__ import annotations

import re
from dataclasses import dataclass

from voice_ref.language.intents import NumberIntent
from voice_ref.language.spoken import spelled_out
from voice_ref.language.text import fold, tokenize
from voice_ref.language.vocabulary import FACE_WORDS
from voice_ref.voice.asr.base import Hypothesis, Utterance
from voice_ref.voice.decision.readings import TextParser
from voice_ref.voice.decision.view import GameView, is_name


@dataclass(frozen=True, slots=True)
class Fragment:
    """An utterance held for its continuation; `lead` is its text to join."""

    utterance: Utterance
    lead: str


_FACE_WORDS = frozenset(fold(w) for fw in FACE_WORDS for w in (fw.singular, fw.plural))


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
    return text if " ".join(tokenize(body)) in _FACE_WORDS else ""


def joined(first: Fragment, second: Utterance, parser: TextParser) -> Utterance:
    """One utterance from a fragment and its continuation: each reading of `second`
    prefixed by the fragment where the result still parses ("un" + "Sexto." = "un Sexto."),
    else as it was (a complete call said again); the free transcripts joined."""
    hyps = []
    for h in second.hypotheses:
        text = spelled_out(f"{first.lead} {h.text}")  # "40 y" + "7": "cuarenta y siete"
        hyps.append(Hypothesis(text if parser.parse(text).intent is not None else h.text, h.score))
    fluencies = [f for f in (first.utterance.free_fluency, second.free_fluency) if f is not None]
    return Utterance(
        tuple(hyps),
        first.utterance.start_s,
        second.end_s,
        decoded_at_s=second.decoded_at_s,
        free_text=f"{first.lead} {second.free_text.strip()}".strip(),
        free_fluency=min(fluencies) if fluencies else None,
    )
