"""The held-out noise sets of tools/ (`held_out_noise`): dice and music alone at each
peak, and the held-out voices' clean lines with them under at the label's SNR (the
recordings faked here: no apt)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from tool_loader import load_tool

from voice_ref.simulation.render import active_power
from voice_ref.voice.audio_in import read_wav, write_wav

RATE = 16000


def _tone(hz: float, seconds: float) -> np.ndarray:
    t = np.arange(int(RATE * seconds)) / RATE
    return (0.2 * np.sin(2 * np.pi * hz * t)).astype(np.float32)


def _dev_like(src: Path) -> None:
    (src / "wav").mkdir(parents=True)
    rows = [
        {"file": "wav/d0001.wav", "voice": "es+m3", "noise": None, "snr": None,  # held out, clean
         "category": "bid", "text": "cinco quinas", "intent": {"type": "bid"}},
        {"file": "wav/d0002.wav", "voice": "es+m1", "noise": None, "snr": None,  # tuning voice
         "category": "bid", "text": "tres ases", "intent": {"type": "bid"}},
        {"file": "wav/d0003.wav", "voice": "es+f4", "noise": "pink_noise", "snr": 6,  # noisy
         "category": "dudo", "text": "dudo", "intent": {"type": "dudo"}},
        {"file": "wav/d0005.wav", "voice": None, "noise": "pink_noise", "snr": None,
         "category": "noise_only", "text": "", "intent": {"type": "none"}},
    ]
    for row in rows:
        write_wav(src / row["file"], _tone(1000, 1.0), RATE)
    (src / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def _built(tool, seconds: float, tmp_path: Path, monkeypatch) -> list[dict]:
    """The labels of a set the tool builds from a DEV-like folder, its recordings faked as
    tones of `seconds`."""
    fake = {name: _tone(200 + 50 * i, seconds) for i, name in enumerate(tool.RECORDINGS)}
    monkeypatch.setattr(tool, "fetch", lambda debs, work: fake)
    _dev_like(tmp_path / "dev")
    assert tool.main([str(tmp_path / "dev"), str(tmp_path / "set")]) == 0
    return [json.loads(x) for x in (tmp_path / "set" / "labels.jsonl").read_text().splitlines()]


def test_dice_alone_and_under_held_out_speech(tmp_path, monkeypatch):
    made = _built(load_tool("make_dice_set"), 0.5, tmp_path, monkeypatch)
    assert all(m["split"] == "heldout" for m in made)
    alone = [m for m in made if m["category"] == "noise_only"]
    assert len(alone) == 8 * len(load_tool("held_out_noise").PEAKS_DBFS)
    for m in alone:
        clip = read_wav(tmp_path / "set" / m["file"], RATE)
        assert 20 * np.log10(np.max(np.abs(clip))) == pytest.approx(
            float(m["tags"][1].removeprefix("peak")), abs=0.5)  # + the hiss
    speech = [m for m in made if m["category"] != "noise_only"]
    assert [(m["text"], m["snr"]) for m in speech] == [("cinco quinas", 6), ("cinco quinas", 12)]
    for m in speech:
        noisy = read_wav(tmp_path / "set" / m["file"], RATE)
        rattle = noisy - _tone(1000, 1.0)
        assert 10 * np.log10(active_power(_tone(1000, 1.0)) / np.mean(rattle**2)) == \
            pytest.approx(m["snr"], abs=0.3)


def test_music_excerpts_come_from_the_middle_of_each_track():
    tool = load_tool("make_music_set")
    size = int(tool.EXCERPT_S * RATE)
    tracks = {"long": np.arange(100 * RATE, dtype=np.float32), "short": _tone(300, 3.0)}
    cut = tool.excerpts(tracks, random.Random(1))
    assert len(cut["long"]) == size
    start = int(cut["long"][0])
    low, high = tool.START_RANGE
    assert low * 100 * RATE <= start <= high * 100 * RATE
    assert np.array_equal(cut["short"], tracks["short"])  # shorter than an excerpt: all of it


def test_music_alone_and_under_held_out_speech(tmp_path, monkeypatch):
    tool = load_tool("make_music_set")
    made = _built(tool, 12.0, tmp_path, monkeypatch)
    alone = [m for m in made if m["category"] == "noise_only"]
    assert len(alone) == len(tool.RECORDINGS) * len(load_tool("held_out_noise").PEAKS_DBFS)
    assert {m["noise"] for m in alone} == set(tool.RECORDINGS)
    speech = [m for m in made if m["category"] != "noise_only"]
    assert [(m["text"], m["snr"]) for m in speech] == [("cinco quinas", 6), ("cinco quinas", 12)]
    assert all(m["noise"] in tool.RECORDINGS for m in speech)


def test_music_playlist_is_the_excerpts_one_after_another(tmp_path, monkeypatch):
    tool = load_tool("make_music_set")
    fake = {name: _tone(200 + 50 * i, 12.0) for i, name in enumerate(tool.RECORDINGS)}
    monkeypatch.setattr(tool, "fetch", lambda debs, work: fake)
    assert tool.main(["--playlist", str(tmp_path / "radio.wav")]) == 0
    radio = read_wav(tmp_path / "radio.wav", RATE)
    assert len(radio) == len(tool.RECORDINGS) * int(tool.EXCERPT_S * RATE)
    with pytest.raises(SystemExit):
        tool.main([])  # neither a set nor a playlist
