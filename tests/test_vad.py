"""StreamingVad's tentative ends on a real DEV clip (Silero, no Whisper model needed)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from voice_ref.voice.asr.vad import Segment, StreamingVad, TalkGate
from voice_ref.voice.audio_in import read_wav

DEV = Path(__file__).parents[1].parent / "shared/audio/dev"
RATE = 16000
BLOCK = 1600  # the bench's and the microphone's 0.1 s


@pytest.fixture(scope="module")
def speech() -> np.ndarray:
    """The speech of a clean DEV bid ("diez quinas"), without its silence."""
    pytest.importorskip("faster_whisper")
    if not (DEV / "labels.jsonl").exists():
        pytest.skip(f"dev audio set not found at {DEV}")
    labels = [json.loads(line) for line in (DEV / "labels.jsonl").read_text().splitlines()]
    label = next(lb for lb in labels if lb["category"] == "bid" and lb["noise"] is None)
    audio = read_wav(DEV / label["file"])
    return audio[int(label["speech_start"] * RATE) : int(label["speech_end"] * RATE)]


@pytest.fixture(scope="module")
def babble(speech: np.ndarray) -> np.ndarray:
    """8 s of background talk: six other clean DEV utterances (other voices), each looped
    from its own offset, summed, at 15 dB below the bid's speech."""
    labels = [json.loads(line) for line in (DEV / "labels.jsonl").read_text().splitlines()]
    talkers = [lb for lb in labels if lb["noise"] is None and lb["category"] == "chatter"][:6]
    length = 8 * RATE
    mix = np.zeros(length, np.float32)
    for k, label in enumerate(talkers):
        audio = read_wav(DEV / label["file"])
        voice = audio[int(label["speech_start"] * RATE) : int(label["speech_end"] * RATE)]
        mix += np.roll(np.resize(voice, length), k * 4000) / (np.sqrt(np.mean(voice**2)) + 1e-9)
    level = np.sqrt(np.mean(speech**2)) / np.sqrt(np.mean(mix**2)) * 10 ** (-15 / 20)
    return (mix * level).astype(np.float32)


def _silence(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * RATE), np.float32)


