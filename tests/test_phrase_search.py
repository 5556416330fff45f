"""The phrase search over the trie, with a stand-in scorer (no model): exhaustive limits
score every phrase; a narrow beam does not (so the first test can fail)."""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np

from voice_ref.voice.asr.phrase_search import (
    Candidate,
    PmiScorer,
    SearchLimits,
    TokenRow,
    build_trie,
    end_check_sequences,
    first_tokens,
    garbage_value,
    search,
    token_prefixes_exceed,
)

PHRASES = (
    "dudo", "calzo", "paso", "dos quinas", "tres quinas", "cuatro quinas", "cuatro tontos",
    "cinco trenes", "veinte cenas", "Ana dudo", "Ana cuatro quinas", "hay cuatro quinas",
)
EOT, DOT = 0, 1


def _vocab() -> dict[str, list[int]]:
    words = sorted({w for p in PHRASES for w in p.split()} | {"Ana,"})
    words += [w[:1].upper() + w[1:] for w in words]
    # Two tokens a word: the first shared by words of one initial (as "Veinti-" is).
    return {w: [10 + ord(w[0]), 200 + i] for i, w in enumerate(sorted(set(words)))}


VOCAB = _vocab()
SIZE = 400


def _probe(columns: dict[int, int]):  # noqa: ANN202
    """Deterministic pseudo log-probabilities, the same for a sequence whatever asks."""

    def row(seq: Sequence[int]) -> np.ndarray:
        rng = np.random.default_rng(zlib.crc32(bytes(str(tuple(seq)), "ascii")))
        x = rng.normal(0, 2, SIZE)
        return x - np.log(np.exp(x).sum())

    def probe(sequences: list[list[int]]) -> list[tuple[float, TokenRow]]:
        out = []
        for seq in sequences:
            lp = sum(float(row(seq[:i])[t]) for i, t in enumerate(seq))
            index = np.fromiter(columns, dtype=np.int64)
            out.append((lp, TokenRow(columns, row(seq)[index].astype(np.float32))))
        return out

    return probe, row


def _run(limits: SearchLimits) -> list[tuple[Candidate, float]]:
    cands = [Candidate(p, None) for p in PHRASES]
    trie = build_trie(cands, players=("Ana",))
    columns = {t: i for i, t in enumerate([EOT, DOT, *sorted(first_tokens(trie, VOCAB.get))])}
    probe, row = _probe(columns)
    scorer = PmiScorer(probe, lambda seqs, _nexts: [(0.0, {}) for _ in seqs], 0.0, [EOT, DOT])
    index = np.fromiter(columns, dtype=np.int64)
    first = TokenRow(columns, row(())[index].astype(np.float32))
    return search(scorer, trie, first, VOCAB.__getitem__, limits)


EXHAUSTIVE = SearchLimits(beam=10**9, first_beam=10**9, bound_margin=float("inf"))


def test_exhaustive_limits_score_every_phrase() -> None:
    scored = _run(EXHAUSTIVE)
    assert sorted(c.text for c, _ in scored) == sorted(PHRASES)


def test_a_narrow_beam_leaves_phrases_unscored() -> None:
    scored = _run(SearchLimits(beam=1, first_beam=2))
    assert len(scored) < len(PHRASES)


def test_exhaustive_values_are_the_phrases_own_scores() -> None:
    """Each phrase's value is log P(its tokens, end) under the stand-in model (weight 0):
    computed from its own tokens, not estimated from a sibling. The end is end of text
    alone, or (for the few best, checked exactly) also "." followed by end of text."""
    scored = {c.text: v for c, v in _run(EXHAUSTIVE)}
    _, row = _probe({})
    for text, words in (("dudo", ["Dudo"]), ("Ana cuatro quinas", ["Ana,", "cuatro", "quinas"])):
        seq = [t for w in words for t in VOCAB[w]]
        lp = sum(float(row(seq[:i])[t]) for i, t in enumerate(seq))
        end = row(seq)
        eot_only = lp + float(end[EOT])
        with_dot = lp + float(np.logaddexp(end[EOT], end[DOT] + row([*seq, DOT])[EOT]))
        assert min(abs(scored[text] - eot_only), abs(scored[text] - with_dot)) < 1e-4


def test_the_garbage_model_is_its_own_tokens_ending_on_end_of_text_less_the_penalty() -> None:
    """The free transcript, scored apart from the search (it is written meanwhile): the
    probability of its tokens then of end of text, the garbage penalty below that."""
    columns = {EOT: 0, DOT: 1}
    probe, row = _probe(columns)
    scorer = PmiScorer(probe, lambda seqs, _nexts: [(0.0, {}) for _ in seqs], 0.0, [EOT, DOT])
    tokens = [5, 77, 33]
    lp = sum(float(row(tokens[:i])[t]) for i, t in enumerate(tokens)) + float(row(tokens)[EOT])
    for penalty in (0.0, 18.0):
        value = garbage_value(scorer, tokens, SearchLimits(garbage_penalty=penalty))
        assert abs(value - (lp - penalty)) < 1e-4


def test_the_end_check_reads_the_prior_entries_a_prepared_table_stores() -> None:
    """The contract with `prepare`: after "phrase + punct" the end check asks the prior for
    end of text alone, and that is what `end_check_sequences` names for the phrase."""
    cands = [Candidate(p, None) for p in PHRASES]
    trie = build_trie(cands, players=("Ana",))
    columns = {t: i for i, t in enumerate([EOT, DOT, *sorted(first_tokens(trie, VOCAB.get))])}
    probe, row = _probe(columns)
    asked: list[tuple[list[int], list[int]]] = []

    def prior(seqs: list[list[int]], nexts: list[list[int]]) -> list[tuple[float, dict]]:
        asked.extend(zip(seqs, nexts, strict=True))
        return [(0.0, {}) for _ in seqs]

    scorer = PmiScorer(probe, prior, 0.5, [EOT, DOT])
    index = np.fromiter(columns, dtype=np.int64)
    first = TokenRow(columns, row(())[index].astype(np.float32))
    limits = SearchLimits(end_checks=3)
    search(scorer, trie, first, VOCAB.__getitem__, limits)
    checks = [(s, n) for s, n in asked if s and s[-1] == DOT]
    assert len(checks) == limits.end_checks
    for sequence, nexts in checks:
        assert [(sequence, nexts)] == end_check_sequences(sequence[:-1], [EOT, DOT])


def test_token_prefix_count_stops_at_its_limit_with_the_right_answer() -> None:
    """Whether a trie is small enough to score exhaustively, decided without listing
    every token prefix: the same answer as counting them all, at every limit."""
    trie = build_trie([Candidate(p, None) for p in PHRASES], ["Ana"])
    prefixes, stack = set(), [((), trie)]
    while stack:  # every token prefix, counted the long way
        tokens, node = stack.pop()
        for word, child in node.children.items():
            longer = tokens + tuple(VOCAB[word])
            prefixes.update(longer[:i] for i in range(1, len(longer) + 1))
            stack.append((longer, child))
    for limit in (0, 1, len(prefixes) - 1, len(prefixes), len(prefixes) + 1, 10**6):
        assert token_prefixes_exceed(trie, VOCAB.__getitem__, limit) == (len(prefixes) > limit)
