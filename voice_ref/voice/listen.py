"""`voice-ref listen FILE.wav`: what the recognizer hears in a recording, utterance by utterance.

The file is streamed in microphone-sized blocks (`stream`), so VAD, end-pointing
and the decision run exactly as in a live game. `stream` is shared with the
benchmark. Latency is measured on a simulated real-time clock: a block can only
be processed once it "has been recorded", so the result is what a live table
would wait, without waiting for real.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from voice_ref.voice.asr.base import ListenContext, Recognizer, Utterance
from voice_ref.voice.asr.level import FLOOR_DBFS

if TYPE_CHECKING:
    from voice_ref.config import Config
    from voice_ref.voice.decision import Decision

T = TypeVar("T")
BLOCK_S = 0.1
TAIL_SILENCE_S = 0.5  # the room goes on after the file ends: lets the VAD close the utterance


@dataclass(frozen=True, slots=True)
class Streamed:
    utterance: Utterance
    result: Any  # what `handle` returned
    done_s: float  # simulated clock (stream seconds) when `handle` returned


def stream(
    recognizer,  # noqa: ANN001 - a Recognizer
    audio: np.ndarray,
    handle: Callable[[Utterance], T],
    block_s: float = BLOCK_S,
    tail_s: float = TAIL_SILENCE_S,
) -> tuple[list[Streamed], float]:
    """Feed `audio` block by block; returns each utterance with its result and ready time,
    and the total processing (busy) time in seconds."""
    sr = recognizer.sample_rate
    step = max(1, int(sr * block_s))
    blocks = [audio[i : i + step] for i in range(0, len(audio), step)]
    blocks += [np.zeros(step, np.float32)] * round(tail_s / block_s)
    clock = busy = 0.0
    fed = 0
    out: list[Streamed] = []
    for block in [*blocks, None]:
        if block is not None:
            fed += len(block)
        start = max(clock, fed / sr)  # cannot start before the block has been recorded
        t0 = time.perf_counter()
        utterances = recognizer.accept(block) if block is not None else recognizer.flush()
        for utt in utterances:
            result = handle(utt)
            out.append(Streamed(utt, result, start + time.perf_counter() - t0))
        dt = time.perf_counter() - t0
        busy += dt
        clock = start + dt
    return out, busy


def level_note(level_dbfs: float | None) -> str:
    """How loud the speech was, for whoever sets up the microphone ("" when unknown)."""
    if level_dbfs is None:
        return ""
    quiet = "  quiet microphone: raised" if level_dbfs < FLOOR_DBFS else ""
    return f"  [speech {level_dbfs:.0f} dBFS{quiet}]"


def listening(
    config: Config,
    backend: str | None,
    model: str | None,
    players: list[str],
    expecting: str,
) -> tuple[Recognizer, Callable[[Utterance], Decision]]:
    """The configured recognizer (`backend`, `model`: the command line's choice, if any)
    told what a game expecting `expecting` listens for, and the decision for each of its
    utterances: a recording heard as a table would (`listen`, `voice-ref check`). Raises
    `RecognizerUnavailable`."""
    from voice_ref.language.inventory import PhraseInventory
    from voice_ref.language.parser import Parser
    from voice_ref.voice.asr.select import model_and_recognizer
    from voice_ref.voice.decision import decide, thresholds_from

    config, recognizer = model_and_recognizer(config, backend, model, players)
    inventory = PhraseInventory(
        players, config.dialect, clean_bids=config.rules.clean_bids, faces=config.dialect_faces
    )
    phrases = tuple(inventory.phrases(expecting, canonical=False))
    recognizer.set_context(ListenContext(expecting, phrases))
    parser = Parser(players)
    limits = thresholds_from(config)
    return recognizer, lambda utt: decide(utt, parser, limits=limits)


def main(args: argparse.Namespace) -> int:
    from voice_ref.config import load_config
    from voice_ref.language.inventory import EXPECTING
    from voice_ref.voice.asr.select import RecognizerUnavailable
    from voice_ref.voice.audio_in import read_wav
    from voice_ref.voice.decision import Action

    config = load_config(getattr(args, "config", None))
    players = (
        [p.strip() for p in args.players.split(",")] if args.players else list(config.game.players)
    )
    if args.expecting not in EXPECTING:
        print(
            f"voice-ref listen: --expecting must be one of {', '.join(EXPECTING)}", file=sys.stderr
        )
        return 2
    path = Path(args.wav)
    try:
        recognizer, handle = listening(config, args.backend, args.model, players, args.expecting)
        audio = read_wav(path, recognizer.sample_rate)
    except RecognizerUnavailable as exc:
        print(f"voice-ref listen: {exc}", file=sys.stderr)
        return 2
    except (OSError, EOFError, ValueError) as exc:
        print(f"voice-ref listen: cannot read {path} as a WAV file ({exc})", file=sys.stderr)
        return 2
    results, _ = stream(recognizer, audio, handle)
    for item in results:
        utt, decision = item.utterance, item.result
        record = {
            "start_s": round(utt.start_s, 2),
            "end_s": round(utt.end_s, 2),
            "text": utt.best.text if utt.best else "",
            "free_text": utt.free_text,
            "alternatives": [{"text": h.text, "score": h.score} for h in utt.hypotheses[:5]],
            "intent": decision.intent.to_json()
            if decision.is_game_action
            or (decision.action == Action.ACCEPT and decision.intent is not None)
            else None,
            "action": decision.action,
            "score": decision.score,
            "latency_ms": round((item.done_s - utt.end_s) * 1000, 1),
            "level_dbfs": utt.extra.get("level_dbfs"),  # Whisper only
        }
        if args.json:
            print(json.dumps(record, ensure_ascii=False))
        else:
            intent = json.dumps(record["intent"], ensure_ascii=False)
            print(
                f"{record['start_s']:6.2f}-{record['end_s']:6.2f}s  {record['text']!r:30} "
                f"-> {decision.action} {intent}  ({record['latency_ms']:.0f} ms)"
                f"{level_note(record['level_dbfs'])}"
            )
    if not results and not args.json:
        print("(no speech found)")
    return 0
