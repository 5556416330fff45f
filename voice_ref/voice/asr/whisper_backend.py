"""Whisper base as a closed-vocabulary recognizer (CTranslate2 encoder, numpy decoder).

Whisper base transcribes short game phrases badly ("cuatro cuadras" ->
"¿Cuánto tu amas?"), but its decoder is a good judge of which *given* text
fits the audio. So, per utterance:

1. Silero VAD (bundled with faster-whisper) cuts the stream into utterances: one
   ends after 0.2 s of silence (shorter pauses inside a phrase must not split it).
   With `tail_s` set (`TAIL_S`: one chunk, see below) it end-points speculatively: the
   utterance's audio (0.2 s before the speech to `tail_s` after it) is recognized
   at the tentative end, when `tail_s` of silence followed the speech, inside that
   block's `accept()`; at the final end the kept result is used if no speech came
   in between (the final segment is then the same audio) and the phrases did not
   change (`set_context`, `reset`), else the final segment is recognized then
   (`SpeculativeSegments`).
2. The utterance is encoded once. The encoder input is the speech, 0.2 s (or
   `tail_s`) of real room audio and 0.3 s of zeros, not the usual 30 s window:
   about 10x faster, and because the padding is silence Whisper still predicts the
   end of text where speech ends. Speech quieter than every measured clip is first
   scaled up to their level (`level.raised`: a quiet microphone).
3. A greedy free transcript is decoded (CTranslate2, int8), on CTranslate2's own thread
   while step 4 runs in numpy; its loops are cut (`free_transcript`). The transcript is
   the "garbage model" for table talk; its score comes from the decoder below, once the
   search is done.
4. A word-level search over the trie of allowed phrases
   (`ListenContext.phrases`, from the phrase inventory, plus digit spellings:
   Whisper writes "14 dones") scores prefixes with Whisper's decoder run in numpy
   from the model's own weights (`whisper_decoder`), with the cross-attention
   keys/values computed once per utterance and a KV cache per scored prefix
   (`prefix_probe`): a child prefix costs one decoder pass over its new tokens,
   batched over a level. Small tries (yes/no, choices, a starter's name: up to
   `EXHAUSTIVE_ROWS` token prefixes) are scored exhaustively; larger ones with a
   beam of `FIRST_BEAM` / `BEAM` word prefixes per level. A complete phrase scores
   log P(text, end-of-text | audio) minus 0.5 x the same on silence (PMI: Whisper's
   text prior favours short, common texts whatever was said; the prior is the same
   decoder on silence, kept by `TextPrior` per token sequence: `prepare` computes it
   for a table's phrases before the game, or a low-priority process does while a live
   table plays (`prior_worker`), and it is saved beside the model, so an answer reads
   it instead of computing it).
5. The best complete phrases get their exact end probability (a final "." only
   ends a phrase if end-of-text follows it: "Camila. Ocho tontos."), and every
   phrase a duration score: its syllables must fit the speech the VAD measured.
6. A softmax over the complete phrases and the free transcript gives each
   hypothesis' share. Phrasings of one intent pool their mass under the likeliest;
   the next few ride along (`Hypothesis.phrasings`: "dudo" under "dudo dudo"). Table
   talk leaves the mass on the free transcript, which the parser reads as no game
   action.
"""

from __future__ import annotations

import logging
import os
import subprocess
import time
from collections import Counter
from collections.abc import MutableMapping, Sequence
from dataclasses import replace
from functools import lru_cache, partial
from pathlib import Path

import numpy as np

