"""The one place that puts the referee together: config → referee, recognizer, announcer,
display → the listening loop (or the typed front end).

Everything below this module is plugged in, not looked up: the dialogue layer knows
nothing of config files or command lines, and `voice/session.py` takes its parts as
arguments. Command-line options override config.toml values here and nowhere else.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TextIO

import numpy as np

from voice_ref.config import Config, load_config
from voice_ref.dialogue.gamelog import (
    LOG_NAME,
    GameLog,
    LogError,
    default_state_dir,
    read_log,
    warn,
)
from voice_ref.dialogue.prompts import Prompts
from voice_ref.dialogue.protocol import Reply
from voice_ref.dialogue.referee import Referee, TableSetup
from voice_ref.voice.asr.base import Recognizer, Utterance
from voice_ref.voice.audio_in import (
    AudioDeviceError,
    AudioFileError,
    check_audio,
    device_name,
    devices_in_use,
)
from voice_ref.voice.decision import Heard, heard_record, make_decider
from voice_ref.voice.mic_check import LevelWatch
from voice_ref.voice.microphone import REOPEN_EVERY_S, SILENT_DEVICE_S, watched
from voice_ref.voice.ports import AnnouncerPort


class SetupError(RuntimeError):
    """Something the person setting up must fix (model missing, bad player list...)."""


# -- the config and the table ---------------------------------------------------------------


def read_config(args: argparse.Namespace) -> Config:
    """`--config FILE`, else ./config.toml, the user's config folder, the packaged default."""
    return load_config(getattr(args, "config", None))


def config_line(config: Config) -> str:
    """The first line of `voice-ref play`: which config file was read."""
    return f"voice-ref: config {config.describe_source()}"


def opening_extra(config: Config) -> dict[str, object]:
    """The extra key of the opening protocol object: the config file that was read."""
    return {"config": str(config.source) if config.source else None}


def table_setup(args: argparse.Namespace, config: Config) -> TableSetup:
    """The table for a new game: command-line options over config.toml."""
    if getattr(args, "players", None):
        players = tuple(p.strip() for p in args.players.split(","))
    else:
        players = config.game.players
    starter = getattr(args, "starter", None) or config.game.starter
    seed = getattr(args, "seed", None)
    if seed is None and starter == "random":
        seed = random.SystemRandom().randrange(2**31)  # kept in the log: resume draws the same
    preset = getattr(args, "rules", None) or config.preset
    return TableSetup(
        players=players,
        preset=preset,
        overrides=dict(config.rule_overrides) if preset == config.preset else {},
        starter=starter,
        direction=getattr(args, "direction", None) or config.game.direction,
        seed=seed,
        dialect=config.dialect,
        dialect_faces=dict(config.dialect_faces),
    )


def state_dir(args: argparse.Namespace, config: Config) -> Path:
    if getattr(args, "state_dir", None):
        return Path(args.state_dir).expanduser()
    if config.game.state_dir:
        return config.path(config.game.state_dir)
    return default_state_dir()


def open_referee(args: argparse.Namespace, config: Config) -> tuple[Referee, Reply]:
    """A referee with its log, new or resumed (`--resume`), and its opening announcement."""
    folder = state_dir(args, config)
    if getattr(args, "resume", False):
        try:
            log, loaded = GameLog.reopen(folder)
        except LogError as exc:
            warn(f"{exc} Starting a new game.")
        else:
            for message in loaded.warnings:
                warn(message)
            setup = TableSetup.from_json(loaded.header)
            if getattr(args, "players", None) or getattr(args, "rules", None):
                warn(
                    f"resuming the saved game ({', '.join(setup.players)}; rules {setup.preset}); "
                    "--players and --rules apply to new games only."
                )
            referee = Referee(setup, accept_score=config.asr.accept_score)
            for message in referee.replay(loaded.records):
                warn(message)
            referee.log = log
            return referee, referee.opening(resumed=True)
    setup = table_setup(args, config)
    referee = Referee(setup, log=GameLog.create(folder, setup.to_json()),
                      accept_score=config.asr.accept_score)
    return referee, referee.opening()


