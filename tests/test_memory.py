"""The fixed glibc mmap threshold (voice/asr/memory.py): set once, a user's setting wins."""

from __future__ import annotations

import platform

import pytest

from voice_ref.voice.asr.memory import MMAP_THRESHOLD, fix_mmap_threshold


def test_a_users_own_threshold_is_left_alone() -> None:
    assert fix_mmap_threshold({"MALLOC_MMAP_THRESHOLD_": "131072"}) is False


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
                    reason="mallopt's M_MMAP_THRESHOLD is glibc's")
def test_glibc_takes_the_threshold() -> None:
    assert fix_mmap_threshold({}) is True
    assert fix_mmap_threshold({}, MMAP_THRESHOLD) is True  # setting it again is harmless

