"""How long a table waits for the referee: from the end of a player's words to the first
sound of the referee's answer, in the air, on the virtual sound card.

Run: `python tests/bench_answer_gap.py [--model models/whisper-base-table] [--runs 3]`.
Plays SHORT_GAME (tests/table_audio.py) into a live `voice-ref play --json` as the live
test does (each player speaks once the referee listens again) while `parec` records the
card's air, where the players' clips and the referee's voice both sound. Each clip is
found in that recording by correlation (the null sink mixes it sample for sample), and
the gap is measured there, on one clock: the end of the clip's speech to the first
10 ms of the referee's voice after it. That is what the table feels: the voice detector's
wait for the end of speech, recognition and decision, the referee's synthesis and the
sound system, all in one number. Prints numbers, asserts nothing (timings depend on the
machine and its load: stated with the load average).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pulse_helpers import SINK, VirtualSoundCard  # noqa: E402
from table_audio import SHORT_GAME, short_game_config, utterance_wav, voice_of  # noqa: E402
from test_live_table import Lines  # noqa: E402

from voice_ref.voice.audio_in import read_wav  # noqa: E402
from voice_ref.voice.session import listening_line  # noqa: E402

RATE = 16000
FRAME = RATE // 100  # 10 ms
SOUND = 1e-3  # the card's silence is exactly zero; espeak's quietest speech is far above
UNANSWERED_S = 30.0  # a line not understood gets no reply (the table would repeat it)


def speech_end(clip: np.ndarray) -> int:
    """Sample after the clip's last audible one (its trailing silence is no speech)."""
    loud = np.flatnonzero(np.abs(clip) > SOUND)
    return int(loud[-1]) + 1 if len(loud) else len(clip)


def find(clip: np.ndarray, air: np.ndarray, start: int) -> int:
    """Where `clip` begins in `air` at or after `start` (FFT cross-correlation)."""
    segment = air[start:]
    n = 1 << int(np.ceil(np.log2(len(segment) + len(clip))))
    corr = np.fft.irfft(np.fft.rfft(segment, n) * np.conj(np.fft.rfft(clip, n)), n)
    return start + int(np.argmax(corr[: len(segment) - len(clip) + 1]))


def first_sound(air: np.ndarray, start: int) -> int | None:
    """Start of the first 10 ms frame at or after `start` with sound in it."""
    frames = air[start : start + (len(air) - start) // FRAME * FRAME].reshape(-1, FRAME)
    loud = np.flatnonzero(np.abs(frames).max(axis=1) > SOUND)
    return start + int(loud[0]) * FRAME if len(loud) else None


def one_game(card: VirtualSoundCard, tmp: Path, model: str) -> list[float]:
    """Gaps in seconds, one per line of SHORT_GAME, for one live game."""
    config = short_game_config(tmp / "config.toml", Path(model))
    clips = [utterance_wav(text, tmp / f"u{i}.wav", voice_of(who))
             for i, (who, text) in enumerate(SHORT_GAME)]
    raw = tmp / "air.raw"
    with raw.open("wb") as sink:
        recorder = subprocess.Popen(
            ["parec", f"--device={SINK}.monitor", "--raw", "--format=s16le",
             f"--rate={RATE}", "--channels=1", "--latency-msec=20"],
            env=card.env(), stdout=sink)
        live = subprocess.Popen(
            [sys.executable, "-m", "voice_ref", "--config", str(config), "play", "--json",
             "--state-dir", str(tmp / "state")],
            env=card.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            encoding="utf-8")
        out, err = Lines(live.stdout), Lines(live.stderr)
        answered = 0
        try:
            json.loads(out.next(timeout=300))  # the opening
            err.wait_for(listening_line(1), timeout=300)
            for n, clip in enumerate(clips, start=2):
                card.play(clip)
                try:
                    json.loads(out.next(timeout=UNANSWERED_S))
                except queue.Empty:  # not understood: the script cannot go on
                    print(f"  {clip.name}: no answer in {UNANSWERED_S:.0f} s; game stopped")
                    break
                answered += 1
                err.wait_for(listening_line(n), timeout=120)
            time.sleep(1.0)
        finally:
            live.terminate()
            live.wait(timeout=60)
            recorder.terminate()
            recorder.wait(timeout=30)
    air = np.frombuffer(raw.read_bytes()[: raw.stat().st_size // 2 * 2], "<i2") / 32768.0
    gaps, at = [], 0
    for path in clips[:answered]:
        clip = read_wav(path, RATE)
        begin = find(clip, air, at)
        end = begin + speech_end(clip)
        # The answer may start within the clip's trailing silence: compare the speech only.
        if np.max(np.abs(air[begin:end] - clip[: end - begin])) > 0.01:
            raise SystemExit(f"{path.name} is not in the recording as played (mixed with "
                             "other sound?): no gap measured")
        answer = first_sound(air, end)
        if answer is None:
            raise SystemExit(f"no answer heard after {path.name}")
        gaps.append((answer - end) / RATE)
        at = answer
    return gaps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=str(Path(__file__).resolve().parents[1]
                                           / "models" / "whisper-base"))
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    load = os.getloadavg()
    gaps: list[float] = []
    for run in range(args.runs):
        with VirtualSoundCard() as card, tempfile.TemporaryDirectory() as tmp:
            game = one_game(card, Path(tmp), args.model)
        print(f"game {run + 1}: " + " ".join(f"{g:.2f}" for g in game), flush=True)
        gaps += game
    if not gaps:
        raise SystemExit("no line was answered: no gap to report")
    ordered = sorted(gaps)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    print(f"end of a player's words -> first sound of the referee, {len(gaps)} lines: mean "
          f"{statistics.mean(gaps):.2f} s, median {statistics.median(gaps):.2f} s, p95 "
          f"{p95:.2f} s, max {max(gaps):.2f} s (model {args.model}; load "
          f"{load[0]:.2f} {load[1]:.2f} -> {' '.join(f'{x:.2f}' for x in os.getloadavg()[:2])})")


if __name__ == "__main__":
    main()
