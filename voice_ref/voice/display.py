"""The table screen: who has how many dice, whose turn, the standing bid, what was heard.

Built with rich so it reads from across a table (a large panel, the player on turn in
reverse video). When stdout is not a terminal, the same information goes out as one plain
line per change; with `--json`, nothing but the protocol goes to stdout (`NullDisplay`).
The display reads only the protocol's `state` object, so it works with any front end.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, TextIO

from voice_ref.language.screen import FACE_LABELS, ROUND_LABELS, WAITING_LABELS

PIPS = {1: "⚀", 2: "⚁", 3: "⚂", 4: "⚃", 5: "⚄", 6: "⚅"}
FACE_WORDS = FACE_LABELS  # Spanish lives in language/screen.py
ROUND_WORDS = ROUND_LABELS
WAITING_WORDS = WAITING_LABELS


def bid_words(quantity: int, face: int, clean: bool = False) -> str:
    """'5 × ⚄ quina' — digits and pips read faster across a table than words."""
    word = FACE_WORDS.get(face, str(face))
    return f"{quantity} × {PIPS.get(face, '')} {word}{' limpio' if clean else ''}"


def standing_bid_words(bid: dict[str, Any] | None, by: str) -> str:
    """The protocol's standing bid object as words, or "" when no bid stands."""
    if not bid:
        return ""
    return f"{bid_words(bid['quantity'], bid['face'], bid.get('clean', False))}{by}{bid.get('by')}"


@dataclass
class TableView:
    """Everything the screen shows, taken from the protocol state plus the loop's own facts."""

    state: dict[str, Any] = field(default_factory=dict)
    said: str = ""
    heard: str | None = None
    confidence: float | None = None
    minimums: tuple[tuple[int, int, bool], ...] = ()
    listening: bool = True

    def waiting_for(self) -> str:
        awaiting = self.state.get("awaiting", "")
        who = self.state.get("turn")
        what = WAITING_WORDS.get(awaiting, awaiting)
        return f"{who}: {what}" if who and awaiting in ("bid", "obligar", "modality") else what

    def summary_line(self) -> str:
        """The plain-text form: one line a person can follow in a log or a pipe."""
        players = " ".join(
            f"{p['name']}{'*' if p['name'] == self.state.get('turn') else ''}:{p['dice']}"
            for p in self.state.get("players", [])
            if p.get("active", True)
        )
        bid_text = standing_bid_words(self.state.get("bid"), " de ") or "sin canto"
        heard = f" | oído: {self.heard!r}" if self.heard else ""
        if self.heard and self.confidence is not None:
            heard += f" {self.confidence:.0%}"
        return (f"[{players}] {bid_text} | dados: {self.state.get('dice_on_table', '?')} | "
                f"espera: {self.waiting_for()}{heard}")


class NullDisplay:
    """`--json`: stdout carries only the protocol."""

    def start(self) -> None:
        pass

    def update(self, view: TableView) -> None:
        pass

    def stop(self) -> None:
        pass


class PlainDisplay:
    """Not a terminal: one line per change."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self._last = ""

    def start(self) -> None:
        pass

    def update(self, view: TableView) -> None:
        line = view.summary_line()
        if view.said:
            line = f"Árbitro: {view.said}\n{line}"
        if line != self._last:
            print(line, file=self.out, flush=True)
            self._last = line

    def stop(self) -> None:
        pass


class RichDisplay:
    """A live full-screen panel, redrawn on every change."""

    def __init__(self, console=None) -> None:
        from rich.console import Console

        self.console = console or Console()
        self._live = None

    def start(self) -> None:
        from rich.live import Live

        self._live = Live(console=self.console, auto_refresh=False, screen=False)
        self._live.start()

    def update(self, view: TableView) -> None:
        if self._live is None:
            self.start()
        self._live.update(render(view), refresh=True)

    def stop(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None


def render(view: TableView):
    """The rich renderable for one moment of the game."""
    from rich import box
    from rich.console import Group
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    state = view.state
    turn = state.get("turn")
    direction = state.get("direction", "izquierda")
    arrow = "↻ a la izquierda" if direction == "izquierda" else "↺ a la derecha"

    seats = Table(box=box.SIMPLE_HEAVY, expand=True, show_edge=False)
    seats.add_column("Jugador", style="bold", ratio=2)
    seats.add_column("Dados", ratio=3)
    for player in state.get("players", []):
        name, dice = player["name"], player["dice"]
        if not player.get("active", True):
            seats.add_row(Text(name, style="dim strike"), Text("fuera", style="dim"))
            continue
        row_style = "reverse bold" if name == turn else ""
        seats.add_row(Text(("▶ " if name == turn else "  ") + name),
                      Text(f"{'■ ' * min(dice, 10)}{dice}"), style=row_style)

    bid = state.get("bid")
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold cyan", justify="right")
    facts.add_column()
    facts.add_row("Canto", Text(standing_bid_words(bid, "  de ") or "ninguno", style="bold yellow"))
    if view.minimums:
        facts.add_row("Mínimo", "  ·  ".join(bid_words(*m) for m in view.minimums))
    facts.add_row("Ronda", f"{ROUND_WORDS.get(state.get('round', 'normal'), state.get('round'))}"
                           f"   {arrow}")
    on_table = state.get("dice_on_table", "?")
    facts.add_row("En la mesa", f"{on_table} {'dado' if on_table == 1 else 'dados'}")
    facts.add_row("Espero", Text(view.waiting_for(), style="bold green"))
    if view.heard is not None:
        conf = f"  ({view.confidence:.0%})" if view.confidence is not None else ""
        facts.add_row("Oí", f"«{view.heard}»{conf}")
    if view.said:
        facts.add_row("Dije", Text(view.said, style="italic"))
    if state.get("winner"):
        facts.add_row("Ganador", Text(state["winner"], style="bold magenta"))
    title = "Dudo — árbitro" + ("  🎤" if view.listening else "  🔈")
    return Panel(Group(seats, facts), title=title, border_style="bright_blue")


def make_display(json_mode: bool, out: TextIO | None = None):
    """Rich on a terminal, plain lines in a pipe, nothing next to the JSON protocol."""
    out = out or sys.stdout
    if json_mode:
        return NullDisplay()
    if out.isatty():
        return RichDisplay()
    return PlainDisplay(out)
