"""Fixtures shared by several test files."""

from __future__ import annotations

import pytest
from pulse_helpers import PulseUnavailable, VirtualSoundCard


@pytest.fixture(scope="module")
def card():
    """A PulseAudio virtual sound card (a null sink whose monitor is the microphone)."""
    sound_card = VirtualSoundCard()
    try:
        sound_card.start()
    except PulseUnavailable as exc:
        pytest.skip(f"PulseAudio cannot start here: {exc}")
    yield sound_card
    sound_card.stop()
