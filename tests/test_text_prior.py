"""The text prior store: exact values, computed once, batched, kept on disk."""

from __future__ import annotations

import math
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from voice_ref.voice.asr.text_prior import TextPrior

VOCAB = 7  # tokens 0..6; 0 ends the text


def next_lps(seq: Sequence[int]) -> np.ndarray:
    """A fixed, sequence-dependent next-token distribution (log-probabilities)."""
    rng = np.random.default_rng(abs(hash(tuple(seq))) % 2**32)
    x = rng.normal(size=VOCAB)
    return x - math.log(float(np.exp(x).sum()))


def true_lp(seq: Sequence[int]) -> float:
    return float(sum(next_lps(seq[:i])[t] for i, t in enumerate(seq)))


class CountingProbe:
    """Stands for the decoder on silence: every call and every sequence is counted."""

    def __init__(self) -> None:
        self.calls = 0
        self.sequences = 0

    def __call__(self, sequences: Sequence[Sequence[int]]) -> list[tuple[float, dict[int, float]]]:
        self.calls += 1
        self.sequences += len(sequences)
        return [(true_lp(s), dict(enumerate(next_lps(s).tolist()))) for s in sequences]


def test_values_are_the_probes_own() -> None:
    probe = CountingProbe()
    prior = TextPrior(probe)
    seqs = [[3], [3, 4], [5, 1, 2]]
    for (lp, row), seq in zip(prior(seqs), seqs, strict=True):
        assert lp == pytest.approx(true_lp(seq))
        for t in range(VOCAB):  # any next token, stored or not
            assert row.get(t, 99.0) == pytest.approx(next_lps(seq)[t])


def test_ensure_computes_what_is_missing_once_in_one_call() -> None:
    probe = CountingProbe()
    prior = TextPrior(probe)
    wanted = [([1], [2, 0]), ([1, 2], [0]), ([4], [0, 3])]
    assert prior.ensure(wanted) == 3
    assert probe.calls == 1
    assert prior.ensure(wanted) == 0
    assert probe.calls == 1
    (lp, row), = prior([[1, 2]])
    assert row[0] == pytest.approx(next_lps([1, 2])[0])
    assert probe.calls == 1  # read from the store


def test_a_stored_prefix_with_a_new_next_token_is_completed() -> None:
    """A sequence stored for one context and read for another (a new player's name after
    it): its new entry is computed, in the same batched call as anything else missing."""
    probe = CountingProbe()
    prior = TextPrior(probe)
    prior.ensure([([1], [2])])
    calls = probe.calls
    assert prior.ensure([([1], [2, 5]), ([6], [0])]) == 2  # both ran through the decoder
    assert probe.calls == calls + 1
    (_, row), = prior([[1]])
    assert row[5] == pytest.approx(next_lps([1])[5])


def test_the_store_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "text-prior.npz"
    first = TextPrior(CountingProbe(), path, fingerprint="model-a")
    first.ensure([([1, 2], [3, 0]), ([4], [0])])
    assert first.save()
    assert not first.save()  # nothing new: not written again

    probe = CountingProbe()
    again = TextPrior(probe, path, fingerprint="model-a")
    assert len(again) == len(first)
    assert again.ensure([([1, 2], [3, 0]), ([4], [0])]) == 0
    (lp, row), = again([[1, 2]])
    assert probe.calls == 0
    assert lp == pytest.approx(true_lp([1, 2]))
    assert row[3] == pytest.approx(next_lps([1, 2])[3])


@pytest.mark.parametrize("content", ["other-model", "garbage"])
def test_a_store_of_another_model_or_a_broken_file_is_not_read(
    tmp_path: Path, content: str
) -> None:
    path = tmp_path / "text-prior.npz"
    if content == "garbage":
        path.write_bytes(b"not a numpy file")
    else:
        other = TextPrior(CountingProbe(), path, fingerprint=content)
        other.ensure([([1], [0])])
        other.save()
    probe = CountingProbe()
    prior = TextPrior(probe, path, fingerprint="model-a")
    assert len(prior) == 1  # the empty sequence only
    assert prior.ensure([([1], [0])]) == 1  # computed again, correctly
    (lp, _), = prior([[1]])
    assert lp == pytest.approx(true_lp([1]))


def test_two_processes_saving_one_file_keep_each_others_work(tmp_path: Path) -> None:
    """A game answering (computing what it needs) and a background `prepare` both save
    the same file: the later save merges, it does not overwrite."""
    path = tmp_path / "text-prior.npz"
    game, background = TextPrior(CountingProbe(), path), TextPrior(CountingProbe(), path)
    background.ensure([([1, 2], [0])])
    background.prepared_sets.add(7)
    assert background.save()
    game.ensure([([3], [4])])
    assert game.save()
    probe = CountingProbe()
    fresh = TextPrior(probe, path)
    assert fresh.ensure([([1, 2], [0]), ([3], [4])]) == 0
    assert probe.calls == 0
    assert fresh.prepared_sets == {7}


def test_reload_takes_in_what_another_process_saved(tmp_path: Path) -> None:
    path = tmp_path / "text-prior.npz"
    game, background = TextPrior(CountingProbe(), path), TextPrior(CountingProbe(), path)
    background.ensure([([5, 6], [0, 1])])
    background.prepared_sets.add(42)
    background.save()
    assert game.stored((5,), 6) is None
    assert game.reload() > 0
    assert game.stored((5,), 6) == pytest.approx(true_lp([5, 6]))
    assert 42 in game.prepared_sets
    assert game.reload() == 0  # nothing new the second time


def test_a_phrase_set_digest_is_stable_and_tells_sets_apart() -> None:
    from voice_ref.voice.asr.text_prior import phrase_set_digest

    ana = [("Ana", "Beto"), ("turn", ("dudo", "calzo"))]
    assert phrase_set_digest(ana) == phrase_set_digest(list(ana))
    assert phrase_set_digest(ana) != phrase_set_digest([("Ana", "Carla"), ana[1]])
    # The same in another process (Python's own str hash is not): a table prepared by
    # `voice-ref models prepare` is known to the next `voice-ref play`.
    code = ("from voice_ref.voice.asr.text_prior import phrase_set_digest; "
            f"print(phrase_set_digest({ana!r}))")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True)
    assert int(other.stdout) == phrase_set_digest(ana)
