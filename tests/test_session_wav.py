"""`voice-ref play --input session.wav`: a recorded table session refereed with Whisper.

The recording is generated here from text (espeak-ng voices for the players, pauses
between turns); the game must come out exactly as the same words typed into text mode.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from table_audio import (
    SHORT_GAME,
    espeak_available,
    read_log,
    session_wav,
    short_game_config,
    typed_game,
    voice_of,
    without_heard,
)

WHISPER = Path(__file__).resolve().parents[1] / "models" / "whisper-base"

pytestmark = [pytest.mark.whisper_model, pytest.mark.slow]


def test_a_recorded_session_plays_like_typed_text(tmp_path):
    if not espeak_available():
        pytest.skip("espeak-ng is not installed (apt install espeak-ng)")
    if not (WHISPER / "model.bin").exists():
        pytest.skip("models/whisper-base is missing: run `voice-ref models install whisper-base`")
    config = short_game_config(tmp_path / "config.toml", WHISPER)
    expected, expected_log = typed_game(tmp_path / "typed", config)
    wav = session_wav([(voice_of(who), text) for who, text in SHORT_GAME],
                      tmp_path / "session.wav")
    run = subprocess.run(
        [sys.executable, "-m", "voice_ref", "--config", str(config), "play", "--input", str(wav),
         "--json", "--silent", "--state-dir", str(tmp_path / "wav")],
        capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stderr
    objects = [json.loads(line) for line in run.stdout.splitlines()]
    assert [o["heard"] is None for o in objects] == [True] + [False] * len(SHORT_GAME)
    assert [without_heard(o) for o in objects] == [without_heard(o) for o in expected]
    log = read_log(tmp_path / "wav")
    assert [r.get("intent") for r in log[1:]] == [r.get("intent") for r in expected_log[1:]]
