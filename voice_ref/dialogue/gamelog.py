"""The game log: append-only JSON Lines, on disk before the referee speaks.

Line 1 is a header (the table setup: players, rules, starter policy, direction,
seed, dialect). Every later line is one accepted state-changing utterance as its
intent JSON, undos included. Replaying the intents through a fresh referee
rebuilds the exact state, so a crash at any moment loses nothing that was
announced. A last line cut short by the crash is dropped with a warning.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

LOG_NAME = "game.jsonl"
FORMAT = "voice_ref-gamelog"
VERSION = 1


class LogError(ValueError):
    """A game log that cannot be resumed, explained in plain words."""


def default_state_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("voice_ref"))


@dataclass
class LoadedLog:
    header: dict[str, Any]
    records: list[dict[str, Any]]
    warnings: list[str]
    good_size: int  # bytes up to the end of the last complete line


class GameLog:
    """An open log file; `append` returns only once the line is fsynced."""

    def __init__(self, path: Path, handle: IO[str]) -> None:
        self.path = path
        self._handle = handle

    @classmethod
    def create(cls, state_dir: Path, header: dict[str, Any]) -> GameLog:
        """Start a new log; an existing one is kept, renamed with its start time."""
        state_dir.mkdir(parents=True, exist_ok=True)
        path = state_dir / LOG_NAME
        if path.exists():
            rotate(path)
        log = cls(path, path.open("w", encoding="utf-8"))
        log.append({"format": FORMAT, "version": VERSION, **header})
        _fsync_dir(state_dir)
        return log

    @classmethod
    def reopen(cls, state_dir: Path) -> tuple[GameLog, LoadedLog]:
        """Open the current log to continue it; a truncated last line is cut off first."""
        path = state_dir / LOG_NAME
        loaded = read_log(path)
        with path.open("r+b") as f:
            f.truncate(loaded.good_size)
            f.flush()
            os.fsync(f.fileno())
        return cls(path, path.open("a", encoding="utf-8")), loaded

    def append(self, record: dict[str, Any]) -> None:
        self._handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()


def rotate(path: Path) -> Path:
    """Rename `game.jsonl` to `game-YYYYmmdd-HHMMSS.jsonl` (never overwriting)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(path.stat().st_mtime))
    target = path.with_name(f"game-{stamp}.jsonl")
    n = 1
    while target.exists():
        target = path.with_name(f"game-{stamp}-{n}.jsonl")
        n += 1
    path.rename(target)
    return target


def read_log(path: Path) -> LoadedLog:
    """Header and records of a log; raises LogError when there is no usable header."""
    if not path.exists():
        raise LogError(f"There is no saved game at {path}.")
    data = path.read_bytes()
    warnings: list[str] = []
    lines = data.split(b"\n")
    tail = lines.pop()  # bytes after the last newline: empty unless the last write was cut
    good_size = len(data) - len(tail)
    if tail.strip():
        warnings.append(f"{path}: ignoring an incomplete last line ({len(tail)} bytes).")
    parsed: list[dict[str, Any]] = []
    for i, raw in enumerate(lines):
        if not raw.strip():
            continue
        try:
            parsed.append(json.loads(raw.decode("utf-8")))
        except (UnicodeDecodeError, json.JSONDecodeError):
            if i == len(lines) - 1:
                warnings.append(f"{path}: ignoring an unreadable last line.")
                good_size -= len(raw) + 1
                break
            raise LogError(f"{path}, line {i + 1}, is not valid JSON; cannot resume.") from None
    if not parsed or parsed[0].get("format") != FORMAT:
        raise LogError(f"{path} does not start with a voice_ref game header; cannot resume.")
    return LoadedLog(parsed[0], parsed[1:], warnings, good_size)


def warn(message: str) -> None:
    print(f"voice-ref: warning: {message}", file=sys.stderr)


def _fsync_dir(path: Path) -> None:
    """Make the new file's name durable too (best effort: not every OS allows it)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
