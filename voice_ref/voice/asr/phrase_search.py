"""The closed-vocabulary search: which allowed phrase best explains the audio.

The phrases form a word trie (`build_trie`); a beam search walks it a word level at
a time, each level one batched call of a `Scorer`. Search values are pointwise
mutual information, not likelihood (see `PmiScorer`); the search itself only
compares them. A search state is a `Prefix`: the tokens so far, the trie node they
reach and their `Scored` value.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from voice_ref.language.intents import Intent

NO_ROW: Mapping[int, float] = MappingProxyType({})


class TokenRow(Mapping[int, float]):
    """Some entries of a next-token log-distribution, stored compactly.

    The search reads only a few entries of each row (end tokens, first tokens of
    the trie's words), and keeps thousands of rows (every scored prefix; the prior
    cache by token tuple): a whole-vocabulary row is 200 kB, a dict of ~300 Python
    floats grew the process by hundreds of MB. Here the columns (token -> index)
    are shared by all rows and each row is one float32 array. Columns only grow, so
    a row shorter than its columns lacks the newest tokens (they read as absent).
    """

    __slots__ = ("_columns", "_values")

    def __init__(self, columns: Mapping[int, int], values: np.ndarray) -> None:
        self._columns = columns
        self._values = values

    def __getitem__(self, token: int) -> float:
        i = self._columns[token]
        if i >= len(self._values):
            raise KeyError(token)
        return float(self._values[i])

    def __iter__(self):  # noqa: ANN204 - Mapping protocol
        return (t for t, i in self._columns.items() if i < len(self._values))

    def __len__(self) -> int:
        return min(len(self._columns), len(self._values))

    def take(self, tokens: Sequence[int]) -> np.ndarray:
        """The entries of `tokens` (all must be present), as an array."""
        return self._values[[self._columns[t] for t in tokens]]


@dataclass(frozen=True, slots=True)
class Candidate:
    text: str
    intent: Intent | None  # None for the free transcript (garbage model)
    syllables: int = 0  # of the spoken words (digit spellings keep their phrase's count)


@dataclass
class Node:
    children: dict[str, Node] = field(default_factory=dict)
    phrases: list[Candidate] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Scored:
    """A token sequence scored by the decoder on the utterance and on silence."""

    lp: float  # log P(tokens | audio)
    row: TokenRow  # log P(next token | tokens, audio): the entries the search reads
    prior_lp: float  # log P(tokens | silence)
    prior_row: Mapping[int, float]  # the same entries on silence


@dataclass(frozen=True, slots=True)
class Prefix:
    """A search state: the tokens so far, where they are in the trie, their scores."""

    tokens: tuple[int, ...]
    node: Node
    scored: Scored


ProbeFn = Callable[[list[list[int]]], list[tuple[float, TokenRow]]]
# (sequences, the next tokens the search will read after each) -> (log P, next-token row)
PriorFn = Callable[[list[list[int]], list[list[int]]], list[tuple[float, Mapping[int, float]]]]


class PmiScorer:
    """Scores token sequences as log P(text | audio) - weight x log P(text | silence).

    Whisper's decoder has a strong text prior: short, common texts ("Sí.", "calzo")
    score well whatever was said. The same decoder on silence measures that prior
    (`prior`, cached by the recognizer: it does not depend on the utterance); `weight`
    (lambda) removes part of it. One `PmiScorer` per utterance (`probe` is bound to it).
    """

    def __init__(
        self, probe: ProbeFn, prior: PriorFn, weight: float, end_tokens: Sequence[int]
    ) -> None:
        self._probe = probe
        self._prior = prior
        self.weight = weight
        self.end_tokens = tuple(end_tokens)  # end of text first, then . ? !
        self.eot = self.end_tokens[0]
        self.calls = 0

    def score(
        self,
        sequences: list[list[int]],
        nexts: list[list[int]],
        ends: Sequence[int] | None = None,
    ) -> list[Scored]:
        """One batched decoder call (plus the prior's, when not stored). `nexts`: the
        tokens the search will read after each sequence, besides `ends` (default: all the
        end tokens); the prior needs those entries stored."""
        self.calls += 1
        probed = self._probe(sequences)
        priors = self._priors(sequences, nexts, ends)
        return [
            Scored(lp, row, plp, prow)
            for (lp, row), (plp, prow) in zip(probed, priors, strict=True)
        ]

    def first(self, row: TokenRow, nexts: list[int]) -> Scored:
        """The empty prefix, given the first-token row (the free transcript's first step)."""
        return Scored(0.0, row, *self._priors([[]], [nexts])[0])

    def _priors(
        self, sequences: list[list[int]], nexts: list[list[int]], ends: Sequence[int] | None = None
    ) -> list[tuple[float, Mapping[int, float]]]:
        if not self.weight:
            return [(0.0, NO_ROW)] * len(sequences)
        ends = self.end_tokens if ends is None else ends
        return self._prior(sequences, [[*n, *ends] for n in nexts])

    def value(self, s: Scored) -> float:
        return s.lp - self.weight * s.prior_lp

    def next_value(self, s: Scored, token: int) -> float:
        """Value of the sequence extended by `token`."""
        prior = s.prior_lp + s.prior_row.get(token, 0.0) if self.weight else 0.0
        return s.lp + s.row[token] - self.weight * prior

    def end_value(self, s: Scored, tokens: Sequence[int] | None = None) -> float:
        """Value of ending here on any of `tokens` (default: end of text or . ? !)."""
        tokens = self.end_tokens if tokens is None else tokens
        lp = float(np.logaddexp.reduce(s.row.take(tokens)))
        plp = float(np.logaddexp.reduce([s.prior_row.get(t, 0.0) for t in tokens]))
        return s.lp + lp - self.weight * (s.prior_lp + plp)

    def exact_end_value(self, s: Scored, punct: int, after: Scored) -> float:
        """Ending on end of text, or on `punct` followed by end of text (`after`)."""
        eot = self.eot
        end = np.logaddexp(s.row[eot], s.row[punct] + after.row[eot])
        pend = (
            np.logaddexp(
                s.prior_row.get(eot, 0.0),
                s.prior_row.get(punct, 0.0) + after.prior_row.get(eot, 0.0),
            )
            if self.weight
            else 0.0
        )
        return s.lp + float(end) - self.weight * (s.prior_lp + float(pend))


@dataclass(frozen=True, slots=True)
class SearchLimits:
    beam: int = 8  # word prefixes scored exactly per decoder call
    first_beam: int = 16  # first words: many share their first token ("Veinti-")
    max_words: int = 8
    bound_margin: float = 8.0  # nats below the best complete phrase: dropped
    end_checks: int = 6  # best phrases whose end is checked exactly (one more call)
    garbage_penalty: float = 18.0  # nats against the free transcript


def search(
    scorer: PmiScorer,
    trie: Node,
    first_row: TokenRow,
    word_tokens: Callable[[str], list[int]],
    limits: SearchLimits,
) -> list[tuple[Candidate, float]]:
    """Word-level beam search over the trie; every complete phrase met is scored.

    Each level is one batched call: the most promising word prefixes (ranked by the
    first token of their last word) are scored exactly, which gives their next-token
    distribution for the next level and, for complete phrases, the probability of
    ending there. `first_row` is the audio's first-token row. Returns (candidate, value)
    best first. The garbage model is scored apart (`garbage_value`): the search does
    not wait for the free transcript.
    """
    done: list[tuple[Candidate, float]] = []
    ends: dict[int, Prefix] = {}  # index in done -> the prefix it ends
    frontier = [Prefix((), trie, scorer.first(first_row, next_word_tokens(trie, word_tokens)))]
    best = -np.inf

    def close(prefix: Prefix) -> None:
        nonlocal best
        for cand in prefix.node.phrases:
            ends[len(done)] = prefix
            done.append((cand, scorer.end_value(prefix.scored)))
            best = max(best, done[-1][1])

    for level in range(limits.max_words):
        options: list[tuple[float, tuple[int, ...], Node]] = []
        for prefix in frontier:
            close(prefix)
            for word, child in prefix.node.children.items():
                wt = word_tokens(word)
                value = scorer.next_value(prefix.scored, wt[0])
                options.append((value, prefix.tokens + tuple(wt), child))
        # Drop options whose estimate is far below the best complete phrase (exact for
        # likelihoods, which only fall as tokens are added; a heuristic for PMI).
        options = [o for o in options if o[0] > best - limits.bound_margin]
        if not options:
            frontier = []
            break
        options.sort(key=lambda o: -o[0])
        options = options[: limits.first_beam if level == 0 else limits.beam]
        sequences = [list(o[1]) for o in options]
        following = [next_word_tokens(o[2], word_tokens) for o in options]
        scored = scorer.score(sequences, following)
        frontier = [Prefix(o[1], o[2], s) for o, s in zip(options, scored, strict=True)]
    for prefix in frontier:
        close(prefix)
    check_ends(scorer, done, ends, limits.end_checks)
    done.sort(key=lambda d: -d[1])
    return done


def garbage_value(scorer: PmiScorer, tokens: list[int], limits: SearchLimits) -> float:
    """The free transcript's value as the garbage model (table talk): its own tokens
    scored like a phrase's, ending on end of text (it carries its own punctuation),
    `limits.garbage_penalty` nats down."""
    (scored,) = scorer.score([tokens], [[]])
    return scorer.end_value(scored, (scorer.eot,)) - limits.garbage_penalty


def check_ends(
    scorer: PmiScorer, done: list[tuple[Candidate, float]], ends: dict[int, Prefix], n: int
) -> None:
    """Replace the optimistic end estimate by the exact one for the best `n` phrases.

    After "Camila" Whisper may well write "." and then go on ("Camila. Ocho
    tontos."), so a final period only ends the phrase if end of text follows it.
    The best phrases get P(end of text) + P(punct) x P(end of text | punct) from one
    more call; the others keep P(end of text) alone. The prior gets the same treatment.
    """
    eot = scorer.eot
    order = sorted(ends, key=lambda i: -done[i][1])[:n]
    for i, prefix in ends.items():
        if i not in order:
            done[i] = (done[i][0], scorer.end_value(prefix.scored, (eot,)))
    if not order:
        return
    puncts = scorer.end_tokens[1:]
    chosen = [puncts[int(np.argmax(ends[i].scored.row.take(puncts)))] for i in order]
    # Only end of text is read after the punct (`exact_end_value`): the prior needs that
    # entry alone, which is what a prepared table stores (`end_check_sequences`).
    after = scorer.score(
        [list(ends[i].tokens) + [p] for i, p in zip(order, chosen, strict=True)],
        [[]] * len(order),
        (eot,),
    )
    for i, p, a in zip(order, chosen, after, strict=True):
        done[i] = (done[i][0], scorer.exact_end_value(ends[i].scored, p, a))


def end_check_sequences(
    tokens: Sequence[int], end_tokens: Sequence[int], puncts: Sequence[int] | None = None
) -> list[tuple[list[int], list[int]]]:
    """The prior entries `check_ends` may read after the complete phrase `tokens`: each
    "phrase + punct" and its end of text ((sequence, next tokens), as `TextPrior.ensure`
    takes them). `end_tokens`: end of text first, then the puncts; `puncts`: only these
    (default: all of them; the check picks one by the audio)."""
    eot, *every = end_tokens
    return [([*tokens, p], [eot]) for p in (every if puncts is None else puncts)]


def whisper_words(text: str, names: Collection[str]) -> list[str]:
    """The words of a phrase as Whisper writes them: the first one capitalized ("Cuatro
    cuadras"), and a comma after a name that opens a longer phrase ("Ana, cinco quinas").
    `names`: the players' names, case-folded."""
    words = text.split()
    if words:
        words[0] = words[0][:1].upper() + words[0][1:]
        if len(words) > 1 and words[0].casefold() in names:
            words[0] += ","
    return words


def build_trie(cands: list[Candidate], players: Sequence[str] = ()) -> Node:
    """The candidates' words as Whisper writes them (`whisper_words`), as a trie."""
    names = {p.casefold() for p in players}
    root = Node()
    for c in cands:
        words = whisper_words(c.text, names)
        if not words:
            continue
        node = root
        for word in words:
            node = node.children.setdefault(word, Node())
        node.phrases.append(c)
    return root


def next_word_tokens(node: Node, word_tokens: Callable[[str], list[int]]) -> list[int]:
    """The first token of each word that can follow `node`: the entries of its rows the
    search reads (besides the end tokens)."""
    return [word_tokens(word)[0] for word in node.children]


def first_tokens(root: Node, word_tokens: Callable[[str], list[int]]) -> set[int]:
    """First token of every word in the trie: the prior rows' entries the search reads."""
    out, stack = set(), [root]
    while stack:
        node = stack.pop()
        for word, child in node.children.items():
            out.add(word_tokens(word)[0])
            stack.append(child)
    return out


def count_nodes(root: Node) -> int:
    """Word nodes of the trie (the root excluded): how much an exhaustive search scores."""
    n, stack = 0, [root]
    while stack:
        node = stack.pop()
        n += len(node.children)
        stack.extend(node.children.values())
    return n


def token_prefixes_exceed(
    root: Node, word_tokens: Callable[[str], list[int]], limit: int
) -> bool:
    """Whether the trie has more than `limit` distinct token prefixes (decoder rows of an
    exhaustive search). Stops as soon as it knows: a 34,000-phrase trie has ~37,000 word
    nodes, and building all of their token prefixes only to compare with a few hundred
    took a noticeable part of `set_context`."""
    seen: set[tuple[int, ...]] = set()
    frontier: list[tuple[tuple[int, ...], Node]] = [((), root)]
    while frontier:
        nxt = []
        for tokens, node in frontier:
            for word, child in node.children.items():
                longer = tokens + tuple(word_tokens(word))
                seen.update(longer[:i] for i in range(len(tokens) + 1, len(longer) + 1))
                if len(seen) > limit:
                    return True
                nxt.append((longer, child))
        frontier = nxt
    return False
