"""The dining room of a simulated table (`voice-ref bench --games --room RT60`)."""

from __future__ import annotations

import random
from argparse import Namespace

import numpy as np
import pytest

from voice_ref.config import Config
from voice_ref.simulation.render import (
    ECHO_TAIL_S,
    Renderer,
    Voice,
    active_power,
    espeak_available,
    reverberant,
)
from voice_ref.simulation.room import DiningRoom

pytest.importorskip("pyroomacoustics", reason="the dev extra brings pyroomacoustics")


def test_a_room_is_drawn_from_its_seed_with_one_response_per_seat():
    seats = DiningRoom(0.5, seed=3).seat_responses(3)
    again = DiningRoom(0.5, seed=3).seat_responses(3)
    other = DiningRoom(0.5, seed=4).seat_responses(3)
    assert len(seats) == 3
    assert all(np.array_equal(a, b) for a, b in zip(seats, again, strict=True))
    assert not np.array_equal(seats[0], other[0])
    assert not np.array_equal(seats[0], seats[1])  # each seat is somewhere else
    for response in seats:
        assert int(np.argmax(np.abs(response))) == 0  # the direct sound comes first
        assert float(np.max(np.abs(response))) == pytest.approx(1.0)


def test_a_livelier_room_rings_longer():
    def ringing(rt60_s: float) -> float:
        response = DiningRoom(rt60_s, seed=1).seat_responses(1)[0].astype(np.float64)
        energy = np.cumsum(response[::-1] ** 2)[::-1]  # Schroeder's backward integral
        return float(np.argmax(energy < energy[0] * 1e-3)) / 16000  # to -30 dB

    assert ringing(0.8) > 1.5 * ringing(0.3)


@pytest.mark.parametrize("rt60_s", [0.0, 5.0])
def test_a_room_out_of_range_is_explained(rt60_s):
    with pytest.raises(ValueError, match="reverberation time"):
        DiningRoom(rt60_s)


def test_a_line_said_in_a_room_keeps_its_level_and_rings_on():
    speech = (0.05 * np.random.default_rng(0).standard_normal(8000)).astype(np.float32)
    response = DiningRoom(0.6, seed=2).seat_responses(1)[0]
    heard = reverberant(speech, response)
    assert len(heard) == len(speech) + int(ECHO_TAIL_S * 16000)
    assert active_power(heard) == pytest.approx(active_power(speech), rel=1e-3)
    assert float(np.mean(heard[len(speech):] ** 2)) > 1e-3 * active_power(speech)
    assert not np.allclose(heard[: len(speech)], speech, atol=1e-3)


@pytest.mark.skipif(not espeak_available(), reason="espeak-ng renders the lines")
def test_a_player_in_the_room_is_heard_with_its_echo_after_the_line():
    voices = {"Carla": Voice("es", 160, 50)}
    response = DiningRoom(0.7, seed=1).seat_responses(1)[0]
    dry = Renderer(voices, random.Random(1))
    wet = Renderer(voices, random.Random(1), responses={"Carla": response})
    said, d0, d1 = dry.render("Carla", "cuatro trenes")
    heard, w0, w1 = wet.render("Carla", "cuatro trenes")
    assert (w0, w1) == (d0, d1)  # the speech is where it was; its echo comes after it
    after = slice(round(w1 * 16000), round(w1 * 16000) + 1600)
    assert float(np.mean(heard[after] ** 2)) > 100 * float(np.mean(said[after] ** 2) + 1e-12)


def test_the_games_bench_takes_a_room():
    from voice_ref.simulation import bench as games_bench

    base = dict(games=1, players="Ana,Beto", voices="es", noise=None, snr=None, seed=7,
                backend=None, model=None, rows=None, rules=None)
    assert games_bench._options(Namespace(**base), Config()).room is None
    options = games_bench._options(Namespace(**base, room=0.5), Config())
    assert options.room == DiningRoom(0.5, seed=7)
    with pytest.raises(ValueError, match="reverberation time"):
        games_bench._options(Namespace(**base, room=9.0), Config())


def test_a_clip_set_is_copied_into_rooms_with_labels_and_levels_kept(tmp_path):
    import json

    from tool_loader import load_tool

    from voice_ref.voice.audio_in import read_wav, write_wav

    src, out = tmp_path / "src", tmp_path / "out"
    (src / "wav").mkdir(parents=True)
    rng = np.random.default_rng(1)
    labels = []
    for i in range(3):
        clip = np.zeros(16000, np.float32)
        clip[4000:10000] = 0.05 * rng.standard_normal(6000)
        write_wav(src / f"wav/c{i}.wav", clip, 16000)
        labels.append({"file": f"wav/c{i}.wav", "text": "dudo", "split": "tuning"})
    (src / "labels.jsonl").write_text("".join(json.dumps(x) + "\n" for x in labels))
    assert load_tool("make_room_set").main([str(src), str(out), "--rooms", "2"]) == 0
    copied = [json.loads(x) for x in (out / "labels.jsonl").read_text().splitlines()]
    assert [x["file"] for x in copied] == [x["file"] for x in labels]
    assert all(x["split"] == "tuning" and 0.4 <= x["room"]["rt60_s"] <= 0.7 for x in copied)
    assert copied[0]["room"] == copied[2]["room"] != copied[1]["room"]  # clip i in room i mod 2
    dry, wet = read_wav(src / "wav/c0.wav"), read_wav(out / "wav/c0.wav")
    assert active_power(wet) == pytest.approx(active_power(dry), rel=0.01)
    assert float(np.mean(wet[10000:12000] ** 2)) > 1e-3 * active_power(dry)  # the echo
