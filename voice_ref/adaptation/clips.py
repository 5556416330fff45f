"""The training clips `voice-ref models adapt` teaches Whisper's encoder with
(`adaptation.training`; BENCHMARKS.md, sessions 28-30).

Each clip is what the recognizer encodes for one utterance: 0.15-0.3 s of the room, the
speech (its echo included), 0.15-0.3 s of the room after it. The text is written as the
recognizer's phrase search scores it (first word capitalised, a comma after a leading
name, a final "." half the time, numbers in digits about a third of the time).

What is said (shares of the clips): bids 35%, count answers 20% (70% of them a bare
number 0-60), other game phrases 15% (the phrase inventory at `Level.COMMON`), single
dictionary words with no game word 10% (`wspanish`), sentences 15% (the simulator's table
talk and the referee's own prompt lines), a name alone 5%; with `sounds` W, short sounds
("oh", "uf", "ja ja") as table talk too, weight W against those. All but the dictionary is
frozen in `RECIPE_VOCABULARY`, as the measured model was built.

Who says it: espeak-ng's `es` / `es-419` with 36 variants each, **never** the DEV set's
held-out voices (`bench.HELDOUT_VOICES`); with MBROLA installed, also its Spanish diphone
voices es1 / es2 / es4 (recorded human diphones), 20% of the clips. espeak-ng's own MBROLA
mapping for Spanish asks for stressed vowels ("o/") those databases lack and MBROLA drops
them (`voices.mbrola_drops_sounds`), so the phonemes come from `espeak-ng --pho` with the
stress mark removed and go to `mbrola` directly.

How it reaches the microphone: a quarter said in one of 24 simulated dining rooms
(RT60 0.3-0.8 s, seeds unlike any bench's), speech at -34...-14 dBFS, `narrow` of the
clips band-limited to 4 kHz (a telephone-band recording, like the real voices of
dev-real and tuning-real), 80% with noise at 0-24 dB: half of it the given noise
recordings (the operator's own room, or the DEV set's *tuning* noise-only clips), the
rest white / pink / brown noise (all of it when no recordings are given).

Deterministic for a seed (each clip is drawn from its own seeded generator). Output:
`audio.npy` (int16, all clips end to end) and `clips.jsonl` (start, length, text, kind,
voice per clip).
"""

from __future__ import annotations

import gzip
import json
import math
import random
import subprocess
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np
import soxr

from voice_ref.language.spoken import number_to_words, spelled_out, with_digits
from voice_ref.simulation.render import (
    RATE,
    NoiseBank,
    Voice,
    active_power,
    espeak,
    mbrola,
    mbrola_available,
    mix,
    reverberant,
)
from voice_ref.simulation.room import room_responses
from voice_ref.voice.asr.phrase_search import whisper_words
from voice_ref.voice.bench import HELDOUT_VOICES
from voice_ref.voice.voices import parse_espeak_voices

NAMES = ("Ana", "Beto", "Carla", "Diego", "Elena", "Felipe", "Gabriela", "Hugo", "Inés",
         "Javier", "Lucía", "Manuel", "Nora", "Óscar", "Paula", "Raúl", "Sofía", "Tomás")
FOLDED_NAMES = frozenset(n.casefold() for n in NAMES)
VARIANTS = 36
MBROLA = ("es1", "es2", "es4")  # the Spanish databases whose phoneme set espeak-ng's --pho fits
MBROLA_SHARE = 0.2
ROOMS = 24
ROOM_SEED = 7300  # rooms unlike the bench's (seeds 0-99)
ROOM_SHARE = 0.25
NOISE_SHARE = 0.8
DIGITS_SHARE = 0.35
LEVELS_DBFS = (-34.0, -14.0)
SNR_DB = (0.0, 24.0)
EDGE_S = (0.15, 0.3)
KINDS = (("bid", 0.35), ("count", 0.20), ("game", 0.15), ("word", 0.10),
         ("sentence", 0.15), ("name", 0.05))
# What the measured recipe's voices say (m8/m11; BENCHMARKS.md, sessions 30-39), frozen:
# the phrase inventory, table talk and the referee's prompt lines as they were when it was
# built, so the grammar and the prompts can grow and `.ci/run` still builds the measured
# model. `tools/freeze_recipe_vocabulary.py` writes a new snapshot on purpose (a new recipe,
# to be measured); `tests/test_adaptation.py` pins this one's content.
RECIPE_VOCABULARY = Path(__file__).with_name("recipe_vocabulary.json.gz")


