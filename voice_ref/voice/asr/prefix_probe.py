"""Scores token sequences on one encoding with the KV-cached decoder, reusing prefixes.

The phrase search asks, level by level, for the log-probability of token sequences
that extend sequences it asked for before ("Cuatro" -> "Cuatro quinas"). A
`PrefixProbe` remembers every sequence it scored (its log-probability and the few
next-token entries the search reads, a `TokenRow`) and, while it is kept, the
decoder state, so a child costs one decoder pass over its new tokens only (a word's
tokens at once), batched with the other sequences that need as many new tokens.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

import numpy as np

from voice_ref.voice.asr.phrase_search import TokenRow
from voice_ref.voice.asr.whisper_decoder import DecoderState, WhisperDecoder

CHUNK_POSITIONS = 64  # token positions per decoder step: bounds the [.., vocab] logits


class KeepStates(Enum):
    """Which decoder states a probe keeps (each is ~25 kB a token position)."""

    ALL = "all"  # one utterance: the search may extend any prefix again (the end check)
    RECENT = "recent"  # the long-lived prior: those of the last two calls only


@dataclass(slots=True)
class _Entry:
    lp: float  # log P(tokens | audio), the start sequence excluded
    values: np.ndarray  # next-token log-probabilities at the probe's columns
    state: DecoderState | None  # None once dropped (see `keep_states`)
    generation: int


class PrefixProbe:
    """Token sequences (after the start sequence) scored on one encoded audio.

    `columns` (token -> index, shared with the caller, may grow between calls) are
    the next-token entries stored per sequence. `keep_states`: see `KeepStates`; the
    prior's children come level by level, older prefixes restart from the nearest
    ancestor whose state is kept. `max_entries` > 0 bounds the remembered sequences (all
    but the start are forgotten when it is passed).
    """

    def __init__(
        self,
        decoder: WhisperDecoder,
        encoded: np.ndarray,
        start: Sequence[int],
        columns: Mapping[int, int],
        keep_states: KeepStates = KeepStates.ALL,
        max_entries: int = 0,
    ) -> None:
        self.decoder = decoder
        self.cross = decoder.cross(encoded)
        self.columns = columns
        self.keep_states = keep_states
        self.max_entries = max_entries
        self.steps = 0  # decoder passes (each streams all the weights)
        self.rows = 0  # token positions computed
        state, rows = decoder.run(self.cross, decoder.empty_state(), list(start))
        self.steps += 1
        self.rows += len(start)
        self.root_row = rows[-1]  # whole vocabulary: any first token can be read
        self._generation = 0
        self._entries: dict[tuple[int, ...], _Entry] = {
            (): _Entry(0.0, self._compact(self.root_row), state, 0)
        }

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def root(self) -> tuple[float, TokenRow]:
        return self._result(())

    def __call__(self, sequences: Sequence[Sequence[int]]) -> list[tuple[float, TokenRow]]:
        """log P(sequence | audio) and its next-token `TokenRow`, for each sequence."""
        self._generation += 1
        if self.max_entries and len(self._entries) > self.max_entries:
            self._entries = {(): self._entries[()]}
        wanted = list(dict.fromkeys(tuple(s) for s in sequences))
        self._extend([t for t in wanted if not self._complete(t)])
        out = [self._result(tuple(s)) for s in sequences]
        if self.keep_states is KeepStates.RECENT:
            for key, e in self._entries.items():
                if key and e.state is not None and e.generation < self._generation - 1:
                    e.state = None
        return out

    # --- internals -------------------------------------------------------------------------

    def _compact(self, row: np.ndarray) -> np.ndarray:
        index = np.fromiter(self.columns, dtype=np.int64, count=len(self.columns))
        return row[index].astype(np.float32)

    def _complete(self, key: tuple[int, ...]) -> bool:
        e = self._entries.get(key)
        return e is not None and len(e.values) >= len(self.columns)

    def _result(self, key: tuple[int, ...]) -> tuple[float, TokenRow]:
        e = self._entries[key]
        e.generation = self._generation
        if not key and len(e.values) < len(self.columns):  # columns grew since
            e.values = self._compact(self.root_row)
        return e.lp, TokenRow(self.columns, e.values)

    def _token_lp(self, key: tuple[int, ...], token: int) -> float | None:
        """log P(token | key) if the entry of `key` can say (and can be extended)."""
        e = self._entries.get(key)
        if e is None or e.state is None:
            return None
        if not key:
            return float(self.root_row[token])
        i = self.columns.get(token)
        return float(e.values[i]) if i is not None and i < len(e.values) else None

    def _extend(self, keys: list[tuple[int, ...]]) -> None:
        """Score `keys` from their nearest extendable ancestors. Keys that need the same
        number of new tokens go through the decoder together, all tokens at once."""
        by_count: dict[int, list[tuple[tuple[int, ...], int, float]]] = {}
        for key in keys:
            for k in range(len(key) - 1, -1, -1):
                lp = self._token_lp(key[:k], key[k])
                if lp is not None:
                    task = (key, k, self._entries[key[:k]].lp + lp)
                    by_count.setdefault(len(key) - k, []).append(task)
                    break
        for n, tasks in sorted(by_count.items()):
            size = max(1, CHUNK_POSITIONS // n)
            for lo in range(0, len(tasks), size):
                part = tasks[lo : lo + size]
                parents = [self._entries[key[:k]].state for key, k, _ in part]
                stepped, rows = self.decoder.step(
                    self.cross, parents, [list(key[k:]) for key, k, _ in part]
                )
                self.steps += 1
                self.rows += len(part) * n
                for (key, k, lp), state, r in zip(part, stepped, rows, strict=True):
                    # r[j]: after key[: k + j + 1]; it gives the next forced token.
                    inner = r[np.arange(n - 1), list(key[k + 1 :])].sum() if n > 1 else 0.0
                    self._entries[key] = _Entry(
                        lp + float(inner), self._compact(r[-1]), state, self._generation
                    )
