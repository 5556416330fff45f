"""`voice-ref bench --games N`: a simulated table plays N whole spoken games; one summary.

Without `--games` the command is the clip bench (`voice_ref.voice.bench`), unchanged.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path
from typing import TextIO

import numpy as np

from voice_ref.config import Config, load_config
from voice_ref.dialogue.prompts import Prompts
from voice_ref.dialogue.referee import TableSetup
from voice_ref.rules.variants import ConfigError
from voice_ref.simulation.announcer import SimulatedAnnouncer
from voice_ref.simulation.phrasing import Phrasing, Style
from voice_ref.simulation.players import Table
from voice_ref.simulation.render import (
    FESTIVAL_PREFIX,
    FESTIVAL_VOICES,
    MBROLA_PREFIX,
    PICO_PREFIX,
    PICO_SPANISH,
    SPEECH_LEVELS_DBFS,
    Engine,
    NoiseBank,
    Renderer,
    Voice,
    active_power,
    espeak,
    espeak_available,
    festival_available,
    mbrola_available,
    pico_available,
)
from voice_ref.simulation.room import DiningRoom
from voice_ref.simulation.runner import GameResult, LineRow, play_game, wire
from voice_ref.simulation.script import play
from voice_ref.simulation.summary import GameScore, summarize
from voice_ref.voice.asr.base import Recognizer
from voice_ref.voice.audio_in import read_wav
from voice_ref.voice.voices import VoiceKind, choose_voice, installed_voices

DEFAULT_VOICES = "es+m1,es-419+f2,es+f4,es-419+m3"
# The referee's lines rendered once and kept, the most recent first: "Beto, te toca."
# repeats all game, a raise's "Cuatro quinas. Carla, te toca." rarely. Kept without a
# bound they were ~30 MB of float32 speech after two games and grew all evening, inside
# the peak RSS the bench reports as the referee's (BENCHMARKS.md, session 16).
REFEREE_LINES_KEPT = 64
PLAYER_MEAN_DBFS = sum(SPEECH_LEVELS_DBFS) / 2


@dataclass(frozen=True)
class BenchOptions:
    games: int
    preset: str
    players: tuple[str, ...]
    voices: tuple[str, ...]
    noise: Path | None = None
    snr_db: float | None = None
    seed: int = 0
    backend: str | None = None
    model: str | None = None  # a model folder (`--model`), else the config's
    rows: Path | None = None  # every line's result, as JSON Lines (`LineRow`)
    prepare: bool = True  # as `voice-ref play`: the recognizer prepares the table's phrases
    pause_p: float = 0.0  # how often a line is said with a pause after a filler or a name
    count_aloud_p: float = 0.0  # how often a count is said by counting aloud (`--count-aloud`)
    count_hesitation_p: float = 0.0  # how often such a count begins "eh, …" (`--count-hesitation`)
    count_talk_p: float = 0.0  # how often someone talks before the count (`--count-talk`)
    background: Path | None = None  # a recording looped under the whole game (`--background`)
    background_snr_db: float = 15.0  # its level below a player's mean speech level
    mic_gain_db: float = 0.0  # the microphone's gain (`--mic-gain`; -20: a quiet microphone)
    room: DiningRoom | None = None  # the room's echo on every player's line (`--room RT60`)


def main(args: argparse.Namespace) -> int:
    if getattr(args, "games", None) is None:
        if not getattr(args, "audio", None):
            print("voice-ref bench: give --audio DIR (labelled clips) or --games N "
                  "(a simulated table).", file=sys.stderr)
            return 2
        from voice_ref.voice.bench import main as clip_bench

        return int(clip_bench(args) or 0)
    config = load_config(getattr(args, "config", None))
    try:
        options = _options(args, config)
    except ValueError as exc:
        print(f"voice-ref bench: {exc}", file=sys.stderr)
        return 2
    if not espeak_available():
        print("voice-ref bench: the simulated table speaks with espeak-ng; install it "
              "(apt install espeak-ng).", file=sys.stderr)
        return 2
    try:
        summary = run(options, config, progress=_progress)
    except (RuntimeError, ValueError, OSError) as exc:
        print(f"voice-ref bench: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        print(file=sys.stderr)
        for key, value in summary.items():
            print(f"{key:24} {value}")
    return 0


def check_voice(voice: Voice) -> None:
    """A Pico, Festival or MBROLA player voice names that engine's Spanish voice, and the
    engine is installed (espeak-ng's voices are checked when it speaks)."""
    match voice.engine:
        case Engine.PICO:
            if voice.language != PICO_SPANISH:
                raise ValueError(f"--voices {voice.name}: Pico's Spanish voice is "
                                 f"{PICO_PREFIX}{PICO_SPANISH}.")
            if not pico_available():
                raise ValueError(f"--voices {voice.name} needs pico2wave "
                                 "(Debian non-free: apt install libttspico-utils).")
        case Engine.FESTIVAL:
            if voice.language not in FESTIVAL_VOICES:
                raise ValueError(f"--voices {voice.name}: Festival's Spanish voice is "
                                 f"{FESTIVAL_PREFIX}{next(iter(FESTIVAL_VOICES))}.")
            if not festival_available():
                raise ValueError(f"--voices {voice.name} needs Festival and its Spanish "
                                 "voice (apt install festival festvox-ellpc11k).")
        case Engine.MBROLA:
            if not voice.language:
                raise ValueError(f"--voices {voice.name}: name an MBROLA database, e.g. "
                                 f"{MBROLA_PREFIX}mx2.")
            if not mbrola_available(voice.language):
                raise ValueError(f"--voices {voice.name} needs MBROLA and that database "
                                 f"(Debian non-free: apt install mbrola "
                                 f"mbrola-{voice.language}).")


def _options(args: argparse.Namespace, config: Config) -> BenchOptions:
    if args.games < 1:
        raise ValueError("--games must be at least 1.")
    players = tuple(p.strip() for p in (args.players or ",".join(config.game.players)).split(","))
    voices = tuple(v.strip() for v in (args.voices or DEFAULT_VOICES).split(",") if v.strip())
    if not voices:
        raise ValueError("--voices needs at least one espeak-ng voice name.")
    for name in voices:
        check_voice(Voice(name))
    pause_p = getattr(args, "pauses", None) or 0.0
    if not 0.0 <= pause_p <= 1.0:
        raise ValueError("--pauses is a probability, from 0 to 1.")
    count_aloud_p = getattr(args, "count_aloud", None) or 0.0
    if not 0.0 <= count_aloud_p <= 1.0:
        raise ValueError("--count-aloud is a probability, from 0 to 1.")
    count_hesitation_p = getattr(args, "count_hesitation", None) or 0.0
    if not 0.0 <= count_hesitation_p <= 1.0:
        raise ValueError("--count-hesitation is a probability, from 0 to 1.")
    count_talk_p = getattr(args, "count_talk", None) or 0.0
    if not 0.0 <= count_talk_p <= 1.0:
        raise ValueError("--count-talk is a probability, from 0 to 1.")
    if count_hesitation_p and not count_aloud_p:
        raise ValueError("--count-hesitation needs --count-aloud: it says how often a count "
                         "said aloud begins with a hesitation.")
    if args.snr is not None and not args.noise:
        raise ValueError("--snr needs --noise DIR (the noise to mix at that SNR).")
    background = getattr(args, "background", None)
    background_snr = getattr(args, "background_snr", None)
    if background_snr is not None and not background:
        raise ValueError("--background-snr needs --background WAV (what to play under the game).")
    if background and not Path(background).is_file():
        raise ValueError(f"the background recording {background} does not exist.")
    try:
        TableSetup(players, preset=args.rules or config.preset, overrides=config.rule_overrides)
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    return BenchOptions(
        games=args.games, preset=args.rules or config.preset, players=players, voices=voices,
        noise=Path(args.noise) if args.noise else None,
        snr_db=args.snr if args.snr is not None else (12.0 if args.noise else None),
        seed=args.seed if args.seed is not None else 0,
        backend=args.backend,
        model=getattr(args, "model", None),
        rows=Path(args.rows) if getattr(args, "rows", None) else None,
        prepare=not getattr(args, "cold", False),
        pause_p=pause_p,
        count_aloud_p=count_aloud_p,
        count_hesitation_p=count_hesitation_p,
        count_talk_p=count_talk_p,
        background=Path(background) if background else None,
        background_snr_db=(
            background_snr if background_snr is not None else BenchOptions.background_snr_db
        ),
        mic_gain_db=getattr(args, "mic_gain", None) or BenchOptions.mic_gain_db,
        room=_room(getattr(args, "room", None), args.seed),
    )


def _room(rt60_s: float | None, seed: int | None) -> DiningRoom | None:
    """`--room RT60`: a room drawn from the run's seed (the same seed, the same room)."""
    return None if rt60_s is None else DiningRoom(rt60_s, seed=seed or 0)


Progress = Callable[[int, int, Table], None]


def run(options: BenchOptions, config: Config, progress: Progress | None = None,
        recognizer: Recognizer | None = None) -> dict[str, object]:
    """Play the games; returns the summary (see `summary.summarize`)."""
    noise = NoiseBank.load(options.noise) if options.noise else None
    background = (
        background_talk(options.background, options.background_snr_db)
        if options.background
        else None
    )
    setup = TableSetup(options.players, preset=options.preset, overrides=config.rule_overrides,
                       starter="ask", direction=None, dialect=config.dialect,
                       dialect_faces=config.dialect_faces)
    prompts = Prompts.load()
    seats = random.Random(f"{options.seed}:voices")
    voices = {p: Voice(options.voices[i % len(options.voices)], seats.randint(145, 180),
                       seats.randint(35, 65)) for i, p in enumerate(options.players)}
    referee_voice = Voice(_referee_voice(config.voice.voice), config.voice.rate)
    referee_speech = lru_cache(maxsize=REFEREE_LINES_KEPT)(partial(espeak, voice=referee_voice))
    responses = (
        dict(zip(options.players, options.room.seat_responses(len(options.players)), strict=True))
        if options.room
        else {}
    )
    scores: list[GameScore] = []
    results: list[GameResult] = []
    prepare_s = 0.0
    # Closed however the run ends: a run stopped by an error keeps the rows it wrote.
    with options.rows.open("w", encoding="utf-8") if options.rows else nullcontext() as rows_out:
        for g in range(options.games):
            def rng(part: str, g: int = g) -> random.Random:
                return random.Random(f"{options.seed}:{g}:{part}")

            intended = play(options.players, setup.rules, rng("script"))
            announcer = SimulatedAnnouncer(
                referee_speech, 16000, config.audio.holdoff_s)
            session, referee, recognizer = wire(config, setup, announcer, recognizer,
                                                options.backend, options.model)
            if options.prepare and g == 0:  # as `voice-ref play` does before the opening
                t0 = time.perf_counter()
                session.prepare()
                prepare_s = time.perf_counter() - t0
            renderer = Renderer(voices, rng("voice"), noise=noise, snr_db=options.snr_db,
                                sample_rate=recognizer.sample_rate, pause_p=options.pause_p,
                                responses=responses)
            phrasing = Phrasing(rng("words"), options.players, config.dialect,
                                Style(count_aloud=options.count_aloud_p,
                                      count_hesitation=options.count_hesitation_p,
                                      count_talk=options.count_talk_p),
                                clean_bids=setup.rules.clean_bids)
            table = Table(intended, phrasing, prompts, rng("table"))
            result = play_game(session, referee, announcer, table, renderer.render, rng("time"),
                               on_line=(lambda _l, g=g, t=table: progress(g, options.games, t))
                               if progress else (lambda _l: None),
                               on_row=(lambda row, g=g: _write_row(rows_out, g, row))
                               if rows_out else (lambda _row: None),
                               background=background, mic_gain_db=options.mic_gain_db)
            results.append(result)
            if progress:
                verdict = "correct" if result.correct else "WRONG"
                print(f"\rgame {g + 1}/{options.games}: {verdict}, "
                      f"{len(intended.actions)} actions, {result.stats.utterances} utterances, "
                      f"{result.stats.wrong_accepts} wrong accepts, "
                      f"{result.uncorrected} uncorrected"
                      f"{', the players gave up' if table.gave_up else ''}", file=sys.stderr,
                      flush=True)
            scores.append(GameScore(result.correct, len(intended.actions), result.uncorrected,
                                    result.stats, result.busy_s, result.audio_s))
            if progress:  # the running totals, so a long run that is stopped still says something
                so_far = summarize(scores, backend=getattr(recognizer, "name", "?"),
                                   model=str(getattr(recognizer, "model", "?")))
                print(f"after game {g + 1}: {json.dumps(so_far, ensure_ascii=False)}",
                      file=sys.stderr, flush=True)
    assert recognizer is not None
    return {**summarize(scores, backend=getattr(recognizer, "name", "?"),
                        model=str(getattr(recognizer, "model", "?"))),
            "prepare_s": round(prepare_s, 1)}


def background_talk(path: Path, snr_db: float) -> np.ndarray:
    """The `--background` recording at `snr_db` below a player's mean speech level
    (`Renderer` levels each line's active speech to -30...-18 dBFS: -24 on average)."""
    samples = read_wav(path)
    power = active_power(samples)
    if power <= 0.0:
        raise ValueError(f"the background recording {path} is silent.")
    level = 10 ** ((PLAYER_MEAN_DBFS - snr_db) / 20)
    return (samples * (level / np.sqrt(power))).astype(np.float32)


def _write_row(out: TextIO, game: int, row: LineRow) -> None:
    out.write(json.dumps({"game": game + 1, **row.to_json()}, ensure_ascii=False) + "\n")
    out.flush()  # a long run that is stopped keeps its rows


def _progress(game: int, games: int, table: Table) -> None:
    done = len(table.intended.actions)
    said = table.stats.utterances
    print(f"\rgame {game + 1}/{games}  utterances {said:4d} for {done} actions  "
          f"wrong accepts {table.stats.wrong_accepts}", end="", file=sys.stderr, flush=True)


def _referee_voice(configured: str) -> str:
    """The espeak-ng voice the simulated loudspeaker speaks with: the one the announcer would
    choose ("auto" included), among the voices espeak-ng can render (not a system voice)."""
    rendered = [v for v in installed_voices() if v.kind is not VoiceKind.NATIVE]
    return choose_voice(rendered, configured).ident