@dataclass(frozen=True, slots=True)
class FrozenVocabulary:
    """The recipe's snapshot: what is said, except the dictionary's words."""

    bids: list[tuple[str, int]]
    counts: list[tuple[str, int]]
    game: list[str]
    sentences: list[str]
    sounds: list[str]
    game_words: list[str]  # casefolded; dictionary words drawn as table talk avoid them

    @classmethod
    def read(cls, path: Path = RECIPE_VOCABULARY) -> FrozenVocabulary:
        said = json.loads(gzip.decompress(path.read_bytes()))
        return cls([(t, n) for t, n in said["bids"]], [(t, n) for t, n in said["counts"]],
                   said["game"], said["sentences"], said["sounds"], said["game_words"])

    def write(self, path: Path) -> None:
        text = json.dumps({f.name: getattr(self, f.name) for f in fields(self)},
                          ensure_ascii=False, indent=0)
        path.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """What the clips say: the recipe's snapshot, and the dictionary's words that are no
    game word (drawn as table talk)."""

    said: FrozenVocabulary
    words: list[str]

    @classmethod
    def build(cls, dictionary: Path, frozen: Path = RECIPE_VOCABULARY) -> Vocabulary:
        said = FrozenVocabulary.read(frozen)
        game_words = set(said.game_words)
        words = [w for w in dictionary.read_text(encoding="utf-8").split()
                 if w.isalpha() and len(w) > 2 and w.casefold() not in game_words]
        return cls(said, words)


def written(text: str, digits_of: int | None = None, stop: bool = False) -> str:
    """`text` as Whisper writes it and the phrase search scores it: `digits_of` in digits,
    the first word capitalised, a comma after a leading name, `stop`: a final "."."""
    if digits_of is not None:
        text = with_digits(text, digits_of) or text
    out = " ".join(whisper_words(text, FOLDED_NAMES))
    return out + "." if stop and out[-1] not in ".?!" else out


def utterance(vocab: Vocabulary, rng: random.Random, sounds: float = 0.0) -> tuple[str, str]:
    """(kind, text as written) of one clip; `sounds`: the weight of short sounds."""
    kinds = [*KINDS, ("sound", sounds)] if sounds else KINDS
    kind = rng.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
    if kind == "bid":
        text, value = rng.choice(vocab.said.bids)
    elif kind == "count":
        if rng.random() < 0.7:
            value = rng.randint(0, 60)
            text = number_to_words(value)
        else:
            text, value = rng.choice(vocab.said.counts)
    else:
        value = None
        text = {"game": lambda: rng.choice(vocab.said.game),
                "word": lambda: rng.choice(vocab.words),
                "sentence": lambda: rng.choice(vocab.said.sentences),
                "name": lambda: rng.choice(NAMES),
                "sound": lambda: rng.choice(vocab.said.sounds)}[kind]()
    digits = value is not None and rng.random() < DIGITS_SHARE
    return kind, written(text, value if digits else None, stop=rng.random() < 0.5)


def spoken_text(text: str) -> str:
    """What the synthesizer reads: digits back in words, no punctuation."""
    return spelled_out(text).replace(",", "").rstrip(".")


def coloured_noise(rng: np.random.Generator, n: int) -> np.ndarray:
    """White, pink or brown noise, by spectral slope."""
    slope = rng.choice([0.0, 0.5, 1.0])
    spectrum = np.fft.rfft(rng.standard_normal(n))
    f = np.arange(len(spectrum), dtype=np.float64)
    f[0] = 1.0
    return np.fft.irfft(spectrum / f**slope, n).astype(np.float32)


def trimmed(speech: np.ndarray, floor: float = 1e-3) -> np.ndarray:
    loud = np.flatnonzero(np.abs(speech) > floor * max(float(np.max(np.abs(speech))), 1e-9))
    return speech[loud[0] : loud[-1] + 1] if len(loud) else speech


@dataclass(frozen=True, slots=True)
class Sources:
    vocab: Vocabulary
    voices: list[str]
    noise: NoiseBank | None
    rooms: list[np.ndarray]
    narrow: float
    mbrola: tuple[str, ...]
    sounds: float = 0.0


