"""Whisper's text prior, log P(text | silence), remembered for good and kept on disk.

The phrase search scores a phrase by how much better it explains the speech than no
speech at all (`phrase_search.PmiScorer`): the same decoder run on silence gives what
Whisper would write anyway. That prior does not depend on the utterance, so each
token sequence needs computing once in the model's life, not once per utterance: in
the big contexts it was ~100 of the ~230 decoder rows of an answer (~0.12 s of its
~0.45 s). `TextPrior` keeps the log-probability of every sequence it has computed,
by token sequence, and a prefix's next-token entries as the log-probabilities of its
one-token extensions; `prepare` computes a whole phrase set between games, and the
store is saved beside the model, so a table's phrases are computed once and answers
read them from memory. Values are the decoder's own: a stored entry and a fresh one
are the same number (to float rounding).
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

FILE_NAME = "text-prior.npz"
# The decoder on silence: sequences -> (log P(sequence), its next-token row); a PrefixProbe.
Probe = Callable[[Sequence[Sequence[int]]], Sequence[tuple[float, Mapping[int, float]]]]


def _key(tokens: Iterable[int]) -> bytes:
    """A token sequence as a key: 2 bytes a token (Whisper's vocabulary < 65,536)."""
    return np.fromiter(tokens, dtype=np.uint16).tobytes()


def _hash(key: bytes) -> int:
    """A stable 64-bit hash (Python's own changes between processes). Two of a million
    sequences share one with probability ~3e-8."""
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little")


class _Store:
    """bytes key -> float, compact: what was loaded or saved sits in two sorted numpy
    arrays (16 bytes an entry, read from disk as is), only what is new in a dict. The
    bench's big contexts store ~220,000 entries: 33 MB as a dict of bytes, 3.5 MB here."""

    def __init__(self) -> None:
        self.hashes = np.zeros(0, np.uint64)  # sorted
        self.values = np.zeros(0, np.float64)
        self.new: dict[bytes, float] = {}

    def __len__(self) -> int:
        return len(self.hashes) + len(self.new)

    def get(self, key: bytes) -> float | None:
        value = self.new.get(key)
        if value is None and len(self.hashes):
            h = np.uint64(_hash(key))
            i = int(np.searchsorted(self.hashes, h))
            if i < len(self.hashes) and self.hashes[i] == h:
                return float(self.values[i])
        return value

    def __contains__(self, key: bytes) -> bool:
        return self.get(key) is not None

    def contains_all(self, keys: Sequence[bytes]) -> np.ndarray:
        """Whether each key is stored (one vectorized search: preparing a table checks
        ~200,000 entries every start)."""
        found = np.fromiter((k in self.new for k in keys), bool, count=len(keys))
        if len(self.hashes) and len(keys):
            h = np.fromiter((_hash(k) for k in keys), np.uint64, count=len(keys))
            i = np.minimum(np.searchsorted(self.hashes, h), len(self.hashes) - 1)
            found |= self.hashes[i] == h
        return found

    def __getitem__(self, key: bytes) -> float:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value

    def __setitem__(self, key: bytes, value: float) -> None:
        self.new[key] = value

    def setdefault(self, key: bytes, value: float) -> None:
        if key not in self:
            self.new[key] = value

    def merge(self) -> None:
        """Move the new entries into the arrays (before saving)."""
        if not self.new:
            return
        hashes = np.fromiter((_hash(k) for k in self.new), np.uint64, count=len(self.new))
        values = np.fromiter(self.new.values(), np.float64, count=len(self.new))
        self.new = {}
        self.absorb(hashes, values)

    def absorb(self, hashes: np.ndarray, values: np.ndarray) -> int:
        """Add entries read from elsewhere (a file another process wrote); an entry this
        store has keeps its own value. Returns how many entries are new."""
        before = len(self.hashes)
        hashes = np.concatenate([self.hashes, hashes.astype(np.uint64)])
        values = np.concatenate([self.values, values.astype(np.float64)])
        self.hashes, first = np.unique(hashes, return_index=True)  # sorted, each once, ours first
        self.values = values[first]
        return len(self.hashes) - before


class PriorRow(Mapping[int, float]):
    """log P(next token | sequence, silence) for any token, read from the store.

    An entry not stored yet is computed on the spot (one decoder call) and kept, so a
    row never answers with a default: the score stays exact whatever was prepared.
    """

    __slots__ = ("_prior", "_tokens", "_lp", "_dense")

    def __init__(self, prior: TextPrior, tokens: tuple[int, ...], lp: float) -> None:
        self._prior = prior
        self._tokens = tokens
        self._lp = lp
        self._dense: Mapping[int, float] | None = None  # the probe's row, once needed

    def __getitem__(self, token: int) -> float:
        stored = self._prior.stored(self._tokens, token)
        if stored is not None:
            return stored - self._lp
        if self._dense is None:
            self._dense = self._prior.dense_row(self._tokens)
        return self._prior.remember(self._tokens, self._lp, token, self._dense)

    def get(self, token: int, default: float | None = None) -> float:  # type: ignore[override]
        return self[token]

    def __iter__(self) -> Iterator[int]:  # only what is stored: a row has every token
        return iter(())

    def __len__(self) -> int:
        return 0


class TextPrior:
    """Token sequence -> log P(sequence | silence), computed by `probe` when unknown.

    `probe` is the recognizer's prefix probe on the silence encoding (it keeps decoder
    states to extend prefixes cheaply); `path` is where the store is loaded from and
    saved to (`None`: memory only); `fingerprint` names what the values depend on (the
    model and the start sequence): a file saved under another one is not read.
    """

    def __init__(self, probe: Probe, path: Path | None = None, fingerprint: str = "") -> None:
        self._probe = probe
        self._lp = _Store()
        self._lp[_key(())] = 0.0
        self.path = path
        self.fingerprint = fingerprint
        self.computed = 0  # sequences this process had to run the decoder on (not read)
        # Digests of the phrase sets whose every prefix is stored (`phrase_set_digest`):
        # a table that was prepared before starts without walking its phrases again.
        self.prepared_sets: set[int] = set()
        self._saved = (0, 0)  # (store size, prepared sets) when last saved or loaded
        self.reload()
        self._saved = self._size()

    def __len__(self) -> int:
        return len(self._lp)

    def __call__(
        self, sequences: Sequence[Sequence[int]], nexts: Sequence[Sequence[int]] | None = None
    ) -> list[tuple[float, PriorRow]]:
        """log P(sequence | silence) and its next-token row, for each sequence; `nexts`:
        the tokens that will be read from each row, stored first (one batched call)."""
        self.ensure(list(zip(sequences, nexts if nexts is not None else [()] * len(sequences),
                             strict=True)))
        out = []
        for seq in sequences:
            tokens = tuple(seq)
            lp = self._lp[_key(tokens)]
            out.append((lp, PriorRow(self, tokens, lp)))
        return out

    def stored(self, tokens: tuple[int, ...], token: int) -> float | None:
        """log P(tokens + token | silence) if stored."""
        return self._lp.get(_key((*tokens, token)))

    def dense_row(self, tokens: tuple[int, ...]) -> Mapping[int, float]:
        """The probe's next-token row of `tokens` (every column the search reads; the
        probe remembers recent sequences, so this is usually no decoder call)."""
        ((_, row),) = self._probe([list(tokens)])
        return row

    def remember(
        self, tokens: tuple[int, ...], lp: float, token: int, dense: Mapping[int, float]
    ) -> float:
        """log P(token | tokens, silence) from the probe's row (or one decoder call for a
        token outside its columns), stored."""
        if token in dense:
            value = dense[token]
        else:
            ((extended, _),) = self._probe([[*tokens, token]])
            self.computed += 1
            value = extended - lp
        self._lp[_key((*tokens, token))] = lp + value
        return value

    def ensure(
        self, wanted: Sequence[tuple[Sequence[int], Sequence[int]]], probe: Probe | None = None
    ) -> int:
        """Store every (sequence, next tokens) pair: the sequences and the entries a search
        will read. Computes what is missing in batched decoder calls (with `probe`, if
        given, instead of the store's own); returns how many sequences it computed."""
        before = self.computed
        complete = self.complete(wanted)
        need = [s for (s, _), done in zip(wanted, complete, strict=True) if not done]
        if not need:
            return 0
        unique = list(dict.fromkeys(tuple(s) for s in need))
        rows = dict(zip(unique, (probe or self._probe)(unique), strict=True))
        self.computed += len(unique)  # a stored sequence given new entries was computed too
        for s, nxt in wanted:
            tokens = tuple(s)
            if tokens not in rows:
                continue
            lp, row = rows[tokens]
            self._lp[_key(tokens)] = lp
            for t in nxt:
                if t in row:
                    self._lp.setdefault(_key((*tokens, t)), lp + row[t])
        return self.computed - before

    def complete(self, wanted: Sequence[tuple[Sequence[int], Sequence[int]]]) -> list[bool]:
        """Whether each (sequence, next tokens) pair is stored whole (one vectorized search)."""
        keys = [[_key(s), *(_key((*s, t)) for t in nxt)] for s, nxt in wanted]
        known = iter(self._lp.contains_all([k for group in keys for k in group]).tolist())
        return [all([next(known) for _ in group]) for group in keys]

    # --- on disk --------------------------------------------------------------------------

    def save(self) -> bool:
        """Write the store if it grew since it was read, together with what another process
        (a background `prepare`) saved there meanwhile, so neither loses the other's work.
        Atomic: a table stopped mid-write keeps the old file. Returns whether it wrote."""
        if self.path is None or self._size() == self._saved:
            return False
        self.reload()
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            with tmp.open("wb") as f:
                np.savez(f, fingerprint=np.array(self.fingerprint), hashes=self._lp.hashes,
                         values=self._lp.values,
                         sets=np.array(sorted(self.prepared_sets), np.uint64))
            os.replace(tmp, self.path)
        except OSError as exc:  # a read-only model folder: the store stays in memory
            log.warning("text prior not saved to %s: %s", self.path, exc)
            return False
        self._saved = self._size()
        return True

    def reload(self) -> int:
        """Take in what the file on disk has and this store has not (another process
        prepared it); returns how many entries came in."""
        self._lp.merge()
        read = self._read()
        if read is None:
            return 0
        hashes, values, sets = read
        self.prepared_sets |= sets
        return self._lp.absorb(hashes, values)

    def _size(self) -> tuple[int, int]:
        return len(self._lp), len(self.prepared_sets)

    def _read(self) -> tuple[np.ndarray, np.ndarray, set[int]] | None:
        """The file's (hashes, values, prepared sets), or None when there is no usable one."""
        path = self.path
        if path is None or not path.is_file():
            return None
        try:
            with np.load(path) as data:
                if str(data["fingerprint"]) != self.fingerprint:
                    log.info("text prior in %s is for another model or start: not read", path)
                    return None
                hashes, values = data["hashes"], data["values"]
                sets = data["sets"] if "sets" in data.files else np.zeros(0, np.uint64)
                if hashes.dtype != np.uint64 or len(hashes) != len(values):
                    raise ValueError("hashes and values do not match")
        except (OSError, ValueError, KeyError) as exc:
            log.warning("text prior in %s unreadable (%s): computed again", path, exc)
            return None
        return hashes, values, {int(h) for h in sets}


def phrase_set_digest(parts: Iterable[object]) -> int:
    """A stable 64-bit name for what a `prepare` covered (players, phrases): the same
    table prepared again finds it in `TextPrior.prepared_sets` and walks nothing."""
    return _hash(b"".join(repr(part).encode() + b"\0" for part in parts))


def fingerprint(
    model_dir: Path, start: Sequence[int], silence_s: float, normalizer: str = "float32"
) -> str:
    """What the prior's values depend on: the model's weights (by size and config), the
    start sequence, the length of the silence and how the decoder normalizes
    (`WhisperDecoder.normalizer`: int8 values differ from float32 by ~0.01 nats)."""
    h = hashlib.sha256()
    if normalizer != "float32":  # a float32 store keeps the name it had before int8 existed
        h.update(normalizer.encode())
    for name in ("config.json", "model.bin"):
        p = model_dir / name
        h.update(name.encode())
        if p.is_file():
            h.update(str(p.stat().st_size).encode())
            if name.endswith(".json"):
                h.update(p.read_bytes())
    h.update(repr((list(start), silence_s)).encode())
    return h.hexdigest()[:16]
