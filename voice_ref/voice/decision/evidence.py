"""Evidence that audio is not the game phrase read from it (`voice_ref.voice.decision`,
step 4): the free transcript's words, sound and fluency, and the length of the speech."""

from __future__ import annotations

import re
from functools import lru_cache

from rapidfuzz import fuzz

from voice_ref.language.intents import (
    Intent,
    NameOnlyIntent,
    NoIntent,
    NumberIntent,
    YesIntent,
)
from voice_ref.language.lexicon import Lexicon
from voice_ref.language.phonetic import sound_similarity
from voice_ref.language.spoken import spelled_out, syllables
from voice_ref.language.text import fold, skip_leading, tokenize
from voice_ref.language.vocabulary import HESITATION_SOUNDS, HESITATIONS
from voice_ref.voice.asr.base import Utterance
from voice_ref.voice.asr.duration import duration_logp
from voice_ref.voice.decision.thresholds import CONSEQUENTIAL, Thresholds
from voice_ref.voice.decision.values import Reading


def opens(free: str, reading: str) -> bool:
    """Whether the free transcript is the first words of the reading ("No," for "no hay
    ninguno", "Me..." for "me equivoqué"): Whisper often writes the first word and then
    loops on it, and a loop is cut to its first period (`asr.free_transcript.loop_cut`), so
    such a transcript says nothing against the rest of the phrase."""
    words = tokenize(spelled_out(free))
    return bool(words) and tokenize(spelled_out(reading))[: len(words)] == words


def opens_any(free: str, reading: Reading) -> bool:
    """Whether the free transcript is the first words of any of the reading's phrasings."""
    return any(opens(free, text) for text in reading.phrasings)


def similarity(a: str, b: str) -> float:
    """0..1: how alike two transcripts are, ignoring case, accents and punctuation."""
    a, b = (re.sub(r"[^\w ]", "", fold(x)).strip() for x in (a, b))
    return fuzz.ratio(a, b) / 100.0


def spelling_similarity(free: str, reading: str) -> float:
    """`similarity` of a free transcript and a reading; when Whisper wrote a number in
    digits ("Y a 16 esquinas."), both sides with their numbers spelled out, so a number is
    compared as the words said, however each side writes it. A transcript without digits
    is compared as written: a fluent "nuevos" is no "9 dones"."""
    if re.search(r"\d", free):
        return similarity(spelled_out(free), spelled_out(reading))
    return similarity(free, reading)


@lru_cache(maxsize=256)
def hesitant_start(free: str) -> tuple[str, bool]:
    """The free transcript's words after the hesitations it begins with, and whether it
    began with one: Whisper writes "ehm, siete cuadras" as "En, siete cuadras." and a
    parser that stopped at "En" would take the call for table talk. Cached: the parse,
    the name check and the talk evidence each ask it of the same free transcript."""
    text = spelled_out(free.strip())
    words = tokenize(text)
    at = skip_leading(words, HESITATIONS)
    return (" ".join(words[at:]), True) if at else (text, False)


def sounds_like(free: str, reading: Reading) -> float:
    """How alike the free transcript sounds to the reading's closest phrasing."""
    return max(sound_similarity(free, text) for text in reading.phrasings)


def sounds_like_reading(free: str, reading: Reading, limits: Thresholds) -> bool:
    """Does the free transcript sound like the reading (at least `sound_alike`), as
    written or after any hesitation it begins with ("Bueno, Hugo." is "bueno, dudo")?"""
    after, hesitant = hesitant_start(free)
    said = sounds_like(after, reading) if hesitant and after else 0.0
    return max(sounds_like(free, reading), said) >= limits.sound_alike


def sounds_like_name(free: str, intent: Intent, limits: Thresholds) -> bool:
    """Does the free transcript sound like the name `intent` carries? Only the name is
    compared ("Ana." is Ana, "Para." is not)."""
    return sound_similarity(free, str(intent.player)) >= limits.name_sound