def game_setup(args: argparse.Namespace, config: Config) -> TableSetup:
    """The table this run referees: with `--resume` the saved game's (as `open_referee` will
    resume it), else a new one from the options and config.toml. Reads, never writes."""
    if getattr(args, "resume", False):
        try:
            return TableSetup.from_json(read_log(state_dir(args, config) / LOG_NAME).header)
        except LogError:
            pass  # open_referee says so and starts a new game
    return table_setup(args, config)


def table_config(config: Config, setup: TableSetup) -> Config:
    """The config as the recognizer must see it for this table: its players, rules and
    dialect (a resumed game or `--rules` may differ from config.toml)."""
    return replace(
        config,
        game=replace(config.game, players=setup.players),
        preset=setup.preset,
        rule_overrides=dict(setup.overrides),
        dialect=setup.dialect,
        dialect_faces=dict(setup.dialect_faces),
    )


def recognizer_for(args: argparse.Namespace, config: Config) -> Recognizer:
    """The speech recognizer for this table (tests replace this function)."""
    setup = game_setup(args, config)
    return make_recognizer_or_explain(
        table_config(config, setup), backend=getattr(args, "backend", None),
        model=getattr(args, "model", None), players=setup.players,
    )


def model_config(args: argparse.Namespace, config: Config) -> Config:
    """`config` with the decision thresholds of the speech model this table will load."""
    from voice_ref.voice.asr.select import RecognizerUnavailable, with_model_decision

    try:
        return with_model_decision(config, getattr(args, "backend", None),
                                   getattr(args, "model", None))
    except RecognizerUnavailable as exc:
        raise SetupError(str(exc)) from None


def make_recognizer_or_explain(
    config: Config, backend: str | None, players: tuple[str, ...], model: str | None = None
) -> Recognizer:
    """`make_recognizer`, with every way it can fail as a `SetupError` in plain words."""
    from voice_ref.voice.asr.select import RecognizerUnavailable, make_recognizer

    try:
        return make_recognizer(config, backend=backend, model=model, players=players)
    except RecognizerUnavailable as exc:
        raise SetupError(str(exc)) from None
    except ImportError as exc:
        raise SetupError(f"no speech recognizer is available ({exc}).") from None
    except (RuntimeError, ValueError, OSError) as exc:
        raise SetupError(str(exc)) from None


# -- `voice-ref play` ----------------------------------------------------------------------------


def play(args: argparse.Namespace) -> int:
    """`voice-ref play`: typed lines (`--text`), a recording (`--input`) or the microphone."""
    config = read_config(args)
    as_json = bool(getattr(args, "json", False))
    if args.text:
        from voice_ref.text_play import run_text, use_utf8

        if getattr(args, "heard", None):
            print("voice-ref play: --heard records what the recognizer heard; with --text "
                  "nothing is heard. Use it with --input or the microphone.", file=sys.stderr)
            return 2

        use_utf8()
        if not as_json:
            print(config_line(config), flush=True)
        referee, opening = open_referee(args, config)
        return run_text(referee, opening, as_json=as_json, opening_extra=opening_extra(config))
    # Beside the JSON protocol the line goes to stderr: stdout stays JSON Lines.
    print(config_line(config), file=sys.stderr if as_json else sys.stdout, flush=True)
    return run_voice(args, config)


def run_voice(args: argparse.Namespace, config: Config) -> int:
    """`voice-ref play` with `--input session.wav` or the live microphone. Every resource
    opened (microphone, `--heard` log, voice, SIGTERM handler) is closed on every way out."""
    with ExitStack() as resources:
        return _run_voice(args, config, resources)


