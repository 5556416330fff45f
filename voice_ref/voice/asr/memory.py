"""A fixed glibc mmap threshold, so the recognizer's big short-lived arrays give their
memory back.

glibc serves an allocation above its mmap threshold with its own mapping, returned to
the system when freed. The threshold starts at 128 kB and rises to the size of every
such block freed (up to 32 MB): after a few utterances the search's arrays of several MB
come from the heap, which a freed block does not shrink, and a whole game's peak RSS
crept up ~40 MB in 375 utterances. Fixed at `MMAP_THRESHOLD` it stays put. 4 MB was
measured on dev-real (BENCHMARKS.md, session 9): peak RSS 576 -> 555 MB at the same
latency; 128 kB gave 538 MB but +37% latency (every array a fresh, zero-filled mapping).
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Mapping

MMAP_THRESHOLD = 4 * 1024 * 1024
_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter number (malloc.h)
_ENV = "MALLOC_MMAP_THRESHOLD_"  # glibc's own variable: a user's setting wins


def fix_mmap_threshold(environ: Mapping[str, str], threshold: int = MMAP_THRESHOLD) -> bool:
    """Set glibc's mmap threshold unless the user set it; whether it was set (False off
    glibc, e.g. macOS, where nothing needs doing)."""
    if _ENV in environ:
        return False
    name = ctypes.util.find_library("c")
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError, TypeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return mallopt(_M_MMAP_THRESHOLD, threshold) == 1