def name_evidence(utterance: Utterance, intent: Intent, limits: Thresholds) -> str:
    """Why a name said alone is probably table talk ("" when nothing says so): a fairly
    fluent free transcript that sounds unlike the name. Spelling is no guide here: short
    talk words are near short names ("para" / "Ana": rapidfuzz 0.86)."""
    free = utterance.free_text.strip()
    fluency = utterance.free_fluency
    if not re.search(r"\w", free) or fluency is None or fluency < limits.fluent_words:
        return ""
    if sounds_like_name(free, intent, limits):
        return ""
    return f"free transcript {free!r} does not sound like {intent.player}"


def _has_word(text: str) -> bool:
    """Two letters in a row: Whisper writes a lone "C," or "2." for a call it cannot make
    out ("C" for an espeak "sí"), which says nothing about what was said."""
    return re.search(r"[^\W\d_]{2}", text) is not None


def doubted_by_words(
    utterance: Utterance, best: Reading, free_intent: Intent | None, limits: Thresholds
) -> str:
    """Why `best` is doubtful though nothing rules it out ("" when nothing says so): the
    free transcript is words (`_has_word`, at least `fluent_doubted` fluent) that read as
    no game intent and do not sound like `best` (< `sound_alike`). Weaker than
    `talk_evidence`, because a misheard call also comes out as other words ("Lino se es
    fado" for "digo seis patos"), so it only raises the share `best` needs
    (`Thresholds.accept_doubted`). Why share: on the tuning rows, readings doubted so
    with a share below 0.7 were mostly wrong calls or table talk (a real voice's
    "Atenuíme" lands on "una cena" at 0.55), those above 0.9 almost all right. Counts are
    doubted too (a doubted count needs `accept_doubted_count`): asked "¿cuántas hay?", a
    table mostly answers, but it also talks while the dice are shown (session 49)."""
    free = utterance.free_text.strip()
    fluency = utterance.free_fluency
    if best.from_free or free_intent is not None:
        return ""
    if opens_any(free, best):
        return ""
    if fluency is None or fluency < limits.fluent_doubted or not _has_word(free):
        return ""
    if sounds_like(free, best) >= limits.sound_alike:
        return ""
    return f"free transcript {free!r} is other words than {best.text!r}"


def only_a_hesitation(utterance: Utterance, best: Reading) -> str:
    """Why `best` is no call but a hesitation said alone ("" when it may be a call): the
    free transcript is nothing but hesitation sounds ("E", "En", "Em"), as Whisper writes
    the "eh" of "eh … cuatro" cut off by a pause, which the phrase search then explains
    as *tres* or *cero*. Not against sí / no: "mm" can answer a question. In the tuning
    games every such transcript came from a hesitation (BENCHMARKS.md, session 50)."""
    free = utterance.free_text.strip()
    words = tokenize(free)
    if best.from_free or not words or isinstance(best.intent, (YesIntent, NoIntent)):
        return ""
    if all(word in HESITATION_SOUNDS for word in words):
        return f"free transcript {free!r} is a hesitation"
    return ""


def wordless_for_consequential(
    utterance: Utterance, best: Reading, free_intent: Intent | None = None
) -> str:
    """Why a consequential action is asked about rather than acted on ("" when it is not):
    the backend wrote a transcript with no word in it ("1", "C", "2."). Of the
    consequential actions accepted on the tuning rows and in whole simulated games, the
    right ones always came with a word, while table talk ("C", "Oh") came as "1"
    (BENCHMARKS.md, session 31). Such a transcript is no evidence of talk either
    (`_has_word`), so the call is confirmed, never ignored. The count after a challenge
    decides who loses a die as much, but Whisper writes counts in digits ("30, 5, 9" for
    "treinta y nueve"): a count is asked about only when its digits read as another
    count ("1" for 0.1 s of "siete" read as *tres*; session 42), or when it has neither
    digits nor a word, a letter alone: the "eh" before a count said alone ("D.", "N")
    was taken as *tres* or *cero* in Festival's games (session 47; an "E" is a
    hesitation written out, ignored before this: `only_a_hesitation`)."""
    free = utterance.free_text.strip()
    count = isinstance(best.intent, NumberIntent)
    other_count = count and isinstance(free_intent, NumberIntent)
    letters_alone = count and re.search(r"[^\W\d_]", free) is not None and not re.search(
        r"\d", free)
    if best.from_free or not (isinstance(best.intent, CONSEQUENTIAL) or other_count
                              or letters_alone):
        return ""
    if utterance.free_fluency is None or _has_word(free):
        return ""
    return f"free transcript {free!r} has no word for {best.text!r}"