def render_clip(src: Sources, seed: int, index: int) -> tuple[np.ndarray, dict]:
    rng = random.Random(f"{seed}:{index}")
    nrng = np.random.default_rng([seed, index])
    kind, text = utterance(src.vocab, rng, src.sounds)
    rate, pitch = rng.randint(130, 200), rng.randint(30, 70)
    if src.mbrola and rng.random() < MBROLA_SHARE:
        database = rng.choice(src.mbrola)
        voice = f"mb-{database}"  # the label's name for it, as espeak-ng's own
        speech = mbrola(spoken_text(text), Voice(f"mbrola:{database}", rate, pitch))
    else:
        voice = rng.choice(src.voices)
        speech = espeak(spoken_text(text), Voice(voice, rate, pitch))
    speech = trimmed(speech)
    if rng.random() < ROOM_SHARE:
        speech = reverberant(speech, rng.choice(src.rooms))
    if rng.random() < src.narrow:
        speech = soxr.resample(soxr.resample(speech, RATE, 8000), 8000, RATE)
    level = 10 ** (rng.uniform(*LEVELS_DBFS) / 20)
    speech = speech * level / max(math.sqrt(active_power(speech)), 1e-9)
    lead, tail = (int(RATE * rng.uniform(*EDGE_S)) for _ in range(2))
    clip = np.concatenate([np.zeros(lead), speech, np.zeros(tail)]).astype(np.float32)
    if rng.random() < NOISE_SHARE:
        recorded = src.noise if rng.random() < 0.5 else None  # the draw is made either way
        noise = (recorded.stretch(rng, len(clip)) if recorded is not None
                 else coloured_noise(nrng, len(clip)))
        clip = mix(clip, noise, rng.uniform(*SNR_DB))
    else:  # a quiet room still hisses a little
        clip = clip + (1e-4 * nrng.standard_normal(len(clip))).astype(np.float32)
    clip = np.clip(clip, -1.0, 1.0)
    return (clip * 32767).astype(np.int16), {"text": text, "kind": kind, "voice": voice}


_SOURCES: Sources | None = None


def _init(src: Sources) -> None:
    global _SOURCES
    _SOURCES = src


def _render(job: tuple[int, int]) -> tuple[np.ndarray, dict]:
    assert _SOURCES is not None
    return render_clip(_SOURCES, *job)


def espeak_voices(rng: random.Random) -> list[str]:
    listing = subprocess.run(["espeak-ng", "--voices=variant"], check=True,
                             capture_output=True, text=True).stdout
    variants = sorted(file.removeprefix("!v/") for _, _, file in parse_espeak_voices(listing))
    chosen = rng.sample(variants, min(VARIANTS, len(variants)))
    names = [f"{lang}+{v}" for lang in ("es", "es-419") for v in chosen]
    return [n for n in names if n not in HELDOUT_VOICES]


@dataclass(frozen=True, slots=True)
class ClipRecipe:
    """How many clips, and how they are drawn (the defaults are session 29's `ft5`)."""

    clips: int = 10000
    seed: int = 7
    narrow: float = 0.35
    mbrola: tuple[str, ...] = MBROLA
    sounds: float = 0.0


def installed_mbrola() -> tuple[str, ...]:
    """The MBROLA Spanish databases this machine can speak (none without the `mbrola`
    program)."""
    return tuple(db for db in MBROLA if mbrola_available(db))


def build_clips(out: Path, recipe: ClipRecipe, noise: NoiseBank | None, dictionary: Path,
                jobs: int = 2) -> int:
    """Write `recipe`'s clips into `out`; returns how many. `noise`: room recordings (none:
    coloured noise only)."""
    rng = random.Random(recipe.seed)
    rooms = [r for i in range(ROOMS)
             for r in room_responses(0.3 + 0.5 * i / (ROOMS - 1), ROOM_SEED + i, 1)]
    src = Sources(Vocabulary.build(dictionary), espeak_voices(rng), noise, rooms,
                  recipe.narrow, recipe.mbrola, recipe.sounds)
    out.mkdir(parents=True, exist_ok=True)
    jobs_list = [(recipe.seed, i) for i in range(recipe.clips)]
    chunks, rows, at = [], [], 0
    with ProcessPoolExecutor(jobs, initializer=_init, initargs=(src,)) as pool:
        for audio, row in pool.map(_render, jobs_list, chunksize=16):
            rows.append({"start": at, "length": len(audio), **row})
            chunks.append(audio)
            at += len(audio)
    np.save(out / "audio.npy", np.concatenate(chunks))
    with (out / "clips.jsonl").open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return len(rows)
