"""Whisper (CTranslate2) as a closed-vocabulary recognizer.

Whisper base transcribes short game phrases badly ("cuatro cuadras" ->
"¿Cuánto tu amas?"), but its decoder is a good judge of which *given* text
fits the audio. So, per utterance:

1. Silero VAD (bundled with faster-whisper) cuts the stream into utterances.
2. The utterance is encoded once. The encoder input is the speech plus 0.3 s of
   real silence, not the usual 30 s window: about 10x faster, and because the
   padding is silence Whisper still predicts the end of text where speech ends.
3. A greedy free transcript is decoded. Its first step gives the distribution of
   the first token, and the transcript itself is the "garbage model" for table talk.
4. A word-level beam search over the trie of allowed phrases
   (`ListenContext.phrases`, from the phrase inventory, plus digit spellings:
   Whisper writes "14 dones") scores prefixes with the decoder, one batched call
   per word level. A complete phrase scores log P(text, end-of-text | audio)
   minus 0.5 x the same on silence (PMI: Whisper's text prior favours short,
   common texts whatever was said; the prior is cached by token tuple).
5. The best complete phrases get their exact end probability (a final "." only
   ends a phrase if end-of-text follows it: "Camila. Ocho tontos."), and every
   phrase a duration score: its syllables must fit the speech the VAD measured.
6. A softmax over the complete phrases and the free transcript gives each
   hypothesis' share. Table talk leaves the mass on the free transcript, which the
   parser reads as no game action.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from voice_ref.language.intents import Intent, intent_from_json
from voice_ref.language.text import fold, tokenize
from voice_ref.voice.asr.base import Hypothesis, ListenContext, Utterance

log = logging.getLogger(__name__)

SAMPLE_RATE = 16000
BEAM = 8  # word prefixes scored exactly per decoder call
FIRST_BEAM = 16  # first words: many share their first token ("Veinti-"), so keep more
MAX_WORDS = 8  # longest phrase, in words
MAX_FREE_TOKENS = 24
PROMPT_PHRASES = 8
SYLLABLES_PER_S = 5.5
ONSET_S = 0.15  # VAD hangover and word onset: a lone "sí" still lasts ~0.3 s
DURATION_SIGMA = 0.35
END_CHECKS = 6  # best phrases whose end is checked exactly (one more decoder call)
BOUND_MARGIN = 8.0  # nats: alternatives this far below the best add < 0.1% to posteriors
GARBAGE_PENALTY = 18.0  # nats against the free transcript (BENCHMARKS.md, "Thresholds")
PRIOR_WEIGHT = 0.5  # lambda: share of the text prior removed from every score (PMI)
PRIOR_CACHE_SIZE = 50_000  # prior entries kept (~300 floats each)
PRIOR_AUDIO_S = 1.0  # the "no speech" the prior is measured on: this much silence


class StreamingVad:
    """Silero VAD over 32 ms chunks, with its recurrent state carried across blocks.

    An utterance starts at the first chunk with speech probability >= `threshold`
    and ends after `end_silence_s` below `neg_threshold` (hysteresis, as in Silero's
    own `get_speech_timestamps`). 0.2 s answers 0.1 s sooner than 0.3 s and, on the
    590 DEV clips with speech, splits 5 instead of 2 (a pause after "Beto," is
    about 0.22 s): every answer waits for it, a split costs one clip in 200.
    """

    CHUNK = 512

    def __init__(
        self,
        threshold: float = 0.5,
        neg_threshold: float = 0.35,
        end_silence_s: float = 0.2,
        min_speech_s: float = 0.1,
        pad_s: float = 0.2,
        max_utterance_s: float = 10.0,
    ) -> None:
        from faster_whisper.vad import get_vad_model

        self._session = get_vad_model().session
        self.threshold = threshold
        self.neg_threshold = neg_threshold
        self.end_chunks = round(end_silence_s * SAMPLE_RATE / self.CHUNK)
        self.min_chunks = round(min_speech_s * SAMPLE_RATE / self.CHUNK)
        self.pad = int(pad_s * SAMPLE_RATE)
        self.max_samples = int(max_utterance_s * SAMPLE_RATE)
        self.reset()

    def reset(self, keep_time: bool = True) -> None:
        self._h = np.zeros((1, 1, 128), np.float32)
        self._c = np.zeros((1, 1, 128), np.float32)
        self._context = np.zeros(64, np.float32)
        self._pending = np.zeros(0, np.float32)  # < one chunk, not yet classified
        self._audio = np.zeros(0, np.float32)  # classified audio kept for the utterance
        self._audio_start = getattr(self, "_consumed", 0) if keep_time else 0
        self._consumed = self._audio_start  # samples classified since the stream began
        self._speech_start: int | None = None  # absolute sample
        self._speech_end = 0  # absolute sample just after the last speech chunk
        self._speech_chunks = 0
        self._silence = 0

    @property
    def consumed_s(self) -> float:
        return self._consumed / SAMPLE_RATE

    def feed(self, samples: np.ndarray) -> list[tuple[np.ndarray, float, float]]:
        """Returns finished (audio, start_s, end_s) segments, audio padded on both sides."""
        out = []
        data = np.concatenate([self._pending, np.asarray(samples, np.float32).reshape(-1)])
        n = len(data) // self.CHUNK * self.CHUNK
        self._pending = data[n:]
        for i in range(0, n, self.CHUNK):
            seg = self._chunk(data[i : i + self.CHUNK])
            if seg is not None:
                out.append(seg)
        return out

    def flush(self) -> list[tuple[np.ndarray, float, float]]:
        seg = self._close() if self._speech_start is not None else None
        return [seg] if seg is not None else []

    def _chunk(self, chunk: np.ndarray) -> tuple[np.ndarray, float, float] | None:
        x = np.concatenate([self._context, chunk])[None]
        prob, self._h, self._c = self._session.run(None, {"input": x, "h": self._h, "c": self._c})
        self._context = chunk[-64:]
        p = float(np.asarray(prob).reshape(-1)[0])
        self._audio = np.concatenate([self._audio, chunk])
        start, self._consumed = self._consumed, self._consumed + len(chunk)
        if self._speech_start is None:
            if p >= self.threshold:
                self._speech_start, self._speech_end = start, self._consumed
                self._speech_chunks, self._silence = 1, 0
            else:  # keep only the padding before a possible start
                drop = max(0, len(self._audio) - self.pad - self.CHUNK)
                self._audio = self._audio[drop:]
                self._audio_start += drop
            return None
        if p >= self.neg_threshold:
            self._speech_end, self._silence = self._consumed, 0
            self._speech_chunks += 1
        else:
            self._silence += 1
        too_long = self._consumed - self._speech_start >= self.max_samples
        if self._silence >= self.end_chunks or too_long:
            return self._close()
        return None

    def _close(self) -> tuple[np.ndarray, float, float] | None:
        start, end = self._speech_start or 0, self._speech_end
        keep = self._speech_chunks >= self.min_chunks
        lo = max(0, start - self.pad - self._audio_start)
        hi = min(len(self._audio), end + self.pad - self._audio_start)
        audio = self._audio[lo:hi]
        self._audio = self._audio[-(self.pad + self.CHUNK) :]
        self._audio_start = self._consumed - len(self._audio)
        self._speech_start, self._speech_chunks, self._silence = None, 0, 0
        if not keep:
            return None
        return audio, start / SAMPLE_RATE, end / SAMPLE_RATE


@dataclass(frozen=True, slots=True)
class Candidate:
    text: str
    intent: Intent | None  # None for the free transcript (garbage model)
    syllables: int = 0  # of the spoken words (digit spellings keep their phrase's count)


@lru_cache(maxsize=2)
def load_whisper(path: str, threads: int):  # noqa: ANN201 - ctranslate2 types
    """Load the CTranslate2 model, tokenizer and feature extractor once per process."""
    import ctranslate2
    import tokenizers
    from faster_whisper.feature_extractor import FeatureExtractor
    from faster_whisper.tokenizer import Tokenizer

    model = ctranslate2.models.Whisper(
        path, device="cpu", compute_type="int8", intra_threads=threads
    )
    hf = tokenizers.Tokenizer.from_file(str(Path(path) / "tokenizer.json"))
    tokenizer = Tokenizer(hf, True, task="transcribe", language="es")
    return model, tokenizer, FeatureExtractor(feature_size=model.n_mels)


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
        self.beam = beam
        self.first_beam = first_beam
        self.garbage_penalty = garbage_penalty
        self.use_prompt = use_prompt
        self.prior_weight = prior_weight
        self._prompt: list[int] = []
        self._whisper, self._tok, self._features = load_whisper(str(path), threads)
        self._vocab = 51865 if self._whisper.is_multilingual else 51864
        self._end_tokens = [self._tok.eot, *(self._tok.encode(p)[0] for p in ".?!")]
        self._vad = StreamingVad()
        self._candidates: list[Candidate] = []
        self._word_cache: dict[str, list[int]] = {}
        # Text prior: the decoder's scores on silence, by token tuple (they do not depend
        # on the utterance). Only the entries of a row the search reads are kept.
        self._silence = self._encode(np.zeros(int(PRIOR_AUDIO_S * SAMPLE_RATE), np.float32))
        self._prior_cache: dict[tuple[int, ...], tuple[float, dict[int, float]]] = {}
        self._row_keys: set[int] = set(self._end_tokens)
        self.set_context(ListenContext("any"))

    # --- Recognizer protocol -------------------------------------------------------------

    def set_context(self, context: ListenContext) -> None:
        phrases = context.phrases
        if not phrases:
            from voice_ref.language.inventory import PhraseInventory

            inventory = PhraseInventory(self.players, self.dialect, max_quantity=40)
            phrases = tuple(
                (p.text, p.intent.to_json()) for p in inventory.phrases(context.expecting)
            )
        self.context = context
        self._candidates = [
            Candidate(text, intent_from_json(obj), syllables(text)) for text, obj in phrases
        ]
        # Whisper writes most numbers as digits ("14 dones"): score that spelling too.
        self._candidates += [
            Candidate(variant, c.intent, c.syllables)
            for c in self._candidates
            if (variant := _digit_variant(c.text, c.intent)) is not None
        ]
        self._trie = _build_trie(self._candidates, self.players)
        self._row_keys |= _first_tokens(self._trie, self._word_tokens)
        prompt = _prompt_text(self._candidates) if self.use_prompt else ""
        self._prompt = [self._tok.sot_prev, *self._tok.encode(" " + prompt)] if prompt else []

    def accept(self, samples: np.ndarray) -> list[Utterance]:
        return [self._decode(seg) for seg in self._vad.feed(samples)]

    def flush(self) -> list[Utterance]:
        return [self._decode(seg) for seg in self._vad.flush()]

    def reset(self) -> None:
        self._vad.reset()

    # --- one utterance -------------------------------------------------------------------

    def _decode(self, segment: tuple[np.ndarray, float, float]) -> Utterance:
        audio, start_s, end_s = segment
        utt = self.recognize(audio, start_s, end_s)
        return Utterance(
            utt.hypotheses,
            start_s,
            end_s,
            decoded_at_s=self._vad.consumed_s,
            free_text=utt.free_text,
            extra=utt.extra,
        )

    def recognize(self, audio: np.ndarray, start_s: float = 0.0, end_s: float = 0.0) -> Utterance:
        t0 = time.perf_counter()
        encoded = self._encode(audio)
        free_tokens, first_row = self._free_transcript(encoded)
        free = self._tok.decode(free_tokens).strip()
        scored, calls = self._search(encoded, first_row, free_tokens if free else None)
        speech_s = end_s - start_s if end_s > start_s else len(audio) / SAMPLE_RATE - 0.4
        scored = sorted(
            ((c, lp + duration_logp(c.syllables, speech_s)) for c, lp in scored),
            key=lambda d: -d[1],
        )
        hyps = _posteriors(scored)
        extra = {
            "decoder_calls": calls,
            "compute_ms": round((time.perf_counter() - t0) * 1000, 1),
            "scored": [
                (c.text, None if c.intent is None else c.intent.to_json(), round(lp, 2))
                for c, lp in scored[:12]
            ],
        }
        return Utterance(
            tuple(hyps), start_s, end_s or len(audio) / SAMPLE_RATE, free_text=free, extra=extra
        )

    def _encode(self, audio: np.ndarray):  # noqa: ANN202
        import ctranslate2

        # Speech plus >= 0.3 s of true silence, so the decoder sees where speech ends.
        frames = int(len(audio) / 160) + 30
        frames += frames % 2
        padded = np.zeros(frames * 160, np.float32)
        padded[: len(audio)] = audio[: len(padded)]
        feats = self._features(padded, padding=0)[:, :frames]
        return self._whisper.encode(
            ctranslate2.StorageView.from_array(np.ascontiguousarray(feats[None], dtype=np.float32))
        )

    def _start(self) -> list[int]:
        return [*self._prompt, *self._tok.sot_sequence, self._tok.no_timestamps]

    def _free_transcript(self, encoded) -> tuple[list[int], np.ndarray]:  # noqa: ANN001
        """Greedy transcript, and the log-distribution of the first token (free for the search)."""
        start = self._start()
        result = self._whisper.generate(
            encoded,
            [start],
            beam_size=1,
            max_length=len(start) + MAX_FREE_TOKENS,
            return_logits_vocab=True,
            suppress_blank=True,
        )[0]
        tokens = _cut_loop([t for t in result.sequences_ids[0] if t < self._tok.eot])
        logits = np.asarray(result.logits[0], dtype=np.float32).reshape(-1, self._vocab)
        return tokens, _log_softmax(logits[:1])[0]

    def _probe(self, encoded, sequences: list[list[int]]) -> list[tuple[float, np.ndarray]]:  # noqa: ANN001
        """For each token sequence: its total log-probability and the next-token log-distribution.

        `generate` with the sequence forced as a prefix returns the vocabulary
        distribution at every position: each forced token's probability, and
        right after the sequence, what comes next (end of text included).
        """
        import ctranslate2

        start = self._start()
        enc = np.asarray(encoded)
        batch = ctranslate2.StorageView.from_array(np.repeat(enc, len(sequences), axis=0))
        results = self._whisper.generate(
            batch,
            [start + seq for seq in sequences],
            beam_size=1,
            max_length=len(start) + 2 * max(map(len, sequences)) + 6,
            return_logits_vocab=True,
            suppress_blank=False,
            suppress_tokens=[],
        )
        out = []
        for res, seq in zip(results, sequences, strict=True):
            logits = np.asarray(res.logits[0], dtype=np.float32).reshape(-1, self._vocab)
            if len(logits) < len(seq) + 1:  # decoding stopped early (not expected)
                out.append((-np.inf, np.full(self._vocab, -np.inf, np.float32)))
                continue
            rows = _log_softmax(logits[: len(seq) + 1])
            out.append((float(rows[np.arange(len(seq)), seq].sum()), rows[len(seq)]))
        return out

    # --- closed-vocabulary search --------------------------------------------------------

    def _prior(self, sequences: list[list[int]]) -> list[tuple[float, dict[int, float]]]:
        """log P(tokens | silence), and the next-token entries the search reads.

        One batched decoder call on the silence encoding for the sequences not seen
        before; the text prior does not depend on the utterance, so it is cached.
        """
        keys = self._row_keys
        missing = [
            t
            for t in dict.fromkeys(map(tuple, sequences))
            if t not in self._prior_cache or not keys <= self._prior_cache[t][1].keys()
        ]
        if missing:
            if len(self._prior_cache) > PRIOR_CACHE_SIZE:
                self._prior_cache.clear()
            index = np.fromiter(keys, dtype=np.int64)
            for t, (lp, row) in zip(
                missing, self._probe(self._silence, [list(t) for t in missing]), strict=True
            ):
                self._prior_cache[t] = (
                    lp,
                    dict(zip(index.tolist(), row[index].tolist(), strict=True)),
                )
        return [self._prior_cache[tuple(s)] for s in sequences]

    def _search(
        self,
        encoded,
        first_row: np.ndarray,
        free_tokens: list[int] | None,  # noqa: ANN001
    ) -> tuple[list[tuple[Candidate, float]], int]:
        """Word-level beam search over the phrase trie, scored by the decoder.

        Each level is one batched decoder call: the `BEAM` most promising word
        prefixes (ranked by the first token of their last word) are scored exactly,
        which also gives the distribution of their next token for the next level
        and, for complete phrases, the probability of ending there.
        The free transcript rides along in the first call as the garbage model.

        Every score is pointwise mutual information, not likelihood:
        log P(text | audio) - lambda x log P(text | silence). Whisper's decoder has a
        strong text prior (short, common phrases win whatever was said); the same
        decoder on silence measures that prior, and `prior_weight` (lambda) removes
        part of it.
        """
        lam = self.prior_weight
        eot = self._tok.eot
        done: list[tuple[Candidate, float]] = []
        ends: dict[int, tuple] = {}  # index in done -> lp, tokens, row, prior lp, prior row
        ((plp0, prow0),) = self._prior([[]]) if lam else [(0.0, {})]
        frontier: list[tuple] = [([], 0.0, self._trie, first_row, plp0, prow0)]
        calls = 0
        best = -np.inf

        def close(tokens, lp, node, row, plp, prow) -> None:  # noqa: ANN001
            nonlocal best
            for cand in node.phrases:
                ends[len(done)] = (lp, tokens, row, plp, prow)
                done.append((cand, lp + self._end(row) - lam * (plp + self._end(prow))))
                best = max(best, done[-1][1])

        for level in range(MAX_WORDS):
            options = []
            for tokens, lp, node, row, plp, prow in frontier:
                close(tokens, lp, node, row, plp, prow)
                for word, child in node.children.items():
                    wt = self._word_tokens(word)
                    prior = plp + prow.get(wt[0], 0.0) if lam else 0.0
                    options.append((lp + float(row[wt[0]]) - lam * prior, tokens + wt, child))
            # Drop options whose estimate is far below the best complete phrase (exact for
            # likelihoods, which only fall as tokens are added; a heuristic for PMI).
            options = [o for o in options if o[0] > best - BOUND_MARGIN]
            if not options:
                break
            options.sort(key=lambda o: -o[0])
            options = options[: self.first_beam if level == 0 else self.beam]
            sequences = [o[1] for o in options]
            if free_tokens is not None:
                sequences.append(free_tokens)
            probed = self._probe(encoded, sequences)
            priors = self._prior(sequences) if lam else [(0.0, {})] * len(sequences)
            calls += 1
            if free_tokens is not None:
                free_lp, free_row = probed.pop()
                free_plp, free_prow = priors.pop()
                free = Candidate(self._tok.decode(free_tokens).strip(), None)
                # The free transcript carries its own punctuation: it ends on end-of-text.
                score = free_lp + float(free_row[eot])
                score -= lam * (free_plp + free_prow.get(eot, 0.0))
                done.append((free, score - self.garbage_penalty))
                free_tokens = None
            frontier = [
                (o[1], lp, o[2], row, plp, prow)
                for o, (lp, row), (plp, prow) in zip(options, probed, priors, strict=True)
            ]
        for item in frontier:
            close(*item)
        calls += self._check_ends(encoded, done, ends)
        done.sort(key=lambda d: -d[1])
        return done, calls

    def _check_ends(self, encoded, done: list, ends: dict) -> int:  # noqa: ANN001
        """Replace the optimistic end estimate by the exact one for the best phrases.

        After "Camila" Whisper may well write "." and then go on ("Camila. Ocho
        tontos."), so a final period only ends the phrase if end-of-text follows it.
        The best `END_CHECKS` phrases get P(end-of-text) + P(punct) x P(end-of-text |
        punct) from one more decoder call; the others keep P(end-of-text) alone.
        The prior gets the same treatment.
        """
        lam = self.prior_weight
        eot = self._tok.eot
        order = sorted(ends, key=lambda i: -done[i][1])[:END_CHECKS]
        for i, (lp, _tokens, row, plp, prow) in ends.items():
            if i not in order:
                done[i] = (done[i][0], lp + float(row[eot]) - lam * (plp + prow.get(eot, 0.0)))
        if not order:
            return 0
        puncts = [
            self._end_tokens[1 + int(np.argmax(ends[i][2][self._end_tokens[1:]]))] for i in order
        ]
        sequences = [ends[i][1] + [p] for i, p in zip(order, puncts, strict=True)]
        probed = self._probe(encoded, sequences)
        priors = self._prior(sequences) if lam else [(0.0, {})] * len(sequences)
        for i, p, (_total, after), (_ptotal, pafter) in zip(
            order, puncts, probed, priors, strict=True
        ):
            lp, _tokens, row, plp, prow = ends[i]
            end = np.logaddexp(row[eot], row[p] + after[eot])
            pend = (
                np.logaddexp(prow.get(eot, 0.0), prow.get(p, 0.0) + pafter.get(eot, 0.0))
                if lam
                else 0.0
            )
            done[i] = (done[i][0], lp + float(end) - lam * (plp + float(pend)))
        return 1

    def _end(self, row: np.ndarray | dict[int, float]) -> float:
        """log P(the text ends here): end of text, or a final . ? ! (Whisper's habit)."""
        if isinstance(row, dict):
            return float(np.logaddexp.reduce([row.get(t, 0.0) for t in self._end_tokens]))
        return float(np.logaddexp.reduce(row[self._end_tokens]))

    def _word_tokens(self, word: str) -> list[int]:
        tokens = self._word_cache.get(word)
        if tokens is None:
            tokens = self._word_cache[word] = self._tok.encode(" " + word)
        return tokens


@dataclass
class _Node:
    children: dict[str, _Node] = field(default_factory=dict)
    phrases: list[Candidate] = field(default_factory=list)


def _build_trie(cands: list[Candidate], players: Sequence[str] = ()) -> _Node:
    """Words as Whisper writes them: the first one capitalized ("Cuatro cuadras"), and a
    comma after a name that opens a longer phrase ("Ana, cinco quinas")."""
    names = {p.casefold() for p in players}
    root = _Node()
    for c in cands:
        words = c.text.split()
        if not words:
            continue
        words[0] = words[0][:1].upper() + words[0][1:]
        if len(words) > 1 and words[0].casefold() in names:
            words[0] += ","
        node = root
        for word in words:
            node = node.children.setdefault(word, _Node())
        node.phrases.append(c)
    return root


def _first_tokens(root: _Node, word_tokens) -> set[int]:  # noqa: ANN001
    """First token of every word in the trie: the prior rows' entries the search reads."""
    out, stack = set(), [root]
    while stack:
        node = stack.pop()
        for word, child in node.children.items():
            out.add(word_tokens(word)[0])
            stack.append(child)
    return out


def _log_softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max(axis=-1, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=-1, keepdims=True))


def syllables(text: str) -> int:
    """Spanish syllables, roughly: groups of vowels ("cua-tro cua-dras" -> 4)."""
    return len(re.findall(r"[aeiouáéíóúü]+", fold(text))) or 1


def duration_logp(n_syllables: int, speech_s: float) -> float:
    """Log-normal duration model: does a phrase of n syllables fit `speech_s` of speech?

    Whisper's decoder barely notices audio left unexplained ("Camila" for "Camila,
    ocho tontos"). Speaking rate: 140-185 words/min x ~2 syllables/word = 4.7-6.2
    syllables/s (`SYLLABLES_PER_S`), plus `ONSET_S`; `DURATION_SIGMA` allows about
    ±40% around it.
    The free transcript (n = 0) is not judged.
    """
    if n_syllables <= 0 or speech_s <= 0:
        return 0.0
    ratio = speech_s / (ONSET_S + n_syllables / SYLLABLES_PER_S)
    return -(np.log(ratio) ** 2) / (2 * DURATION_SIGMA**2)


def _cut_loop(tokens: list[int]) -> list[int]:
    """Whisper often repeats itself ("2 2 2 2", "Casi, Casi, ..."): keep the first period."""
    for period in range(1, len(tokens) // 2 + 1):
        if tokens[period : 2 * period] == tokens[:period]:
            return tokens[:period]
    return tokens


def _digit_variant(text: str, intent: Intent | None) -> str | None:
    """ "hay catorce dones" -> "hay 14 dones" for bids and counts (not for 1: "un tren")."""
    from voice_ref.language.numbers import reading_table

    value = getattr(intent, "quantity", None) or getattr(intent, "value", None)
    if intent is None or intent.type not in ("bid", "number") or value in (None, 1):
        return None
    words = text.split()
    table = reading_table()
    for i in range(len(words)):
        for j in range(min(len(words), i + 5), i, -1):
            if table.get(tuple(tokenize(" ".join(words[i:j])))) == value:
                return " ".join([*words[:i], str(value), *words[j:]])
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
    if not scored:
        return []
    logp = np.array([lp for _, lp in scored])
    p = np.exp(logp - logp.max())
    p /= p.sum()
    pooled: dict[str, tuple[float, str, float]] = {}
    for (c, _), pi in zip(scored, p, strict=True):
        key = repr(c.intent.to_json()) if c.intent else "free:" + c.text
        total, text, best = pooled.get(key, (0.0, c.text, -1.0))
        if pi > best:
            text, best = c.text, pi
        pooled[key] = (total + float(pi), text, best)
    hyps = [Hypothesis(text, round(total, 4)) for total, text, _ in pooled.values()]
    return sorted(hyps, key=lambda h: -h.score)
