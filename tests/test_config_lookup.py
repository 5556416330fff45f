"""Which config file is read: ./config.toml, then the user's config folder, then the
packaged default; the one read is named; an invalid one is an error, never skipped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from voice_ref.config import DEFAULT_CONFIG, ConfigOrigin, load_config
from voice_ref.rules.variants import ConfigError

REPO = Path(__file__).resolve().parents[1]
PLAYERS_TOML = '[game]\nplayers = [{names}]\n'


def write_config(folder: Path, *names: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.toml"
    path.write_text(PLAYERS_TOML.format(names=", ".join(f'"{n}"' for n in names)),
                    encoding="utf-8")
    return path


@pytest.fixture
def home(tmp_path, monkeypatch):
    """An empty current folder and empty XDG folders (platformdirs follows XDG_*)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg_config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg_data"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return tmp_path


def test_the_current_folder_comes_first(home):
    write_config(home / "xdg_config" / "voice_ref", "Uno", "Dos")
    path = write_config(home / "work", "Ana", "Beto")
    config = load_config()
    assert config.game.players == ("Ana", "Beto")
    assert (config.source, config.origin) == (path, ConfigOrigin.CURRENT_FOLDER)
    assert config.path("models/x") == home / "work" / "models/x"


def test_then_the_user_config_folder(home):
    path = write_config(home / "xdg_config" / "voice_ref", "Uno", "Dos")
    config = load_config()
    assert config.game.players == ("Uno", "Dos")
    assert (config.source, config.origin) == (path, ConfigOrigin.USER)
    assert str(path) in config.describe_source() and "user config folder" in \
        config.describe_source()


def test_then_the_packaged_default_whose_paths_go_to_the_user_data_folder(home):
    config = load_config()
    assert (config.source, config.origin) == (DEFAULT_CONFIG, ConfigOrigin.PACKAGED)
    assert DEFAULT_CONFIG.parent == Path(__import__("voice_ref").__file__).parent
    assert config.game.players == ("Ana", "Beto", "Carla", "Diego")
    assert config.whisper_model == config.whisper_base == \
        home / "xdg_data" / "voice_ref" / "models" / "whisper-base"


def test_an_invalid_config_in_the_current_folder_is_an_error_not_skipped(home):
    write_config(home / "xdg_config" / "voice_ref", "Uno", "Dos")
    bad = home / "work" / "config.toml"
    bad.write_text("[game\nplayers = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML") as err:
        load_config()
    assert str(bad) in str(err.value)
    bad.write_text('[game]\nplayers = ["Ana"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="at least two") as err:
        load_config()
    assert str(bad) in str(err.value)
    bad.write_text('[asr]\nthreads = "many"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="wrong type"):
        load_config()
    for line in ("speech_accept_score = 45", "accept_score = 0", "speech_accept_score = -0.5"):
        bad.write_text(f"[asr]\n{line}\n", encoding="utf-8")
        with pytest.raises(ConfigError, match="share between 0 and 1"):
            load_config()
    for value in ("-1", "30"):
        bad.write_text(f"[audio]\ncount_hold_s = {value}\n", encoding="utf-8")
        with pytest.raises(ConfigError, match="count_hold_s is seconds"):
            load_config()


def test_the_project_config_is_the_packaged_default():
    """config.toml at the top of the project is what a checkout reads; the one inside the
    package is what an installed voice_ref reads. In the tree it is a link to the project's
    file, so they cannot drift apart (a copy here would be a second source of truth)."""
    assert DEFAULT_CONFIG.resolve() == (REPO / "config.toml").resolve()
    assert (REPO / "voice_ref" / "prompts").resolve() == (REPO / "prompts").resolve()


def run_play(
    cwd: Path, env: dict[str, str], *extra: str, stdin: str = ""
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "voice_ref", "play", "--text", "--state-dir", str(cwd / "log"),
         *extra],
        input=stdin, capture_output=True, text=True, encoding="utf-8", timeout=60, cwd=cwd,
        env=env,
    )


def test_play_names_the_file_it_read_first(home):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    path = write_config(home / "work", "Ana", "Beto")
    plain = run_play(home / "work", env)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.splitlines()[0] == f"voice-ref: config {path} (current folder)"
    as_json = run_play(home / "work", env, "--json")
    opening = json.loads(as_json.stdout.splitlines()[0])
    assert opening["config"] == str(path) and opening["heard"] is None


def test_play_with_an_invalid_config_here_says_so_in_plain_words(home):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    (home / "work" / "config.toml").write_text('[rules]\npreset = "poker"\n', encoding="utf-8")
    run = run_play(home / "work", env, stdin="dudo\n")
    assert run.returncode == 2
    assert "configuration problem" in run.stderr and "config.toml" in run.stderr
    assert "poker" in run.stderr and "Traceback" not in run.stderr
    assert run.stdout == ""
