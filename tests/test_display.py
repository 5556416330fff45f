"""The table screen shows the protocol state; it degrades to plain lines or nothing."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from voice_ref.voice.display import (
    NullDisplay,
    PlainDisplay,
    RichDisplay,
    TableView,
    make_display,
    render,
)


def state(**changes):
    base = {
        "players": [
            {"name": "Ana", "dice": 5, "active": True},
            {"name": "Beto", "dice": 3, "active": True},
            {"name": "Carla", "dice": 0, "active": False},
        ],
        "turn": "Beto",
        "bid": {"quantity": 5, "face": 5, "clean": False, "by": "Ana"},
        "dice_on_table": 8,
        "round": "normal",
        "direction": "izquierda",
        "awaiting": "bid",
        "winner": None,
    }
    base.update(changes)
    return base


def screen(view: TableView) -> str:
    console = Console(record=True, width=90, color_system=None)
    console.print(render(view))
    return console.export_text()


def test_rich_screen_shows_players_turn_bid_minimums_and_heard():
    view = TableView(state(), said="Cinco quinas. Le toca a Beto.", heard="cinco quinas",
                     confidence=0.87, minimums=((5, 6, False), (6, 2, False), (3, 1, False)))
    text = screen(view)
    assert "▶ Beto" in text
    assert "▶ Ana" not in text
    assert "5 × ⚄ quina" in text and "de Ana" in text
    assert "5 × ⚅ sexto" in text and "3 × ⚀ as" in text
    assert "fuera" in text  # Carla is out
    assert "8 dados" in text
    assert "«cinco quinas»  (87%)" in text
    assert "Beto: un canto" in text
    assert "a la izquierda" in text


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"awaiting": "count", "turn": None}, "cuántos dados hay"),
        ({"bid": None}, "ninguno"),
        ({"round": "obligar"}, "ronda obligada"),
        ({"direction": "derecha"}, "a la derecha"),
        ({"winner": "Ana", "awaiting": "game_over"}, "Ganador"),
        ({"dice_on_table": 1}, "1 dado "),
    ],
)
def test_rich_screen_follows_the_state(changes, expected):
    assert expected in screen(TableView(state(**changes)))


def test_plain_display_prints_one_line_per_change():
    out = io.StringIO()
    display = PlainDisplay(out)
    view = TableView(state(), heard="cinco quinas", confidence=0.9)
    display.update(view)
    display.update(view)  # unchanged: not printed again
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    assert "Beto*:3" in lines[0] and "Carla" not in lines[0]
    assert "oído: 'cinco quinas' 90%" in lines[0]
    display.update(TableView(state(turn="Ana"), said="Le toca a Ana."))
    lines = out.getvalue().splitlines()
    assert len(lines) == 3
    assert lines[1] == "Árbitro: Le toca a Ana."
    assert "Ana*:5" in lines[2] and "5 × ⚄ quina de Ana" in lines[2]


def test_display_choice():
    assert isinstance(make_display(json_mode=True), NullDisplay)
    assert isinstance(make_display(json_mode=False, out=io.StringIO()), PlainDisplay)

    class Tty(io.StringIO):
        def isatty(self):
            return True

    assert isinstance(make_display(json_mode=False, out=Tty()), RichDisplay)
