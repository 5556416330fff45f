"""`voice-ref play --text`: the referee over stdin/stdout, one utterance per line.

With `--json` every reply is one protocol object per line (see dialogue/protocol.py),
which is how the tests drive whole games. Without it a person can play in a terminal.
The referee writes the game log before each reply is printed. `voice_ref/app.py` builds
the referee; this module only reads lines and prints replies.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping
from typing import Protocol, TextIO

from voice_ref.dialogue.protocol import Reply


class TextReferee(Protocol):
    def handle_text(self, text: str | None) -> Reply: ...


def run_text(
    referee: TextReferee,
    opening: Reply,
    *,
    as_json: bool,
    opening_extra: Mapping[str, object] | None = None,
    lines: Iterable[str] | None = None,
    out: TextIO | None = None,
) -> int:
    """Read utterances (default: stdin) until they end; print the referee's replies."""
    out = out or sys.stdout
    source = sys.stdin if lines is None else lines
    interactive = lines is None and not as_json and sys.stdin.isatty()
    emit(opening, as_json, out, extra=opening_extra)
    if interactive:
        print("> ", end="", flush=True, file=out)
    for line in source:
        emit(referee.handle_text(line.rstrip("\r\n")), as_json, out)
        if interactive:
            print("> ", end="", flush=True, file=out)
    return 0


def use_utf8() -> None:
    """Players' names and «» are not ASCII: never let the locale break the protocol."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8")
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(encoding="utf-8", errors="replace")


def emit(
    reply: Reply, as_json: bool, out: TextIO, extra: Mapping[str, object] | None = None
) -> None:
    if as_json:
        out.write(json.dumps({**reply.to_json(), **(extra or {})}, ensure_ascii=False) + "\n")
    else:
        mark = "" if reply.accepted else "✗ "
        out.write(f"{mark}{reply.say}\n   [{state_line(reply.state)}]\n")
    out.flush()


def state_line(state: Mapping) -> str:
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
