"""The dining room a simulated table sits in: each seat's voice reaches the microphone in
the middle of the table with the room's echo (`voice-ref bench --games --room RT60`).

A laptop in the middle of a table hears players 0.6-1.1 m away; in an ordinary dining
room (reverberation time 0.4-0.7 s) that is beyond the distance where the echo is as
loud as the voice itself, and recognition loses more there than to any noise the DEV set
has (BENCHMARKS.md, session 27). The rooms are shoe boxes simulated by the image-source
method (pyroomacoustics, a bench tool: the `dev` extra); the table, its people and the
furniture are not modelled.
"""

from __future__ import annotations

import math
import multiprocessing
import random
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

from voice_ref.simulation.render import RATE

MIC_HEIGHT_M = 0.8  # a laptop's microphone on a dining table
MOUTH_HEIGHT_M = 1.2  # a seated player


@dataclass(frozen=True, slots=True)
class DiningRoom:
    """A room with reverberation time `rt60_s`, drawn from `seed` (its size, where the
    table stands, how far each seat is from the microphone)."""

    rt60_s: float
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0.1 <= self.rt60_s <= 2.0:
            raise ValueError("a room's reverberation time is 0.1 to 2 seconds.")

    def seat_responses(self, seats: int) -> tuple[np.ndarray, ...]:
        """The impulse response from each seat's mouth to the microphone, seats around the
        table in order, peak 1, starting at the direct sound. Computed in a child process:
        pyroomacoustics and scipy would add ~100 MB to the peak memory the bench reports."""
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            return pool.submit(room_responses, self.rt60_s, self.seed, seats).result()


def room_responses(rt60_s: float, seed: int, seats: int) -> tuple[np.ndarray, ...]:
    """`DiningRoom(rt60_s, seed).seat_responses(seats)`, computed in this process."""
    try:
        import pyroomacoustics as pra
    except ImportError:
        raise RuntimeError(
            "simulating a room needs pyroomacoustics (pip install pyroomacoustics, or "
            "the dev extra: pip install -e '.[dev]')."
        ) from None
    rng = random.Random(f"{seed}:room")
    size = [rng.uniform(4.0, 6.0), rng.uniform(3.5, 5.0), rng.uniform(2.5, 2.8)]
    absorption, max_order = pra.inverse_sabine(rt60_s, size)
    mic = [size[0] / 2 + rng.uniform(-0.2, 0.2), size[1] / 2 + rng.uniform(-0.2, 0.2),
           MIC_HEIGHT_M]
    turn = rng.uniform(0.0, 2 * math.pi)
    out = []
    for seat in range(seats):
        angle = turn + 2 * math.pi * seat / seats
        distance = rng.uniform(0.6, 1.1)
        mouth = [mic[0] + distance * math.cos(angle), mic[1] + distance * math.sin(angle),
                 MOUTH_HEIGHT_M + rng.uniform(-0.05, 0.1)]
        room = pra.ShoeBox(size, fs=RATE, materials=pra.Material(absorption),
                           max_order=max_order)
        room.add_source(mouth)
        room.add_microphone(mic)
        room.compute_rir()
        response = np.asarray(room.rir[0][0], np.float64)
        response = response[int(np.argmax(np.abs(response))) :]
        out.append((response / np.max(np.abs(response))).astype(np.float32))
    return tuple(out)
