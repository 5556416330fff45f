"""`voice-ref play --text`: the referee over stdin/stdout, one utterance per line.

With `--json` every reply is one protocol object per line (see protocol.py),
which is how the tests drive whole games. Without it a person can play in a
terminal. The game log is written before each reply is printed; `--resume`
replays it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import TextIO

from voice_ref.config import Config
from voice_ref.dialogue.gamelog import GameLog, LogError, default_state_dir, warn
from voice_ref.dialogue.protocol import Reply
from voice_ref.dialogue.referee import Referee, TableSetup


def setup_from_args(args: argparse.Namespace, config: Config) -> TableSetup:
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


def state_dir_from(args: argparse.Namespace, config: Config) -> Path:
    if getattr(args, "state_dir", None):
        return Path(args.state_dir).expanduser()
    if config.game.state_dir:
        return config.path(config.game.state_dir)
    return default_state_dir()


def open_referee(args: argparse.Namespace, config: Config) -> tuple[Referee, Reply]:
    """A referee with its log, new or resumed, and its opening announcement."""
    state_dir = state_dir_from(args, config)
    if getattr(args, "resume", False):
        try:
            log, loaded = GameLog.reopen(state_dir)
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
            referee = Referee(setup)
            for message in referee.replay(loaded.records):
                warn(message)
            referee.log = log
            return referee, referee.opening(resumed=True)
    setup = setup_from_args(args, config)
    referee = Referee(setup, log=GameLog.create(state_dir, setup.to_json()))
    return referee, referee.opening()


def run_text(args: argparse.Namespace, config: Config) -> int:
    """Read utterances from stdin until it ends; print the referee's replies."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8")
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(encoding="utf-8", errors="replace")
    referee, opening = open_referee(args, config)
    as_json = bool(getattr(args, "json", False))
    interactive = not as_json and sys.stdin.isatty()
    emit(opening, as_json, sys.stdout)
    if interactive:
        print("> ", end="", flush=True)
    for line in sys.stdin:
        reply = referee.handle_text(line.rstrip("\r\n"))
        emit(reply, as_json, sys.stdout)
        if interactive:
            print("> ", end="", flush=True)
    return 0


def emit(reply: Reply, as_json: bool, out: TextIO) -> None:
    if as_json:
        out.write(json.dumps(reply.to_json(), ensure_ascii=False) + "\n")
    else:
        mark = "" if reply.accepted else "✗ "
        out.write(f"{mark}{reply.say}\n   [{state_line(reply.state)}]\n")
    out.flush()


def state_line(state: dict) -> str:
    """A short human summary: dice per player, the standing bid, whose turn."""
    dice = " · ".join(
        f"{p['name']} {p['dice']}" if p["active"] else f"{p['name']} fuera"
        for p in state["players"]
    )
    bid = state["bid"]
    bid_text = (
        f"{bid['quantity']}×{bid['face']}{' limpio' if bid['clean'] else ''} ({bid['by']})"
        if bid
        else "—"
    )
    turn = state["turn"] or "mesa"
    return f"{dice} | canto: {bid_text} | turno: {turn} | espera: {state['awaiting']}"
