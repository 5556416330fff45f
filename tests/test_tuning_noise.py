"""tools/tuning_noise.py: the noise the adapted model trains with is the tuning part's
noise-only clips only, never a held-out one nor a speech clip."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tool_loader import load_tool

from voice_ref.voice.audio_in import write_wav


def _labelled(folder: Path, rows: list[dict]) -> None:
    (folder / "wav").mkdir(parents=True)
    for row in rows:
        write_wav(folder / row["file"], np.full(800, 0.01, np.float32), 16000)
    (folder / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_only_the_tuning_noise_only_clips_are_copied(tmp_path: Path) -> None:
    tool = load_tool("tuning_noise")
    _labelled(tmp_path / "dev", [
        {"file": "wav/d0216.wav", "category": "noise_only", "voice": None},   # even: tuning
        {"file": "wav/d0227.wav", "category": "noise_only", "voice": None},   # odd: held out
        {"file": "wav/d0230.wav", "category": "noise_only", "voice": None},
        {"file": "wav/d0004.wav", "category": "bid", "voice": "es+m1"},      # tuning speech
    ])
    copied = tool.copy_tuning_noise(tmp_path / "dev", tmp_path / "noise")
    assert [p.name for p in copied] == ["d0216.wav", "d0230.wav"]
    assert sorted(p.name for p in (tmp_path / "noise").iterdir()) == ["d0216.wav", "d0230.wav"]
    assert (tmp_path / "noise" / "d0216.wav").read_bytes() == \
        (tmp_path / "dev" / "wav" / "d0216.wav").read_bytes()


def test_a_folder_with_other_recordings_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    tool = load_tool("tuning_noise")
    _labelled(tmp_path / "dev", [
        {"file": "wav/d0216.wav", "category": "noise_only", "voice": None},
    ])
    (tmp_path / "noise" / "old").mkdir(parents=True)
    (tmp_path / "noise" / "old" / "my_kitchen.wav").write_bytes(b"RIFF")  # adapt reads subfolders
    with pytest.raises(tool.StrayRecordings, match="my_kitchen.wav"):
        tool.copy_tuning_noise(tmp_path / "dev", tmp_path / "noise")
    left = sorted(p.relative_to(tmp_path / "noise").as_posix()
                  for p in (tmp_path / "noise").rglob("*"))
    assert left == ["old", "old/my_kitchen.wav"]


def test_copying_again_into_the_same_folder_is_fine(tmp_path: Path) -> None:
    tool = load_tool("tuning_noise")
    _labelled(tmp_path / "dev", [
        {"file": "wav/d0216.wav", "category": "noise_only", "voice": None},
    ])
    tool.copy_tuning_noise(tmp_path / "dev", tmp_path / "noise")
    again = tool.copy_tuning_noise(tmp_path / "dev", tmp_path / "noise")
    assert [p.name for p in again] == ["d0216.wav"]


def test_an_output_path_that_is_a_file_gets_a_plain_answer(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    tool = load_tool("tuning_noise")
    _labelled(tmp_path / "dev", [
        {"file": "wav/d0216.wav", "category": "noise_only", "voice": None},
    ])
    out = tmp_path / "noise"
    out.write_text("not a folder")
    monkeypatch.setattr("sys.argv", ["tuning_noise", str(tmp_path / "dev"), str(out)])
    assert tool.main() == 2
    assert str(out) in capsys.readouterr().err
    assert out.read_text() == "not a folder"
