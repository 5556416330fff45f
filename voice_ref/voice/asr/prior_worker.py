"""Preparing Whisper's text prior in a low-priority process while the table plays.

A table the model has not met yet (new names, another preset) has tens of thousands of
phrase prefixes whose prior is not stored: minutes of decoder work on two cores, more
on a Raspberry Pi. `voice-ref play` does not make the table wait for it. It hands the
work to a child process (`python -m voice_ref.voice.asr.prior_worker JOB`) at the
lowest CPU priority, on one thread; the child saves what it computes beside the model
as it goes (merged with the file, `TextPrior.save`). Meanwhile answers compute the prior
entries they need themselves (slower, the same scores), and when the child is done the
recognizer reads the file (`TextPrior.reload`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import subprocess
import sys
import tempfile
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from voice_ref.voice.asr.base import ListenContext

log = logging.getLogger(__name__)

# The child runs on one core: the other stays free for the table even while it works.
_ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
NICENESS = 19  # the lowest priority: an answer being computed always comes first


@dataclass(frozen=True)
class PrepareJob:
    """What the child needs to build the same recognizer and prepare the same phrases."""

    model: str
    players: tuple[str, ...]
    dialect: str
    contexts: tuple[ListenContext, ...]


class BackgroundPrepare:
    """A running child process preparing the prior; stopped when this object goes away
    (or the program ends): what it saved so far stays on disk for the next start."""

    def __init__(self, process: subprocess.Popen[bytes], errors: IO[bytes], job: Path) -> None:
        self._process = process
        self._errors = errors
        self._finalizer = weakref.finalize(self, _stop, process, errors, job)

    @classmethod
    def start(cls, job: PrepareJob) -> BackgroundPrepare:
        with tempfile.NamedTemporaryFile("wb", suffix=".job", delete=False) as f:
            pickle.dump(job, f)
        errors = tempfile.TemporaryFile()  # noqa: SIM115 - open while the child runs
        process = subprocess.Popen(
            [sys.executable, "-m", __name__, f.name],
            env={**os.environ, **_ONE_THREAD},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
        _lower_priority(process.pid)  # at once: the child may take a second to start
        return cls(process, errors, Path(f.name))

    def poll(self) -> int | None:
        """The child's exit code, or None while it works."""
        return self._process.poll()

    def wait(self, timeout: float | None = None) -> int:
        return self._process.wait(timeout)

    def failure(self) -> str:
        """The last lines the child wrote (why it failed)."""
        self._errors.seek(0)
        lines = self._errors.read().decode(errors="replace").strip().splitlines()
        return " | ".join(lines[-3:])

    def stop(self) -> None:
        self._finalizer()


def _stop(process: subprocess.Popen[bytes], errors: IO[bytes], job: Path) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
    errors.close()
    job.unlink(missing_ok=True)  # the child reads and removes it, unless it failed first


def _lower_priority(pid: int) -> None:
    """The lowest CPU priority for `pid` (0: this process), where the system has them."""
    if hasattr(os, "setpriority"):
        with contextlib.suppress(OSError):  # gone already, or not allowed: it only runs faster
            os.setpriority(os.PRIO_PROCESS, pid, NICENESS)


def main(argv: Sequence[str] | None = None) -> int:
    """The child: read the job, lower its priority, prepare, save (the recognizer does)."""
    (job_file,) = argv if argv is not None else sys.argv[1:]
    path = Path(job_file)
    with path.open("rb") as f:
        job: PrepareJob = pickle.load(f)  # written by our own parent, just now
    path.unlink(missing_ok=True)
    _lower_priority(0)
    from voice_ref.voice.asr.whisper_backend import WhisperRecognizer

    recognizer = WhisperRecognizer(job.model, threads=1, players=job.players,
                                   dialect=job.dialect)
    recognizer.prepare(job.contexts)
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    sys.exit(main())
