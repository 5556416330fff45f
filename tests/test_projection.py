"""The int8 vocabulary normalizer: close to the float32 one where it matters (rows whose
mass sits on a few tokens), and bounded elsewhere."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from voice_ref.voice.asr.projection import (
    EXACT_MARGIN,
    EXACT_MAX,
    PROJECTION_ROWS,
    VocabularyNormalizer,
    _near_top,
)


def _exact(hidden: np.ndarray, table: np.ndarray) -> np.ndarray:
    logits = hidden.astype(np.float64) @ table.astype(np.float64).T
    top = logits.max(axis=1)
    return top + np.log(np.exp(logits - top[:, None]).sum(axis=1))


@pytest.fixture(scope="module")
def table() -> np.ndarray:
    """A float16 token table shaped like Whisper's (many tokens, a few large dimensions)."""
    rng = np.random.default_rng(7)
    emb = rng.normal(0, 0.05, (5000, 64))
    emb[:, :3] *= 8  # the few dimensions whose values dwarf the others
    return emb.astype(np.float16)


def _hidden(table: np.ndarray, peaked: bool, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    h = rng.normal(0, 1, (n, table.shape[1]))
    h[:, :3] *= 20  # outliers in the activations too: what makes 8-bit steps coarse
    if peaked:  # each row points at one token: its logit stands far above the rest
        h += 60 * table[rng.integers(0, len(table), n)].astype(np.float64)
    return h.astype(np.float32)


@pytest.mark.parametrize(
    ("peaked", "mean_bound", "max_bound"),
    [(True, 0.01, 0.05), (False, 0.01, 0.05)],
)
def test_int8_normalizer_stays_close_to_float32(
    table: np.ndarray, peaked: bool, mean_bound: float, max_bound: float
) -> None:
    hidden = _hidden(table, peaked, 50, seed=1 if peaked else 2)
    error = np.abs(VocabularyNormalizer(table, threads=1)(hidden) - _exact(hidden, table))
    assert error.mean() < mean_bound
    assert error.max() < max_bound


def test_large_same_sign_products_do_not_saturate() -> None:
    """The worst case for AVX2's saturating int16 pair sums: every activation at the top
    of its 8-bit grid against tokens whose weights all sit at the top of theirs. With 8-bit
    weights an AVX2-only CPU got these rows wrong by tens of nats (a VNNI CPU did not)."""
    rng = np.random.default_rng(11)
    table = rng.normal(0, 0.05, (3000, 64))
    table[:40] = 0.3 * np.sign(rng.normal(size=(40, 1)))  # dense rows, one sign each
    table = table.astype(np.float16)
    hidden = np.ones((6, 64), np.float32) * np.array([[5], [-5], [20], [-20], [1], [-1]])
    error = np.abs(VocabularyNormalizer(table, threads=1)(hidden) - _exact(hidden, table))
    assert error.max() < 0.05


@pytest.mark.parametrize("peaked", [True, False])
def test_a_row_has_one_value_whatever_goes_with_it(table: np.ndarray, peaked: bool) -> None:
    """Chunks of `PROJECTION_ROWS`, one row alone, or beside a row of much larger (or
    all-zero) activations: the same value, to float rounding. The text prior is prepared
    in batches and read back by answers that score a prefix alone: a value that moved
    with its batch reordered an answer's readings."""
    norm = VocabularyNormalizer(table, threads=1)
    hidden = _hidden(table, peaked, PROJECTION_ROWS + 5, seed=3)
    together = norm(hidden)
    assert together.shape == (len(hidden),)
    for i in (0, PROJECTION_ROWS + 2):
        row = hidden[i : i + 1]
        for company in (row[:0], 50 * hidden[i + 1 : i + 2], np.zeros_like(row)):
            value = norm(np.concatenate([row, company]))[0]
            assert value == pytest.approx(together[i], abs=1e-5)


def test_a_flat_row_takes_the_largest_logits_exactly(table: np.ndarray) -> None:
    """A row with thousands of logits near its best is capped, not slowed: still bounded."""
    hidden = np.zeros((2, table.shape[1]), np.float32)  # every logit 0: log(vocab)
    out = VocabularyNormalizer(table, threads=1)(hidden)
    assert out == pytest.approx(np.log(len(table)), abs=1e-3)


def test_its_self_check_is_small_when_the_kernel_is_right(table: np.ndarray) -> None:
    from voice_ref.voice.asr.whisper_decoder import NORMALIZER_TOLERANCE

    assert VocabularyNormalizer(table, threads=1).max_error() < NORMALIZER_TOLERANCE / 2


def test_its_self_check_sees_a_kernel_that_overflows(
    table: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stand-in for a saturating kernel, off by 5 nats on dense rows only (where the
    int16 pair sums overflow), is caught by the dense probe rows."""
    norm = VocabularyNormalizer(table, threads=1)
    honest = norm._rows

    def overflowing(hidden: np.ndarray) -> np.ndarray:
        dense = np.abs(hidden).min(axis=1) > 0.5 * np.abs(hidden).max(axis=1)
        return honest(hidden) + np.where(dense, 5.0, 0.0).astype(np.float32)

    monkeypatch.setattr(norm, "_rows", overflowing)
    assert norm.max_error() > 4.0


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(1, 6),
    spread=st.sampled_from([0.05, 0.3, 1.0, 4.0]),
    seed=st.integers(0, 2**16),
)
@example(rows=1, spread=0.05, seed=859)  # two equal logits at the boundary
def test_the_logits_taken_exactly_are_the_largest_near_ones(
    rows: int, spread: float, seed: int
) -> None:
    """`_near_top` finds, without sorting whole rows, what a partition of each row finds:
    its largest `EXACT_MAX` logits, of those the ones within `EXACT_MARGIN` of its best
    (flat rows, small `spread`, have hundreds that near). Compared by value: of two equal
    logits at the `EXACT_MAX` boundary either may be the one taken (seed 859 has such a
    tie in float32)."""
    logits = np.random.default_rng(seed).normal(0, spread, (rows, 3000)).astype(np.float32)
    top = logits.max(axis=1)
    largest = np.argsort(-logits, axis=1, kind="stable")[:, :EXACT_MAX]
    found = list(zip(*(a.tolist() for a in _near_top(logits, top)), strict=True))
    assert len(set(found)) == len(found)
    for r in range(rows):
        expected = sorted(float(v) for v in logits[r, largest[r]] if v > top[r] - EXACT_MARGIN)
        assert sorted(float(logits[r, c]) for row, c in found if row == r) == expected