def _feed(vad: StreamingVad, audio: np.ndarray) -> list[tuple[int, Segment]]:
    """(block number, segment) for every segment, in order."""
    return [
        (i // BLOCK, seg)
        for i in range(0, len(audio), BLOCK)
        for seg in vad.feed(audio[i : i + BLOCK])
    ]


def test_a_tentative_end_comes_first_with_the_final_audio(speech: np.ndarray) -> None:
    vad = StreamingVad(tail_s=0.064)
    events = _feed(vad, np.concatenate([_silence(0.5), speech, _silence(0.6)]))
    assert [seg.final for _, seg in events] == [False, True]
    (early_block, tentative), (final_block, final) = events
    assert early_block < final_block  # recognition can start a block sooner (or more)
    assert final.same_audio(tentative)
    # The audio ends two chunks after the speech: the tail, not `pad_s`.
    assert len(final.audio) == round((final.end_s - final.start_s) * RATE) + vad.pad + 2 * 512


def test_without_a_tail_there_is_no_tentative_end(speech: np.ndarray) -> None:
    events = _feed(StreamingVad(), np.concatenate([_silence(0.5), speech, _silence(0.6)]))
    assert [seg.final for _, seg in events] == [True]


def test_speech_resuming_after_a_tentative_end_is_one_utterance(speech: np.ndarray) -> None:
    # A 0.1 s pause: longer than the tail (one chunk), shorter than `end_silence_s`.
    audio = np.concatenate([_silence(0.5), speech, _silence(0.1), speech, _silence(0.6)])
    segments = [seg for _, seg in _feed(StreamingVad(tail_s=0.032), audio)]
    finals = [seg for seg in segments if seg.final]
    assert len(finals) == 1
    first = segments[0]
    assert not first.final and first.end_s < finals[0].end_s - 0.5  # the first word only
    assert not finals[0].same_audio(first)
    assert finals[0].end_s > 0.5 + 2 * len(speech) / RATE  # the audio goes to the new end


def test_in_speech_from_the_start_of_speech_to_its_end(speech: np.ndarray) -> None:
    """What the loop asks before it speaks: is a player talking now?"""
    vad = StreamingVad()
    vad.feed(_silence(0.5))
    assert not vad.in_speech
    vad.feed(speech[: len(speech) // 2])
    assert vad.in_speech
    assert [seg.final for seg in vad.feed(np.concatenate([speech[len(speech) // 2 :],
                                                           _silence(0.6)]))] == [True]
    assert not vad.in_speech


def _call_over_babble(speech: np.ndarray, babble: np.ndarray) -> tuple[np.ndarray, float, float]:
    """6 s of background talk, the call over it, the talk going on for 2 s: the audio and
    where the call's speech is (seconds)."""
    start = 6 * RATE
    audio = babble.copy()
    audio[start : start + len(speech)] += speech
    return audio, start / RATE, (start + len(speech)) / RATE


def test_background_talk_keeps_the_silero_vad_in_speech(speech, babble) -> None:
    """Why the talk gate exists: to Silero, talk nearby is speech, so an utterance only
    ends at `max_utterance_s` or when the talk pauses, with the call somewhere inside."""
    audio, start, end = _call_over_babble(speech, babble)
    vad = StreamingVad(max_utterance_s=10.0)
    spans = [(seg.start_s, seg.end_s) for _, seg in _feed(vad, audio) if seg.final]
    spans += [(seg.start_s, seg.end_s) for seg in vad.flush()]
    around = [(a, b) for a, b in spans if a < end and b > start]
    assert around and around[0][1] - around[0][0] > (end - start) + 1.0


def test_with_the_talk_gate_the_call_is_its_own_utterance(speech, babble) -> None:
    audio, start, end = _call_over_babble(speech, babble)
    vad = StreamingVad(talk_gate=TalkGate())
    spans = [(seg.start_s, seg.end_s) for _, seg in _feed(vad, audio) if seg.final]
    spans += [(seg.start_s, seg.end_s) for seg in vad.flush()]
    around = [(a, b) for a, b in spans if a < end and b > start]
    assert len(around) == 1
    (a, b), = around
    assert start - 0.3 <= a and b <= end + 0.3  # the call, not the talk around it


def test_the_talk_gate_stays_out_of_the_way_in_a_quiet_room(speech) -> None:
    """No background talk (silence around the call): the same utterance as without it."""
    audio = np.concatenate([_silence(6.0), speech, _silence(1.0)])
    gated = [(s.start_s, s.end_s) for _, s in _feed(StreamingVad(talk_gate=TalkGate()), audio)]
    plain = [(s.start_s, s.end_s) for _, s in _feed(StreamingVad(), audio)]
    assert gated == plain and len(plain) == 1


def test_the_talk_gate_leaves_noise_that_is_not_talk_alone(speech) -> None:
    """Dishes, a tap, pink noise: Silero does not take them for speech, so the window is
    never busy and a call at 6 dB over them is cut exactly as without the gate."""
    labels = [json.loads(line) for line in (DEV / "labels.jsonl").read_text().splitlines()]
    for kind in ("doing_the_dishes", "running_tap", "pink_noise"):
        label = next(lb for lb in labels if lb["category"] == "noise_only" and lb["noise"] == kind)
        noise = np.resize(read_wav(DEV / label["file"]), 8 * RATE)
        call = np.zeros(8 * RATE, np.float32)
        call[6 * RATE : 6 * RATE + len(speech)] = speech
        gain = np.sqrt(np.mean(speech**2) / np.mean(noise**2)) * 10 ** (-6 / 20)
        audio = (call + gain * noise).astype(np.float32)
        gated = [(s.start_s, s.end_s) for _, s in _feed(StreamingVad(talk_gate=TalkGate()), audio)]
        plain = [(s.start_s, s.end_s) for _, s in _feed(StreamingVad(), audio)]
        assert gated == plain, kind


def test_players_talking_a_lot_over_noise_is_no_background_talk(speech) -> None:
    """Calls one after another with 0.4 s pauses, over pink noise at 6 dB: the window is
    mostly speech, but its quiet part (the pauses) is the noise, so the gate stays out
    (it chopped such calls when it looked at the whole window: tuning-real, session 25)."""
    labels = [json.loads(line) for line in (DEV / "labels.jsonl").read_text().splitlines()]
    pink = [lb for lb in labels if lb["category"] == "noise_only" and lb["noise"] == "pink_noise"]
    label = pink[0]
    gap = _silence(0.4)
    calls = np.concatenate([np.concatenate([speech, gap]) for _ in range(10)])
    noise = np.resize(read_wav(DEV / label["file"]), len(calls))
    gain = np.sqrt(np.mean(speech**2) / np.mean(noise**2)) * 10 ** (-6 / 20)
    audio = (calls + gain * noise).astype(np.float32)
    gated = [(s.start_s, s.end_s) for _, s in _feed(StreamingVad(talk_gate=TalkGate()), audio)]
    plain = [(s.start_s, s.end_s) for _, s in _feed(StreamingVad(), audio)]
    assert gated == plain