def talk_evidence(
    utterance: Utterance,
    best: Reading,
    free_intent: Intent | None,
    limits: Thresholds,
    lexicon: Lexicon | None = None,
    named: Intent | None = None,
) -> str:
    """Why the audio is probably not `best` but table talk ("" when nothing says so).
    A free transcript that itself reads as `best` outweighs any such evidence; one made
    of ordinary Spanish words (`lexicon`), or one against a consequential action, needs
    less fluency to count. `named`: the player's name the free transcript says alone
    where a name cannot answer (`readings.name_said_alone`): a name said alone stays a
    name, however near a count it is spelled ("Ana" / "una") or whatever call it begins
    ("Diego" / "Diego deshaz"; BENCHMARKS.md, session 49)."""
    if best.from_free:
        return ""
    free = utterance.free_text.strip()
    gate = limits.fluent
    if isinstance(best.intent, CONSEQUENTIAL):
        gate = min(gate, limits.fluent_consequential)
    fluency = utterance.free_fluency
    if named is not None and not isinstance(best.intent, NameOnlyIntent) and (
        fluency is not None and fluency >= gate
    ):
        # Before "opens": "Diego" opens "Diego deshaz", but a name said alone is a name.
        return f"free transcript {free!r} is the name {named.player}"
    if opens_any(free, best):
        return ""
    count = isinstance(best.intent, NumberIntent)  # asked "¿cuántas hay?": mostly answers
    if count and re.search(r"\d", free):
        return ""  # Whisper writes counts in digits ("30, 5, 9" for "treinta y nueve")
    if not count and lexicon is not None and limits.fluent_words < gate and lexicon.plain(free):
        gate = limits.fluent_words
    sure = fluency is not None and fluency >= gate
    # Words, not digits or a letter alone: Whisper writes "2." or "1," for a call it
    # cannot make out, and "C" (the letter's name sounds "se") for a "sí", fluently.
    fluent = sure and free_intent is None and _has_word(free)
    # An unsure transcript that sounds like the phrase is the phrase misheard ("Tuna" for
    # "dudo"); one the backend is sure of is what was said ("presiones", no "tres dones").
    sounds_alike = (
        fluency is not None
        and fluency < limits.sound_fluent
        and sounds_like_reading(free, best, limits)
    )
    # Spelling is compared with the best phrasing only: it has no fluency guard, and a
    # fluent "nuevos" is near the spelled-out "nueve dones" pooled under "9 dones".
    far = spelling_similarity(free, best.text) < limits.talk_similarity
    if fluent and far and not sounds_alike:
        return f"free transcript {free!r} is no game phrase"
    return duration_misfit(utterance, best, limits)


def duration_misfit(utterance: Utterance, best: Reading, limits: Thresholds) -> str:
    """Why `best` cannot be what was said ("" when it may be): every phrasing of it is
    far too long or short for the speech (`Thresholds.duration_logp`), as 0.1 s of a
    clatter or an "eh" is for "paso"."""
    speech_s = utterance.end_s - utterance.start_s
    if speech_s > 0 and all(
        duration_logp(syllables(spelled_out(text)), speech_s) < limits.duration_logp
        for text in best.phrasings
    ):
        return f"{best.text!r} does not fit {speech_s:.2f} s of speech"
    return ""