from voice_ref.language.intents import BidIntent, Intent, NumberIntent
from voice_ref.language.inventory import Phrase
from voice_ref.language.spoken import syllables, with_digits
from voice_ref.voice.asr.base import Hypothesis, ListenContext, Utterance
from voice_ref.voice.asr.duration import duration_logp
from voice_ref.voice.asr.free_transcript import free_fluency, log_softmax, loop_cut
from voice_ref.voice.asr.level import clipped_share, raised, speech_level_dbfs
from voice_ref.voice.asr.log_mel import encoder_input
from voice_ref.voice.asr.memory import fix_mmap_threshold
from voice_ref.voice.asr.phrase_search import (
    Candidate,
    Node,
    PmiScorer,
    SearchLimits,
    build_trie,
    end_check_sequences,
    first_tokens,
    garbage_value,
    next_word_tokens,
    search,
    token_prefixes_exceed,
)
from voice_ref.voice.asr.prefix_probe import KeepStates, PrefixProbe
from voice_ref.voice.asr.prior_worker import BackgroundPrepare, PrepareJob
from voice_ref.voice.asr.speculative import SpeculativeSegments
from voice_ref.voice.asr.text_prior import FILE_NAME as PRIOR_FILE
from voice_ref.voice.asr.text_prior import PriorRow, TextPrior, fingerprint, phrase_set_digest
from voice_ref.voice.asr.vad import SAMPLE_RATE, Segment, StreamingVad, TalkGate
from voice_ref.voice.asr.whisper_decoder import WhisperDecoder
from voice_ref.voice.asr.whisper_tokens import WhisperTokens

log = logging.getLogger(__name__)

# A context's phrases compiled for the search: candidates, word trie, scored exhaustively,
# the first token of every trie word.
_Compiled = tuple[list[Candidate], Node, bool, frozenset[int]]

