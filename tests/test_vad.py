"""StreamingVad's tentative ends on a real DEV clip (Silero, no Whisper model needed)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from voice_ref.voice.asr.vad import Segment, StreamingVad
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
