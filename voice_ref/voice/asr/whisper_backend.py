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
import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from voice_ref.language.intents import BidIntent, Intent, NumberIntent
from voice_ref.language.spoken import syllables, with_digits
from voice_ref.voice.asr.base import Hypothesis, ListenContext, Utterance
from voice_ref.voice.asr.duration import duration_logp
from voice_ref.voice.asr.phrase_search import (
    Candidate,
    PmiScorer,
    TokenRow,
    SearchLimits,
    build_trie,
    first_tokens,
    search,
)
from voice_ref.voice.asr.vad import StreamingVad

log = logging.getLogger(__name__)

SAMPLE_RATE = 16000
BEAM = 8  # word prefixes scored exactly per decoder call
FIRST_BEAM = 16  # first words: many share their first token ("Veinti-"), so keep more
MAX_WORDS = 8  # longest phrase, in words
MAX_FREE_TOKENS = 24
PROMPT_PHRASES = 8
END_CHECKS = 6  # best phrases whose end is checked exactly (one more decoder call)
BOUND_MARGIN = 8.0  # nats: alternatives this far below the best add < 0.1% to posteriors
GARBAGE_PENALTY = 18.0  # nats against the free transcript (BENCHMARKS.md, "Thresholds")
PRIOR_WEIGHT = 0.5  # lambda: share of the text prior removed from every score (PMI)
PRIOR_CACHE_SIZE = 50_000  # prior entries kept (one float32 row of ~300 entries each)
PRIOR_AUDIO_S = 1.0  # the "no speech" the prior is measured on: this much silence


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
        self._whisper, self._tok, self._features = load_whisper(str(path), threads)
        self._vocab = 51865 if self._whisper.is_multilingual else 51864
        self._end_tokens = [self._tok.eot, *(self._tok.encode(p)[0] for p in ".?!")]
        self._vad = StreamingVad()
        self._candidates: list[Candidate] = []
        self._word_cache: dict[str, list[int]] = {}
        # Text prior: the decoder's scores on silence, by token tuple (they do not depend
        # on the utterance). Only the entries of a row the search reads are kept.
        self._silence = self._encode(np.zeros(int(PRIOR_AUDIO_S * SAMPLE_RATE), np.float32))
        # Columns of the cached prior rows (token -> index); they only grow, so a row
        # shorter than the columns lacks the newest keys and is recomputed.
        self._prior_columns: dict[int, int] = {}
        self._prior_cache: dict[tuple[int, ...], tuple[float, np.ndarray]] = {}
        self._row_keys: set[int] = set(self._end_tokens)
        self.set_context(ListenContext("any"))

    # --- Recognizer protocol -------------------------------------------------------------

    def set_context(self, context: ListenContext) -> None:
        phrases = context.phrases
        if not phrases:
            from voice_ref.language.inventory import PhraseInventory

            inventory = PhraseInventory(self.players, self.dialect, max_quantity=40)
            phrases = tuple(inventory.phrases(context.expecting))
        self.context = context
        self._candidates = [Candidate(p.text, p.intent, syllables(p.text)) for p in phrases]
        # Whisper writes most numbers as digits ("14 dones"): score that spelling too.
        self._candidates += [
            Candidate(variant, c.intent, c.syllables)
            for c in self._candidates
            if (variant := _digit_variant(c.text, c.intent)) is not None
        ]
        self._trie = build_trie(self._candidates, self.players)
        self._row_keys |= first_tokens(self._trie, self._word_tokens)
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
            free_fluency=utt.free_fluency,
            extra=utt.extra,
        )

    def recognize(self, audio: np.ndarray, start_s: float = 0.0, end_s: float = 0.0) -> Utterance:
        t0 = time.perf_counter()
        encoded = self._encode(audio)
        free_tokens, first_row, fluency = self._free_transcript(encoded)
        free = self._tok.decode(free_tokens).strip()
        scorer = PmiScorer(
            lambda seqs: self._probe(encoded, seqs),
            self._prior,
            self.prior_weight,
            self._end_tokens,
        )
        scored = search(
            scorer,
            self._trie,
            scorer.first(first_row),
            self._word_tokens,
            Candidate(free, None) if free else None,
            free_tokens if free else None,
            self.limits,
        )
        calls = scorer.calls
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
            tuple(hyps),
            start_s,
            end_s or len(audio) / SAMPLE_RATE,
            free_text=free,
            free_fluency=fluency if free else None,
            extra=extra,
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

    def _free_transcript(self, encoded) -> tuple[list[int], np.ndarray, float]:  # noqa: ANN001
        """Greedy transcript, the log-distribution of the first token (free for the search),
        and how fluent the transcript is (`free_fluency`)."""
        start = self._start()
        result = self._whisper.generate(
            encoded,
            [start],
            beam_size=1,
            max_length=len(start) + MAX_FREE_TOKENS,
            return_logits_vocab=True,
            suppress_blank=True,
        )[0]
        raw = [t for t in result.sequences_ids[0] if t < self._tok.eot]
        tokens = _cut_loop(raw)
        logits = np.asarray(result.logits[0], dtype=np.float32).reshape(-1, self._vocab)
        rows = _log_softmax(logits[: len(raw) + 1]) if len(logits) else logits
        return tokens, rows[0], free_fluency(tokens, rows)

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

    def _prior(self, sequences: list[list[int]]) -> list[tuple[float, TokenRow]]:
        """log P(tokens | silence), and the next-token entries the search reads.

        One batched decoder call on the silence encoding for the sequences not seen
        before; the text prior does not depend on the utterance, so it is cached
        (one compact float32 row per token tuple, see `TokenRow`).
        """
        columns = self._prior_columns
        for key in sorted(self._row_keys - columns.keys()):
            columns[key] = len(columns)
        width = len(columns)
        missing = [
            t
            for t in dict.fromkeys(map(tuple, sequences))
            if t not in self._prior_cache or len(self._prior_cache[t][1]) < width
        ]
        if missing:
            if len(self._prior_cache) > PRIOR_CACHE_SIZE:
                self._prior_cache.clear()
            index = np.fromiter(columns, dtype=np.int64, count=width)
            for t, (lp, row) in zip(
                missing, self._probe(self._silence, [list(t) for t in missing]), strict=True
            ):
                self._prior_cache[t] = (lp, row[index].astype(np.float32))
        out = []
        for s in sequences:
            lp, values = self._prior_cache[tuple(s)]
            out.append((lp, TokenRow(columns, values)))
        return out

    def _word_tokens(self, word: str) -> list[int]:
        tokens = self._word_cache.get(word)
        if tokens is None:
            tokens = self._word_cache[word] = self._tok.encode(" " + word)
        return tokens


def _log_softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max(axis=-1, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=-1, keepdims=True))


def free_fluency(tokens: list[int], rows: np.ndarray) -> float:
    """Mean log-probability of the greedy transcript's tokens: near 0 when Whisper is
    sure of what it wrote (real speech, table talk it understood), low for guesses.
    `tokens` are the transcript after `_cut_loop`; one that still repeats itself
    ("Y como como como ...") is not fluent: -inf."""
    if not tokens or len(rows) < len(tokens):
        return float("-inf")
    if len(tokens) >= 6 and len(set(tokens)) < len(tokens) / 2:
        return float("-inf")
    return float(rows[np.arange(len(tokens)), tokens].mean())


def _cut_loop(tokens: list[int]) -> list[int]:
    """Whisper often repeats itself ("2 2 2 2", "Casi, Casi, ..."): keep the first period."""
    for period in range(1, len(tokens) // 2 + 1):
        if tokens[period : 2 * period] == tokens[:period]:
            return tokens[:period]
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