BEAM = 16  # word prefixes scored exactly per level (large tries; small ones: all)
FIRST_BEAM = 32  # first words: many share their first token ("Veinti-"), so keep more
# Tries of up to this many token prefixes are scored exhaustively (no beam): one decoder
# row each, ~2-4 ms of CPU a row (BENCHMARKS.md, "Speed").
EXHAUSTIVE_ROWS = 260
MAX_WORDS = 8  # longest phrase, in words
MAX_FREE_TOKENS = 24
PROMPT_PHRASES = 8
PHRASINGS = 4  # other phrasings of a hypothesis passed on (`Hypothesis.phrasings`)
END_CHECKS = 6  # best phrases whose end is checked exactly (one more decoder call)
BOUND_MARGIN = 8.0  # nats: alternatives this far below the best add < 0.1% to posteriors
GARBAGE_PENALTY = 18.0  # nats against the free transcript (BENCHMARKS.md, "Thresholds")
PRIOR_WEIGHT = 0.75  # lambda: share of the text prior removed from every score (PMI); chosen
# on the tuning rows in session 8 (BENCHMARKS.md, "lambda re-chosen")
PRIOR_CACHE_SIZE = 2_000  # sequences the prior probe remembers (~1 kB each); TextPrior keeps values
CONTEXT_CACHE = 4  # compiled phrase sets remembered (the bench: turn, count, yes/no, ...)
PREPARE_CHUNK = 64  # prefixes per decoder call while preparing the text prior
PREPARE_CHECK_NODES = 4_096  # trie nodes whose stored entries are looked up at once
# What a prepare stores, in the digest of a prepared table: raise it when the walk stores
# more (e.g. the end check's "phrase ." sequences), so stores prepared before are walked again.
PREPARE_VERSION = 2  # 2: the end check's "phrase + punct" entries are stored too
# The puncts whose end check a prepare stores ("phrase + punct", then end of text): the
# check picks the one the audio makes likeliest. Each costs a decoder row per phrase end
# (the bench's tables: 77,000 rows of word prefixes, 35,000 phrase ends), so only "." is
# stored; a "?" or "!" check is computed when an answer needs it (BENCHMARKS.md, session 7).
PREPARED_END_PUNCTS = "."
PREPARE_SAVE_S = 30.0  # preparing saves this often: stopped midway, it keeps its work
PRIOR_AUDIO_S = 1.0  # the "no speech" the prior is measured on: this much silence
# Silence after speech before recognition starts (tentative end, step 1), and the real
# audio kept after the speech: one VAD chunk (32 ms). Recognition starts ~160 ms sooner
# than at the final end (0.2 s); with less room audio after the speech the best reading's
# share is a little lower, which the accept line (`asr.speech_accept_score`) was chosen for on
# the tuning rows (BENCHMARKS.md, "End of speech -> decision, session 6"). None: off
# (recognize the final segment, 0.2 s of audio after the speech).
TAIL_S: float | None = 0.032
# numpy's BLAS threads (`limit_blas_threads`): one. With two, the second mostly spun: CPU
# per answer 1.6x, and on a 2-core Zen 1 answers were 16% slower (BENCHMARKS.md, session 14).
BLAS_THREADS = 1
# oneDNN (inside CTranslate2) keeps a compiled kernel per convolution shape, 1,024 by default:
# every utterance length is a new encoder input shape, so its cache grew ~0.5 MB an utterance
# for a whole session (BENCHMARKS.md, "Memory: what grew with the clip count"). A few
# entries still reuse a repeated length.
ONEDNN_CACHE_CAPACITY = 16
_ONEDNN_CACHE_VARS = ("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "DNNL_PRIMITIVE_CACHE_CAPACITY")


@lru_cache(maxsize=2)
def load_whisper(path: str, threads: int):  # noqa: ANN201 - ctranslate2 types
    """Load the CTranslate2 model once per process, with the tokens and the number of Mel
    bands its encoder reads."""
    import ctranslate2

    bound_onednn_cache(os.environ)
    fix_mmap_threshold(os.environ)
    model = ctranslate2.models.Whisper(
        path, device="cpu", compute_type="int8", intra_threads=threads
    )
    return model, WhisperTokens(Path(path) / "tokenizer.json"), model.n_mels


def bound_onednn_cache(environ: MutableMapping[str, str]) -> None:
    """Bound oneDNN's primitive cache unless the user set it. oneDNN reads the variable
    when it first builds a kernel (the first `encode`), so this runs before the model."""
    if not any(name in environ for name in _ONEDNN_CACHE_VARS):
        environ[_ONEDNN_CACHE_VARS[0]] = str(ONEDNN_CACHE_CAPACITY)


@lru_cache(maxsize=1)
def load_decoder(path: str, threads: int = 2) -> WhisperDecoder:
    """The numpy decoder (~180 MB) once per process, numpy's BLAS limited to
    `BLAS_THREADS`."""
    limit_blas_threads()
    return WhisperDecoder(path, threads)


def limit_blas_threads() -> None:
    """Let numpy's BLAS (OpenBLAS) use `BLAS_THREADS` threads in this process. The decoder's
    products are small: a second BLAS thread mostly spun, taking the core CTranslate2 writes
    the free transcript on meanwhile (BENCHMARKS.md, session 14)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=BLAS_THREADS, user_api="blas")


class WhisperRecognizer:
    """See the module docstring. `recognize()` scores one utterance without the VAD."""

    name = "whisper"

    def __init__(
        self,
        model_path: Path | str,
        threads: int = 2,
        players: Sequence[str] = (),
        dialect: str = "chile",
        sample_rate: int = SAMPLE_RATE,
        beam: int = BEAM,
        first_beam: int = FIRST_BEAM,
        garbage_penalty: float = GARBAGE_PENALTY,
        use_prompt: bool = False,
        prior_weight: float = PRIOR_WEIGHT,
        tail_s: float | None = TAIL_S,
    ) -> None:
        if sample_rate != SAMPLE_RATE:
            raise ValueError("the Whisper recognizer works at 16000 Hz")
        from voice_ref.voice.whisper_model import INSTALL_HINT, is_installed

        path = Path(model_path)
        if not is_installed(path):
            raise FileNotFoundError(
                f"No Whisper model in {path}. Run: {INSTALL_HINT} && "
                "voice-ref models install whisper-base"
            )
        self.sample_rate = sample_rate
        self.model = str(path)
        self.players = tuple(players)
        self.dialect = dialect
        self.limits = SearchLimits(
            beam=beam,
            first_beam=first_beam,
            max_words=MAX_WORDS,
            bound_margin=BOUND_MARGIN,
            end_checks=END_CHECKS,
            garbage_penalty=garbage_penalty,
        )
        self.use_prompt = use_prompt
        self.prior_weight = prior_weight
        self._prompt: list[int] = []
        self._whisper, self._tok, self._n_mels = load_whisper(str(path), threads)
        self._decoder = load_decoder(str(path), threads)
        self._end_tokens = [self._tok.eot, *(self._tok.encode(p)[0] for p in ".?!")]
        self._prepared_puncts = [self._tok.encode(p)[0] for p in PREPARED_END_PUNCTS]
        self._vad = StreamingVad(tail_s=tail_s, talk_gate=TalkGate())
        self._early = SpeculativeSegments(self._decode)
        self._active: _Compiled | None = None  # the compiled context results are for
        self._candidates: list[Candidate] = []
        self._word_cache: dict[str, list[int]] = {}
        # The next-token entries the search reads (token -> index in every TokenRow):
        # end tokens and the first token of every trie word. They only grow.
        self._columns: dict[int, int] = {t: i for i, t in enumerate(self._end_tokens)}
        # Text prior: the decoder on silence, by token sequence (it does not depend on
        # the utterance), computed by a long-lived probe and kept by `TextPrior`.
        self._silence = np.asarray(
            self._encode(np.zeros(int(PRIOR_AUDIO_S * SAMPLE_RATE), np.float32))
        )
        self._prior_probe: PrefixProbe | None = None
        self._text_prior: TextPrior | None = None
        self._background: BackgroundPrepare | None = None  # a `prepare` in another process
        self.prepare_rows = 0  # decoder rows the prior's walks computed (load-independent)
        self._compiled: list[tuple[tuple[Phrase, ...], _Compiled]] = []
        self.set_context(ListenContext("any"))

    # --- Recognizer protocol -------------------------------------------------------------

    def set_context(self, context: ListenContext) -> None:
        self._collect_background()
        phrases = context.phrases
        if not phrases:
            from voice_ref.language.inventory import PhraseInventory

            inventory = PhraseInventory(self.players, self.dialect, max_quantity=40)
            phrases = tuple(inventory.phrases(context.expecting))
        self.context = context
        compiled = self._compile(phrases)
        if compiled is not self._active:  # an early result was scored on other phrases
            self._early.drop()
            self._active = compiled
        self._candidates, self._trie, self._exhaustive, firsts = compiled
        for token in sorted(firsts - self._columns.keys()):
            self._columns[token] = len(self._columns)
        prompt = _prompt_text(self._candidates) if self.use_prompt else ""
        prompt_tokens = [self._tok.sot_prev, *self._tok.encode(" " + prompt)] if prompt else []
        if self._prior_probe is None or prompt_tokens != self._prompt:
            self._prompt = prompt_tokens
            self._prior_probe = PrefixProbe(
                self._decoder,
                self._silence,
                self._start(),
                self._columns,
                keep_states=KeepStates.RECENT,
                max_entries=PRIOR_CACHE_SIZE,
            )
            # Kept on disk beside the model, unless a prompt (which changes it) is used.
            path = None if prompt_tokens else Path(self.model) / PRIOR_FILE
            self._text_prior = TextPrior(
                self._prior_probe, path, fingerprint(
                    Path(self.model), self._start(), PRIOR_AUDIO_S, self._decoder.normalizer
                ),
            )
        if self._exhaustive:
            # Small trie: the prior of every prefix now, between utterances, not while
            # a player waits for the answer.
            self._prepare_prior(self._trie)

    def prepare(self, contexts: Sequence[ListenContext], background: bool = False) -> None:
        """Compute the text prior of every phrase of `contexts` and save it beside the
        model: a table's answers then read it instead of computing ~100 decoder rows each.
        The first time for a set of players and rules this takes minutes; a table prepared
        before is known by its digest and costs nothing. `background`: leave the work to a
        low-priority process (`prior_worker`) and return at once."""
        prior = self._text_prior
        if not self.prior_weight or prior is None:
            return
        digest = self._digest(contexts)
        if digest in prior.prepared_sets:
            return
        if background and prior.path is not None:
            if not os.access(prior.path.parent, os.W_OK):  # the work would be lost
                log.warning("Whisper text prior: %s is read-only, so it cannot be prepared "
                            "for good; answers compute what they need", prior.path.parent)
            elif self._background is None:
                job = PrepareJob(self.model, self.players, self.dialect, tuple(contexts))
                self._background = BackgroundPrepare.start(job)
                log.warning("Whisper text prior: preparing this table's phrases in the "
                            "background (minutes, once); answers are slower until then")
            return
        current, t0, before = self.context, time.perf_counter(), prior.computed
        rows = self.prepare_rows
        for context in contexts:
            self.set_context(context)
            if not self._exhaustive:  # set_context prepared a small trie already
                self._prepare_prior(self._trie)
        self.set_context(current)
        prior.prepared_sets.add(digest)
        prior.save()
        computed = prior.computed - before
        if computed:  # minutes the first time: say why the table waited
            log.warning(
                "Whisper text prior: %d new phrase prefixes computed in %.0f s (%d decoder "
                "rows), kept in %s", computed, time.perf_counter() - t0,
                self.prepare_rows - rows, Path(self.model) / PRIOR_FILE,
            )

    def finish_preparing(self, timeout: float | None = None) -> bool:
        """Wait for a background `prepare` and read what it saved; whether it is done."""
        if self._background is not None:
            try:
                self._background.wait(timeout)
            except subprocess.TimeoutExpired:
                return False
        self._collect_background()
        return self._background is None

    def _collect_background(self) -> None:
        """Between utterances: when the background `prepare` has finished, read its work."""
        job = self._background
        if job is None or (code := job.poll()) is None:
            return
        self._background = None
        if code != 0:
            log.warning("Whisper text prior: background preparing failed (%s); answers "
                        "compute what they need", job.failure())
        elif self._text_prior is not None:
            added = self._text_prior.reload()
            log.info("Whisper text prior: %d entries prepared in the background", added)
        job.stop()

    def _digest(self, contexts: Sequence[ListenContext]) -> int:
        """What a `prepare` of `contexts` covers: the players (they make the trie's name
        prefixes) and every context's phrases."""
        return phrase_set_digest(
            [PREPARE_VERSION, self.players, *((c.expecting, c.phrases) for c in contexts)]
        )

    def _prepare_prior(self, trie: Node) -> None:
        """Store the prior of every word prefix of `trie`, the entries a search reads from
        it (the first token of each next word and the end tokens) and, for a prefix that
        ends a phrase, the end check's "phrase + punct" and its end of text
        (`end_check_sequences`): an answer then computes the prior of its free transcript
        only, where the end check alone took ~22 rows from the start.

        Depth first, `PREPARE_CHUNK` prefixes a decoder call, with a probe of its own that
        holds a decoder state (~25 kB a token) only while something extends it: a level of
        the bench's "turn" trie has ~10,000 prefixes, and their states took gigabytes when
        kept; a chunk's, kept until its subtree was done, took ~120 MB of a new table's
        peak (BENCHMARKS.md, session 36). Only
        subtrees that lack something are walked, and every prefix on the way gets its
        decoder state even when its own entries are stored (a store prepared by an older
        walk, another context's shared prefixes): a phrase's end check is then one row
        from the phrase's state, a child one word's rows from its parent's."""
        prior = self._text_prior
        if not self.prior_weight or prior is None:
            return
        todo = self._unprepared(prior, trie)
        if not todo:
            return
        probe = PrefixProbe(self._decoder, self._silence, self._start(), self._columns)
        saved = time.monotonic()

        def walk(items: list[tuple[list[int], Node, tuple[int, ...]]]) -> None:
            """`items`: (prefix, its node, its parent prefix), siblings together, each
            lacking something in its subtree (`todo`)."""
            nonlocal saved
            waiting = Counter(parent for _, _, parent in items)  # children not computed yet
            for i in range(0, len(items), PREPARE_CHUNK):
                part = items[i : i + PREPARE_CHUNK]
                probe([tokens for tokens, _, _ in part])  # the states the rest extends
                # A parent's state is needed until its last child's is computed: released
                # then, not after the whole level (held states are the walk's memory).
                waiting.subtract(parent for _, _, parent in part)
                probe.forget(parent for parent in {p for _, _, p in part} if not waiting[parent])
                ends = [e for tokens, node, _ in part for e in self._end_entries(tokens, node)]
                prior.ensure([*(self._prefix_entries(t, n) for t, n, _ in part), *ends],
                             partial(probe, new_states=False))  # nothing extends an end
                probe.forget(sequence for sequence, _ in ends)
                children = [(tokens + self._word_tokens(word), child, tuple(tokens))
                            for tokens, node, _ in part for word, child in node.children.items()
                            if id(child) in todo]
                parents = {parent for _, _, parent in children}
                probe.forget(t for t, _, _ in part if tuple(t) not in parents)  # leaves: done
                walk(children)
                if time.monotonic() - saved > PREPARE_SAVE_S:
                    prior.save()
                    saved = time.monotonic()
                    log.warning("Whisper text prior: %d phrase prefixes so far, still preparing",
                                prior.computed)

        try:
            walk([([], trie, ())])
        finally:
            self.prepare_rows += probe.rows

    def _prefix_entries(self, tokens: list[int], node: Node) -> tuple[list[int], list[int]]:
        """A word prefix and the entries a search reads after it."""
        return tokens, [*next_word_tokens(node, self._word_tokens), *self._end_tokens]

    def _end_entries(self, tokens: list[int], node: Node) -> list[tuple[list[int], list[int]]]:
        """What the end check reads after `tokens` if it ends a phrase, else nothing."""
        if not node.phrases:
            return []
        return end_check_sequences(tokens, self._end_tokens, self._prepared_puncts)

    def _unprepared(self, prior: TextPrior, trie: Node) -> set[int]:
        """The nodes (by id) whose subtree, themselves included, lacks a prior entry the
        walk stores (vectorized look-ups, `PREPARE_CHECK_NODES` nodes at a time)."""
        order: list[tuple[list[int], Node, int]] = []  # depth first: a parent before its children
        stack: list[tuple[list[int], Node, int]] = [([], trie, -1)]
        while stack:
            tokens, node, parent = stack.pop()
            here = len(order)
            order.append((tokens, node, parent))
            stack.extend((tokens + self._word_tokens(word), child, here)
                         for word, child in node.children.items())
        missing: list[bool] = []
        for i in range(0, len(order), PREPARE_CHECK_NODES):  # bounded: ~10 keys a node
            wanted = [[self._prefix_entries(t, n), *self._end_entries(t, n)]
                      for t, n, _ in order[i : i + PREPARE_CHECK_NODES]]
            found = iter(prior.complete([w for group in wanted for w in group]))
            missing += [not all([next(found) for _ in group]) for group in wanted]
        for i in range(len(order) - 1, 0, -1):
            if missing[i]:
                missing[order[i][2]] = True
        return {id(node) for (_, node, _), m in zip(order, missing, strict=True) if m}

    def _compile(self, phrases: tuple[Phrase, ...]) -> _Compiled:
        """The candidates (digit spellings added), their word trie and whether it is scored
        exhaustively, remembered for the last `CONTEXT_CACHE` phrase sets: a session and
        the bench set the same contexts again and again, and the bench's "turn" context
        (34,212 phrases) took ~1-3 s of CPU to compile."""
        for i, (known, compiled) in enumerate(self._compiled):
            if known is phrases or known == phrases:  # tuples: lengths first
                self._compiled.insert(0, self._compiled.pop(i))
                return compiled
        candidates = [Candidate(p.text, p.intent, syllables(p.text)) for p in phrases]
        # Whisper writes most numbers as digits ("14 dones"): score that spelling too.
        candidates += [
            Candidate(variant, c.intent, c.syllables)
            for c in candidates
            if (variant := _digit_variant(c.text, c.intent)) is not None
        ]
        trie = build_trie(candidates, self.players)
        exhaustive = not token_prefixes_exceed(trie, self._word_tokens, EXHAUSTIVE_ROWS)
        compiled = (candidates, trie, exhaustive, frozenset(first_tokens(trie, self._word_tokens)))
        self._compiled = [(phrases, compiled), *self._compiled[: CONTEXT_CACHE - 1]]
        return compiled

    def accept(self, samples: np.ndarray) -> list[Utterance]:
        """Final utterances that ended in `samples`; a tentative end is recognized here
        too (step 1), its result kept for the final end."""
        return self._released(self._early(self._vad.feed(samples)))

    def flush(self) -> list[Utterance]:
        return self._released(self._early(self._vad.flush()))

    def hearing_speech(self) -> bool:
        return self._vad.in_speech

    def reset(self) -> None:
        self._vad.reset()
        self._early.reset()

    # --- one utterance -------------------------------------------------------------------

    def _released(self, utterances: list[Utterance]) -> list[Utterance]:
        now = self._vad.consumed_s
        return [replace(u, decoded_at_s=now) for u in utterances]

    def _decode(self, segment: Segment) -> Utterance:
        """Recognize one segment; `extra["started_at_s"]`: the stream time it started."""
        utt = self.recognize(segment.audio, segment.start_s, segment.end_s)
        return replace(utt, extra={**utt.extra, "started_at_s": self._vad.consumed_s})

    def recognize(self, audio: np.ndarray, start_s: float = 0.0, end_s: float = 0.0) -> Utterance:
        t0 = time.perf_counter()
        prior_rows, prior_computed = self._prior_counts()
        level = speech_level_dbfs(audio)
        encoded = self._encode(raised(audio, level))
        writing = self._start_free_transcript(encoded)  # on CTranslate2's thread meanwhile
        probe = PrefixProbe(self._decoder, np.asarray(encoded), self._start(), self._columns)
        scorer = PmiScorer(probe, self._prior, self.prior_weight, self._end_tokens)
        limits = self._search_limits()
        scored = search(scorer, self._trie, probe.root[1], self._word_tokens, limits)
        free_tokens, fluency = self._read_free_transcript(writing)
        free = self._tok.decode(free_tokens).strip()
        if free:
            scored.append((Candidate(free, None), garbage_value(scorer, free_tokens, limits)))
        speech_s = end_s - start_s if end_s > start_s else len(audio) / SAMPLE_RATE - 0.4
        scored = sorted(
            ((c, lp + duration_logp(c.syllables, speech_s)) for c, lp in scored),
            key=lambda d: -d[1],
        )
        hyps = _posteriors(scored)
        # The free transcript's value before the garbage penalty, so a replay of the rows
        # can weigh table talk with another penalty (`pooled_shares`).
        free_value = next((lp + limits.garbage_penalty for c, lp in scored if c.intent is None),
                          None)
        extra = {
            "level_dbfs": round(level, 1),  # as recorded, before `raised`
            "clipped_share": round(clipped_share(audio), 5),  # samples at full scale
            "decoder_calls": scorer.calls,
            "decoder_steps": probe.steps,
            "decoder_rows": probe.rows,
            # The text prior's share of this answer (load-independent): decoder rows on
            # silence and sequences computed because the store did not have them.
            "prior_rows": self._prior_counts()[0] - prior_rows,
            "prior_computed": self._prior_counts()[1] - prior_computed,
            "phrases_scored": len(scored),
            "compute_ms": round((time.perf_counter() - t0) * 1000, 1),
            "scored": [
                (c.text, None if c.intent is None else c.intent.to_json(), round(lp, 2))
                for c, lp in scored[:12]
            ],
            "free_value": None if free_value is None else round(free_value, 2),
        }
        return Utterance(
            tuple(hyps),
            start_s,
            end_s or len(audio) / SAMPLE_RATE,
            free_text=free,
            free_fluency=fluency if free else None,
            extra=extra,
        )

    def _prior_counts(self) -> tuple[int, int]:
        """(decoder rows of the prior probe, sequences the text prior computed) so far."""
        probe, prior = self._prior_probe, self._text_prior
        return (0 if probe is None else probe.rows, 0 if prior is None else prior.computed)

    def _search_limits(self) -> SearchLimits:
        """Every phrase when the trie is small (the live loop's), else a wide beam."""
        if not self._exhaustive:
            return self.limits
        return replace(self.limits, beam=10**9, first_beam=10**9, bound_margin=float("inf"))

    def _encode(self, audio: np.ndarray):  # noqa: ANN202
        import ctranslate2

        features = encoder_input(audio, self._n_mels)
        return self._whisper.encode(ctranslate2.StorageView.from_array(features))

    def _start(self) -> list[int]:
        return [*self._prompt, *self._tok.sot_sequence, self._tok.no_timestamps]

    def _start_free_transcript(self, encoded):  # noqa: ANN001, ANN202 - ctranslate2 types
        """Start the greedy transcript (CTranslate2, int8: one call, faster than
        token-by-token steps here) on CTranslate2's own worker thread, which does not hold
        the GIL: the phrase search runs in numpy meanwhile. Its score as the garbage model
        comes from the numpy decoder, like every phrase's."""
        start = self._start()
        return self._whisper.generate(
            encoded,
            [start],
            asynchronous=True,
            beam_size=1,
            max_length=len(start) + MAX_FREE_TOKENS,
            return_logits_vocab=True,
            suppress_blank=True,
        )[0]

    def _read_free_transcript(self, writing) -> tuple[list[int], float]:  # noqa: ANN001
        """The greedy transcript started by `_start_free_transcript` (waited for), after
        `loop_cut`, and how fluent it is (`free_fluency`)."""
        result = writing.result()
        raw = [t for t in result.sequences_ids[0] if t < self._tok.eot]
        pieces = [self._tok.decode([t]) for t in raw]
        tokens = raw[: loop_cut(pieces, capped=len(raw) >= MAX_FREE_TOKENS)]
        logits = np.asarray(result.logits[0], dtype=np.float32).reshape(-1, self._decoder.vocab)
        rows = log_softmax(logits[: len(raw) + 1]) if len(logits) else logits
        return tokens, free_fluency(tokens, rows)

    # --- closed-vocabulary search --------------------------------------------------------

    def _prior(
        self, sequences: list[list[int]], nexts: list[list[int]]
    ) -> list[tuple[float, PriorRow]]:
        """log P(tokens | silence), and its next-token row with at least `nexts` stored
        (computed together, in one batched call, when missing: see `TextPrior`)."""
        if self._text_prior is None:  # set in __init__ by set_context
            raise RuntimeError("the prior is read before any context was set")
        return self._text_prior(sequences, nexts)

    def _word_tokens(self, word: str) -> list[int]:
        tokens = self._word_cache.get(word)
        if tokens is None:
            tokens = self._word_cache[word] = self._tok.encode(" " + word)
        return tokens


def _digit_variant(text: str, intent: Intent | None) -> str | None:
    """ "hay catorce dones" -> "hay 14 dones" for bids and counts (not for 1: "un tren")."""
    match intent:
        case BidIntent(quantity=value) | NumberIntent(value=value) if value != 1:
            return with_digits(text, value)
    return None


def _prompt_text(cands: list[Candidate], n: int = PROMPT_PHRASES) -> str:
    """A few allowed phrases spread over the list, written as previous speech.

    Whisper conditions on "previous text": game phrases there make game words
    likelier for both the candidates and the free transcript.
    """
    plain = [c for c in cands if c.text and not c.text[0].isdigit() and "," not in c.text]
    if not plain:
        return ""
    firsts: dict[str, str] = {}  # one phrase of every intent type first...
    for c in plain:
        firsts.setdefault(c.intent.type if c.intent else "", c.text)
    picked = dict.fromkeys(list(firsts.values())[: n // 2])
    step = max(1, len(plain) // n)  # ...then phrases spread over the whole list
    for i in range(0, len(plain), step):
        if len(picked) >= n:
            break
        picked.setdefault(plain[i].text)
    return " ".join(t[:1].upper() + t[1:] + "." for t in picked)


def _posteriors(scored: list[tuple[Candidate, float]]) -> list[Hypothesis]:
    """Softmax over the scored phrases; phrasings of one intent pool their mass."""
    return pooled_shares([
        (c.text, repr(c.intent.to_json()) if c.intent else "free:" + c.text, lp)
        for c, lp in scored
    ])


def pooled_shares(scored: Sequence[tuple[str, str, float]]) -> list[Hypothesis]:
    """Softmax over (text, pooling key, value); texts of one key (one intent) pool their
    mass, the likeliest names the hypothesis and the next `PHRASINGS` ride along."""
    if not scored:
        return []
    logp = np.array([lp for _, _, lp in scored])
    p = np.exp(logp - logp.max())
    p /= p.sum()
    pooled: dict[str, list[tuple[float, str]]] = {}
    for (text, key, _), pi in zip(scored, p, strict=True):
        pooled.setdefault(key, []).append((float(pi), text))
    hyps = []
    for texts in pooled.values():
        texts.sort(key=lambda t: -t[0])
        others = tuple(dict.fromkeys(t for _, t in texts[1:] if t != texts[0][1]))
        total = round(sum(pi for pi, _ in texts), 4)
        hyps.append(Hypothesis(texts[0][1], total, phrasings=others[:PHRASINGS]))
    return sorted(hyps, key=lambda h: -h.score)
