"""Scores token sequences on one encoding with the KV-cached decoder, reusing prefixes.

The phrase search asks, level by level, for the log-probability of token sequences
that extend sequences it asked for before ("Cuatro" -> "Cuatro quinas"). A
`PrefixProbe` remembers every sequence it scored (its log-probability and the few
next-token entries the search reads, a `TokenRow`) and, while it is kept, the
decoder state, so a child costs one decoder pass over its new tokens only (a word's
tokens at once), batched with the other sequences of the call, whatever their new token counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

import numpy as np

from voice_ref.voice.asr.phrase_search import TokenRow
from voice_ref.voice.asr.whisper_decoder import DecoderState, WhisperDecoder

CHUNK_POSITIONS = 64  # new token positions per decoder step: bounds its arrays (KV, logits)


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
        self._column_rows = np.zeros((0, decoder.dim), np.float32)  # output weights
        (state,), hidden = decoder.step_hidden(self.cross, [decoder.empty_state()], [list(start)])
        self.steps += 1
        self.rows += len(start)
        # The start's last hidden state and normalizer: any first token can be read.
        self._root_hidden = hidden[0, -1]
        self._root_norm = float(decoder.log_normalizer(hidden[0, -1:])[0])
        self._generation = 0
        self._entries: dict[tuple[int, ...], _Entry] = {
            (): _Entry(0.0, self._compact(hidden[0, -1:], self._root_norm)[0], state, 0)
        }

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def root(self) -> tuple[float, TokenRow]:
        return self._result(())

    def __call__(
        self, sequences: Sequence[Sequence[int]], new_states: bool = True
    ) -> list[tuple[float, TokenRow]]:
        """log P(sequence | audio) and its next-token `TokenRow`, for each sequence.
        `new_states` False: keep no decoder state of the sequences computed now (nothing
        will extend them; each holds ~25 kB a token position)."""
        self._generation += 1
        if self.max_entries and len(self._entries) > self.max_entries:
            self._entries = {(): self._entries[()]}
        wanted = list(dict.fromkeys(tuple(s) for s in sequences))
        self._extend([t for t in wanted if not self._complete(t)], new_states)
        out = [self._result(tuple(s)) for s in sequences]
        if self.keep_states is KeepStates.RECENT:
            for key, e in self._entries.items():
                if key and e.state is not None and e.generation < self._generation - 1:
                    e.state = None
        return out

    def forget(self, sequences: Iterable[Sequence[int]]) -> None:
        """Drop what is remembered of `sequences` (their decoder states above all): a walk
        over a big trie is done with them once nothing extends them."""
        for tokens in sequences:
            if tokens:
                self._entries.pop(tuple(tokens), None)

    # --- internals -------------------------------------------------------------------------

    def _compact(self, hidden: np.ndarray, norm: np.ndarray | float) -> np.ndarray:
        """log P at the columns [m, columns] from hidden states [m, d] and normalizers."""
        if len(self._column_rows) < len(self.columns):
            tokens = np.fromiter(self.columns, dtype=np.int64, count=len(self.columns))
            self._column_rows = self.decoder.token_vectors(tokens)
        logits = hidden @ self._column_rows[: len(self.columns)].T
        return (logits - np.reshape(norm, (-1, 1))).astype(np.float32)

    def _complete(self, key: tuple[int, ...]) -> bool:
        e = self._entries.get(key)
        return e is not None and len(e.values) >= len(self.columns)

    def _result(self, key: tuple[int, ...]) -> tuple[float, TokenRow]:
        e = self._entries[key]
        e.generation = self._generation
        if not key and len(e.values) < len(self.columns):  # columns grew since
            e.values = self._compact(self._root_hidden[None], self._root_norm)[0]
        return e.lp, TokenRow(self.columns, e.values)

    def _token_lp(self, key: tuple[int, ...], token: int) -> float | None:
        """log P(token | key) if the entry of `key` can say (and can be extended)."""
        e = self._entries.get(key)
        if e is None or e.state is None:
            return None
        if not key:
            vector = self.decoder.token_vectors([token])[0]
            return float(self._root_hidden @ vector) - self._root_norm
        i = self.columns.get(token)
        return float(e.values[i]) if i is not None and i < len(e.values) else None

    def _extend(self, keys: list[tuple[int, ...]], new_states: bool) -> None:
        """Score `keys` from their nearest extendable ancestors, all in as few decoder
        passes as `CHUNK_POSITIONS` allows (each pass has a fixed cost, whatever the
        number of new tokens per key)."""
        tasks: list[tuple[tuple[int, ...], int, float]] = []
        for key in keys:
            for k in range(len(key) - 1, -1, -1):
                lp = self._token_lp(key[:k], key[k])
                if lp is not None:
                    tasks.append((key, k, self._entries[key[:k]].lp + lp))
                    break
        # Keys needing as many tokens together: the padded self-attention stays small.
        tasks.sort(key=lambda t: len(t[0]) - t[1])
        chunk: list[tuple[tuple[int, ...], int, float]] = []
        used = 0
        for task in tasks:
            n = len(task[0]) - task[1]
            if chunk and used + n > CHUNK_POSITIONS:
                self._step(chunk, new_states)
                chunk, used = [], 0
            chunk.append(task)
            used += n
        if chunk:
            self._step(chunk, new_states)

    def _step(self, part: list[tuple[tuple[int, ...], int, float]], new_states: bool) -> None:
        """One decoder pass: each key's new tokens after its ancestor key[:k]."""
        parents = [self._entries[key[:k]].state for key, k, _ in part]
        fed = [key[k:] for key, k, _ in part]
        stepped, hidden = self.decoder.step_hidden(self.cross, parents, fed)
        self.steps += 1
        counts = np.array([len(f) for f in fed])
        self.rows += int(counts.sum())
        # Packed rows (key i, its j-th new token): hidden[i, j] gives the token after it.
        row = np.repeat(np.arange(len(part)), counts)
        col = np.arange(len(row)) - np.repeat(np.cumsum(counts) - counts, counts)
        norm = np.zeros(hidden.shape[:2], np.float32)
        norm[row, col] = self.decoder.log_normalizer(hidden[row, col])
        inner = np.zeros(len(part))
        forced = col < counts[row] - 1  # rows whose next token is forced by the key
        if forced.any():
            r, c = row[forced], col[forced]
            nxt = np.array([part[i][0][part[i][1] + j + 1] for i, j in zip(r, c, strict=True)])
            lps = np.einsum("rd,rd->r", hidden[r, c], self.decoder.token_vectors(nxt)) - norm[r, c]
            np.add.at(inner, r, lps)
        last = counts - 1
        values = self._compact(hidden[np.arange(len(part)), last], norm[np.arange(len(part)), last])
        for i, ((key, _, lp), state) in enumerate(zip(part, stepped, strict=True)):
            kept = state if new_states else None
            self._entries[key] = _Entry(lp + float(inner[i]), values[i], kept, self._generation)
