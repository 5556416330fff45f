"""How app.py sets a table up: the recognizer is built for the game actually refereed (a
resumed game's players, rules and dialect win over config.toml, as they do for the referee,
and so do `--rules`), and typed lines use the configured accept score."""

from __future__ import annotations

from argparse import Namespace
from pathlib import Path

import pytest

from voice_ref import app
from voice_ref.config import AsrSettings, Config, GameSettings


def args(tmp: Path, **options) -> Namespace:
    base = dict(players=None, rules=None, starter=None, direction=None, seed=None,
                state_dir=str(tmp), resume=False, backend=None, model=None)
    return Namespace(**{**base, **options})


@pytest.fixture
def built(monkeypatch) -> list[tuple[Config, tuple[str, ...]]]:
    """What make_recognizer was asked for (the real factory would load a model)."""
    from voice_ref.voice.asr import select

    calls: list[tuple[Config, tuple[str, ...]]] = []

    def fake(config, backend=None, model=None, players=None, tell=None):
        calls.append((config, tuple(players)))
        return object()

    monkeypatch.setattr(select, "make_recognizer", fake)
    return calls


CONFIG = Config(game=GameSettings(players=("Ana", "Beto", "Carla")), preset="chile")


def saved_game(tmp: Path) -> None:
    """A cachito game of Xavi, Yola and Zoe, one bid in, left in `tmp`'s log."""
    referee, _ = app.open_referee(
        args(tmp, players="Xavi,Yola,Zoe", rules="cachito", starter="Xavi",
             direction="izquierda"), CONFIG)
    assert referee.handle_text("tres quinas limpias").accepted
    referee.log.close()


def test_resume_builds_the_recognizer_for_the_saved_game(tmp_path, built, capsys):
    saved_game(tmp_path)
    app.recognizer_for(args(tmp_path, resume=True), CONFIG)
    config, players = built[-1]
    assert players == ("Xavi", "Yola", "Zoe")
    assert config.game.players == ("Xavi", "Yola", "Zoe")
    assert config.preset == "cachito" and config.rules.clean_bids
    # the referee resumes the same game, so both agree on who is at the table
    referee, _ = app.open_referee(args(tmp_path, resume=True), CONFIG)
    assert referee.setup.players == players


def test_resume_wins_over_command_line_players_too(tmp_path, built, capsys):
    saved_game(tmp_path)
    app.recognizer_for(args(tmp_path, resume=True, players="Ana,Beto", rules="dudo"), CONFIG)
    config, players = built[-1]
    assert players == ("Xavi", "Yola", "Zoe") and config.preset == "cachito"


def test_resume_without_a_saved_game_uses_the_new_table(tmp_path, built):
    app.recognizer_for(args(tmp_path, resume=True), CONFIG)
    config, players = built[-1]
    assert players == ("Ana", "Beto", "Carla") and config.preset == "chile"
    assert not (tmp_path / "game.jsonl").exists()  # choosing a recognizer writes nothing


def test_rules_option_reaches_the_recognizer(tmp_path, built):
    app.recognizer_for(args(tmp_path, rules="cachito", players="Ana,Beto"), CONFIG)
    config, players = built[-1]
    assert players == ("Ana", "Beto")
    assert config.rules.clean_bids and not CONFIG.rules.clean_bids


def test_text_mode_uses_the_configured_accept_score(tmp_path):
    """"cinco cuinas" reads as cinco quinas at 0.695: taken at the default 0.5, refused at 0.8."""
    table = dict(players="Ana,Beto", starter="Ana", direction="izquierda")
    strict = Config(asr=AsrSettings(accept_score=0.8))
    for config, taken in ((CONFIG, True), (strict, False)):
        folder = tmp_path / str(taken)
        referee, _ = app.open_referee(args(folder, **table), config)
        assert referee.handle_text("cinco cuinas").accepted is taken