def _run_voice(args: argparse.Namespace, config: Config, resources: ExitStack) -> int:
    from voice_ref.language.lexicon import WORD_LIST, Lexicon
    from voice_ref.voice.announcer import make_announcer
    from voice_ref.voice.display import make_display
    from voice_ref.voice.microphone import Microphone, MicrophoneUnavailable
    from voice_ref.voice.session import LISTENING_MARKER, VoiceSession, listening_line

    def fail(message: str) -> int:
        print(f"voice-ref play: {message}", file=sys.stderr)
        return 2

    live = not getattr(args, "input", None)
    json_mode = bool(getattr(args, "json", False))
    silent = bool(getattr(args, "silent", False))
    loudspeaker = "none (--silent)"
    if not silent:
        try:
            loudspeaker = device_name(config.audio.output_device, "output")
        except AudioDeviceError as exc:
            if config.audio.output_device != "":  # a setting that names nothing: say so now
                return fail(f"{exc} `voice-ref devices` lists what there is; `--silent` "
                            "referees without speaking.")
            loudspeaker = "none"  # each line then says on stderr that it could not be spoken
    mic = None
    if live:
        mic = Microphone(config.audio.input_device)
        try:
            mic.open()  # fail fast, before loading a model, when there is no microphone
        except MicrophoneUnavailable as exc:
            return fail(str(exc))
        resources.callback(mic.close)
        print(f"voice-ref: {devices_in_use(config.audio, loudspeaker)}", file=sys.stderr,
              flush=True)
    elif not Path(args.input).is_file():
        return fail(f"the recording {args.input} does not exist.")
    else:
        try:
            check_audio(args.input)  # before the model loads and the opening is said
        except AudioFileError as exc:
            return fail(str(exc))
    heard_log = None
    if getattr(args, "heard", None):
        try:
            heard_log = HeardLog.open(Path(args.heard))
        except OSError as exc:
            return fail(f"cannot write {args.heard}: {exc.strerror}.")
        resources.callback(heard_log.close)
    if not Lexicon.load():
        warn(
            f"No Spanish word list at {WORD_LIST}: table talk is told from calls with less "
            "evidence. On Debian / Raspberry Pi OS: sudo apt install wspanish"
        )
    try:
        config = model_config(args, config)
        recognizer = recognizer_for(args, config)
        referee, opening = open_referee(args, config)
    except (SetupError, ValueError, OSError) as exc:
        return fail(str(exc))

    announcer = make_announcer(
        config.voice,
        silent=silent,
        output_device=config.audio.output_device,
        holdoff_s=config.audio.holdoff_s,
        echo=lambda _text: None,  # --silent: the screen or the JSON already shows every line
    )
    resources.callback(announcer.close)

    def listening_again(replies: int) -> None:
        if json_mode:  # a program drives the table: tell it when it may speak
            print(listening_line(replies), file=sys.stderr, flush=True)

    session = VoiceSession(
        referee, recognizer, announcer, make_decider(config),
        display=make_display(json_mode),
        json_out=sys.stdout if json_mode else None,
        gate_self_hearing=live,
        reask_after_s=config.audio.reask_after_s,
        count_hold_s=config.audio.count_hold_s,
        accept_audio=push_to_talk_gate(config) if live else (lambda _t: True),
        on_listening=listening_again,
        on_heard=heard_observer(heard_log, LevelWatch()),
        opening_extra=opening_extra(config),
    )
    # Whisper computes its text prior of the table's phrases once (minutes for new players,
    # kept beside the model), so no answer waits for it. A live table starts at once and
    # it is computed in the background; a recording is refereed after it, the same each run.
    session.prepare(background=live)
    resources.enter_context(_sigterm_stops_the_game())
    try:
        session.start(opening)
        if mic is not None:
            if not mic.first_block.wait(5.0):
                return fail("the microphone delivers no audio. Check `voice-ref devices`.")
            mic.drain()  # what was captured while the model loaded is nobody's turn
            print(LISTENING_MARKER, file=sys.stderr, flush=True)
            session.run(told_when_silent(mic.blocks(), announcer, referee.prompts))
        else:
            session.run(wav_source(args.input, recognizer.sample_rate))
            announcer.wait_idle(timeout=60)
    except KeyboardInterrupt:
        session.finish()
    return 0


def told_when_silent(
    blocks: Iterable[tuple[float, np.ndarray | None]], announcer: AnnouncerPort, prompts: Prompts
) -> Iterator[tuple[float, np.ndarray | None]]:
    """The live microphone's blocks, watched (`microphone.watched`): when it stops
    delivering audio the table hears so (in Spanish) and whoever set it up reads why (on
    stderr), and again when it is back, since what was said meanwhile was lost."""

    def silent() -> None:
        warn(f"the microphone has delivered no audio for {SILENT_DEVICE_S:.0f} s (unplugged, "
             "muted, or its sound server stopped); an unplugged one is opened again every "
             f"{REOPEN_EVERY_S:.0f} s until it is back. `voice-ref devices` lists what is there.")
        announcer.say(prompts.say("device.microphone_silent"))

    def back() -> None:
        print("voice-ref: the microphone delivers audio again.", file=sys.stderr, flush=True)
        announcer.say(prompts.say("device.microphone_back"))

    return watched(blocks, silent, back)


def heard_observer(
    heard_log: HeardLog | None, watch: LevelWatch
) -> Callable[[Utterance, Heard], None]:
    """What the loop calls with every decided utterance: the `--heard` log, and the
    microphone's levels watched for whoever set the table up (a warning on stderr)."""

    def observe(utterance: Utterance, heard: Heard) -> None:
        if heard_log is not None:
            heard_log.write(utterance, heard)
        warning = watch.observe(utterance.extra)
        if warning is not None:
            warn(f"microphone, {warning}")

    return observe


class HeardLog:
    """`play --heard FILE`: every utterance the referee decided on, appended as one JSON
    line and flushed at once (a game stopped at any moment keeps its lines), so whoever
    set up the table can see why the referee asked or stayed silent."""

    def __init__(self, out: TextIO) -> None:
        self._out = out

    @classmethod
    def open(cls, path: Path) -> HeardLog:
        return cls(path.open("a", encoding="utf-8"))

    def write(self, utterance: Utterance, heard: Heard) -> None:
        self._out.write(json.dumps(heard_record(utterance, heard), ensure_ascii=False) + "\n")
        self._out.flush()

    def close(self) -> None:
        self._out.close()


# -- `voice-ref models prepare` --------------------------------------------------------------


def prepare_table(args: argparse.Namespace) -> int:
    """`voice-ref models prepare`: the Whisper text prior of this table's phrases, now. A
    game prepares it in the background otherwise, and answers are slower until it is done."""
    import time

    from voice_ref.voice.session import table_contexts

    config = read_config(args)
    try:
        setup = table_setup(args, config)
        recognizer = make_recognizer_or_explain(
            table_config(config, setup), backend="whisper", players=setup.players
        )
    except (SetupError, ValueError) as exc:
        print(f"voice-ref models prepare: {exc}", file=sys.stderr)
        return 2
    print(f"Preparing the phrases of {', '.join(setup.players)} (rules {setup.preset}): "
          "minutes the first time for these players, seconds after...", flush=True)
    started = time.perf_counter()
    recognizer.prepare(table_contexts(Referee(setup)))
    print(f"Ready in {time.perf_counter() - started:.0f} s: games of this table start with "
          "fast answers.", flush=True)
    return 0


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


@contextmanager
def _sigterm_stops_the_game() -> Iterator[None]:
    """SIGTERM (systemd stopping the Pi's service, `kill`) ends the game like Ctrl-C: the
    last utterance is finished and nothing is lost. The handler it replaced comes back
    afterwards. Only the main thread may set one (tests run the app in others)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def wav_source(path: str, sample_rate: int) -> Iterator[tuple[float, np.ndarray]]:
    """A recording as (stream seconds, samples) blocks."""
    from voice_ref.voice.audio_in import wav_blocks

    position = 0.0
    for block in wav_blocks(path, sample_rate):
        position += len(block) / sample_rate
        yield position, block


def push_to_talk_gate(config: Config) -> Callable[[float], bool]:
    """Whether audio captured at a time counts: always, or only after the configured key."""
    from voice_ref.voice.push_to_talk import PushToTalk

    key = config.audio.push_to_talk
    if not key:
        return lambda _t: True
    if not sys.stdin.isatty():
        print("voice-ref play: push-to-talk needs a terminal; listening all the time.",
              file=sys.stderr)
        return lambda _t: True
    ptt = PushToTalk(key)
    ptt.listen_to_terminal()
    print(f"voice-ref play: push-to-talk: press {key!r} before speaking.", file=sys.stderr)
    return ptt.is_open
