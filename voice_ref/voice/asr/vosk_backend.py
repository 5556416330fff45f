"""Vosk (Kaldi) recognizer restricted to the phrases the referee can accept now.

How it works:
- Grammar mode: the allowed phrases become a Vosk grammar, plus "[unk]" when the
  model has it, so table talk comes out as "[unk]" instead of being forced into a
  game phrase. Vosk builds a small bigram model from the phrases, so a hypothesis
  may combine words of two phrases; the parser decides what it means.
- Out-of-vocabulary words are found up front with the model's own word table
  (`vosk_model_find_word`, which reads graph/words.txt or the symbols inside Gr.fst).
  Vosk would silently drop them ("cinco quinas" would become "cinco"), so phrases
  containing one are left out of the grammar and the words are logged once.
- Switching grammar: Vosk aborts the process if `SetGrammar` is called while it is
  decoding, so a new recognizer is created instead (about 0.2 ms with a grammar).
  Audio since the last finished utterance is dropped, as with `reset()`.
- Scores: Vosk's N-best "confidence" is a log-likelihood-like total (higher is better,
  grows with length). Scores are the softmax of these over the utterance's N-best
  list, i.e. each hypothesis' share of the N-best probability mass. Empty hypotheses
  (silence/noise) take part in the softmax and are then dropped, so noise lowers the
  scores of what remains. With `max_alternatives=0` there is one hypothesis, scored
  by the mean of Vosk's word posteriors.
- "[unk]": hypothesis texts hold only game words, so "hay cinco quinas" heard as
  "[unk] cinco quinas" reads "cinco quinas"; but the score is multiplied by the share
  of game words (2/3 here), so "yo no dudo de ti" ("[unk] [unk] dudo [unk] [unk]")
  scores a fifth of its probability. Only-[unk] hypotheses are dropped like empty ones.
  The word timings keep the "[unk]" entries, and `extra["vosk_text"]` the raw best text.
- Times: Vosk word times count from the recognizer's creation; we add the stream
  time at which it was created, so `start_s`/`end_s` are stream times.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from voice_ref.voice.asr.base import Hypothesis, ListenContext, Utterance, WordTiming
from voice_ref.voice.vosk_model import require_model

log = logging.getLogger(__name__)

UNK = "[unk]"
_CHUNK_S = 0.2  # endpoint resolution: Vosk checks for an endpoint once per call
_WARNED_NO_UNK: set[str] = set()
_TOKEN = re.compile(r"\[unk\]|[^\W_]+(?:['-][^\W_]+)*")


@lru_cache(maxsize=2)
def load_model(path: str) -> Any:
    """Load a Vosk model once per process (it takes seconds and hundreds of MB)."""
    import vosk

    vosk.SetLogLevel(-1)  # Kaldi's log lines would drown the referee's output
    require_model(Path(path))
    try:
        return vosk.Model(path)
    except Exception as exc:  # vosk raises a bare Exception
        raise RuntimeError(f"Vosk could not load the model in {path}: {exc}") from None


def normalize(text: str) -> str:
    """Lower-case words as Vosk vocabularies spell them, without punctuation."""
    return " ".join(_TOKEN.findall(text.lower()))


def _phrase_text(phrase: Any) -> str:
    """A phrase may be a string, an inventory `Phrase` (`.text`) or a (text, intent) pair."""
    if isinstance(phrase, str):
        return phrase
    if hasattr(phrase, "text"):
        return str(phrase.text)
    return str(phrase[0])


class VoskRecognizer:
    """The `Recognizer` interface (voice/asr/base.py) on top of a Vosk model."""

    name = "vosk"

    def __init__(
        self,
        model_path: Path | str,
        sample_rate: int = 16000,
        threads: int | None = None,
        phrases: Iterable[Any] = (),
        max_alternatives: int = 5,
        players: Sequence[str] | None = None,
        dialect: str = "chile",
        clean_bids: bool = False,
    ) -> None:
        """`phrases` is the whole game's phrase list; without it, `players` (and `dialect`,
        `clean_bids`) take it from the phrase inventory, and with neither the recognizer
        transcribes freely until `set_context`. `threads` is accepted for symmetry with
        Whisper: Vosk decodes a stream on one thread."""
        path = Path(model_path)
        self.model = path.name
        self.sample_rate = sample_rate
        self.threads = threads
        self.max_alternatives = max_alternatives
        self._model = load_model(str(path.resolve()))
        self._known: dict[str, bool] = {}
        self._reported: set[str] = set()
        self._missing: set[str] = set()
        self._game_phrases: tuple[str, ...] = ()
        self._expecting = "any"
        self._grammar: tuple[str, ...] | None = None
        self._kaldi: Any = None
        self._origin_s = 0.0  # stream time at which the current Kaldi recognizer started
        self._fed = 0  # samples accepted since the start of the stream
        self.has_unk = self.knows(UNK)
        if not self.has_unk and self.model not in _WARNED_NO_UNK:
            _WARNED_NO_UNK.add(self.model)
            log.warning(
                "El modelo %s no tiene [unk]: la charla de mesa se leerá como frases del juego.",
                self.model,
            )
        phrases = tuple(phrases)
        if players is not None and not phrases:
            from voice_ref.language.inventory import PhraseInventory

            inventory = PhraseInventory(players, dialect, clean_bids=clean_bids)
            self.check_words(inventory.words())  # every word the parser knows, up front
            phrases = tuple(inventory.phrases("any", canonical=True))
        self.set_phrases(phrases)

    # --- vocabulary -------------------------------------------------------------

    def knows(self, word: str) -> bool:
        """Whether the model's vocabulary has `word` (as Vosk spells it: lower case)."""
        if word not in self._known:
            self._known[word] = self._model.vosk_model_find_word(word) >= 0
        return self._known[word]

    def missing_words(self) -> tuple[str, ...]:
        """Every phrase word seen so far that the model cannot recognize, sorted."""
        return tuple(sorted(self._missing))

    def missing_message(self) -> str:
        """The Spanish warning for the missing words ('' when there are none)."""
        if not self._missing:
            return ""
        return (
            f"El modelo no conoce estas palabras: {', '.join(self.missing_words())} "
            "— no se podrán reconocer."
        )

    def check_words(self, words: Iterable[str]) -> tuple[str, ...]:
        """Report (once) and return the words the model cannot recognize."""
        missing = {w for w in (normalize(w) for w in words) if w and not self.knows(w)}
        self._report(missing)
        return tuple(sorted(missing))

    def _usable(self, phrases: Iterable[Any]) -> tuple[str, ...]:
        """Normalized phrases whose words are all in the vocabulary; reports the others."""
        usable: dict[str, None] = {}
        new_missing: set[str] = set()
        for phrase in phrases:
            text = normalize(_phrase_text(phrase))
            if not text:
                continue
            missing = {w for w in text.split() if not self.knows(w)}
            if missing:
                new_missing |= missing
            else:
                usable[text] = None
        self._report(new_missing)
        return tuple(usable)

    def _report(self, new_missing: set[str]) -> None:
        self._missing |= new_missing
        fresh = new_missing - self._reported
        if fresh:
            self._reported |= fresh
            log.warning(
                "El modelo no conoce estas palabras: %s — no se podrán reconocer.",
                ", ".join(sorted(fresh)),
            )

    # --- grammar ----------------------------------------------------------------

    def set_phrases(self, phrases: Iterable[Any]) -> None:
        """Start a new game's vocabulary (player names change it); checks every word."""
        phrases = tuple(phrases)
        self._game_phrases = self._usable(phrases)
        if phrases and not self._game_phrases:
            log.error(
                "Ninguna frase del juego se puede reconocer con el modelo %s: "
                "¿es un modelo en español?",
                self.model,
            )
        self._expecting = "any"
        self._use_grammar(self._game_phrases)

    def set_context(self, context: ListenContext) -> None:
        """Listen for `context.phrases` (or the whole game's phrases when it has none)."""
        self._expecting = context.expecting
        phrases = self._usable(context.phrases) if context.phrases else self._game_phrases
        self._use_grammar(phrases)

    def prepare(self, contexts: Sequence[ListenContext], background: bool = False) -> None:
        """Nothing to compute ahead: a Vosk grammar is built per context in milliseconds."""

    @property
    def grammar(self) -> tuple[str, ...] | None:
        """The phrases Vosk is constrained to now (None = free transcription)."""
        return self._grammar

    def _use_grammar(self, phrases: tuple[str, ...]) -> None:
        grammar: tuple[str, ...] | None = phrases + ((UNK,) if self.has_unk else ())
        if not phrases:
            grammar = None
        if grammar != self._grammar or self._kaldi is None:
            self._grammar = grammar
            self._new_kaldi()

    def _new_kaldi(self) -> None:
        import vosk

        if self._grammar is None:
            kaldi = vosk.KaldiRecognizer(self._model, self.sample_rate)
        else:
            kaldi = vosk.KaldiRecognizer(
                self._model, self.sample_rate, json.dumps(list(self._grammar), ensure_ascii=False)
            )
        kaldi.SetMaxAlternatives(self.max_alternatives)
        kaldi.SetWords(True)
        self._kaldi = kaldi
        self._origin_s = self._fed / self.sample_rate

    # --- audio --------------------------------------------------------------------

    def accept(self, samples: np.ndarray) -> list[Utterance]:
        """Feed float32 mono audio in [-1, 1]; return the utterances that ended in it."""
        audio = np.asarray(samples, dtype=np.float32)
        if audio.ndim == 2 and 1 in audio.shape:
            audio = audio.reshape(-1)
        if audio.ndim != 1:
            raise ValueError(f"expected mono audio (one channel), got shape {audio.shape}")
        pcm = (np.clip(audio, -1.0, 1.0) * 32767.0).astype("<i2")
        step = max(1, int(self.sample_rate * _CHUNK_S))
        out: list[Utterance] = []
        for start in range(0, len(pcm), step):
            chunk = pcm[start : start + step]
            self._fed += len(chunk)
            if self._kaldi.AcceptWaveform(chunk.tobytes()):
                utterance = self._utterance(self._kaldi.Result())
                if utterance:
                    out.append(utterance)
        return out

    def flush(self) -> list[Utterance]:
        """End of stream: finish the utterance in progress and start afresh."""
        utterance = self._utterance(self._kaldi.FinalResult())
        self._new_kaldi()
        return [utterance] if utterance else []

    def reset(self) -> None:
        """Drop buffered audio and partial results; the stream clock keeps running."""
        self._new_kaldi()

    def hearing_speech(self) -> bool:
        """Kaldi has words of an utterance it has not ended yet."""
        return bool(json.loads(self._kaldi.PartialResult()).get("partial"))

    @property
    def stream_time_s(self) -> float:
        return self._fed / self.sample_rate

    # --- results ------------------------------------------------------------------

    def _utterance(self, result_json: str) -> Utterance | None:
        result = json.loads(result_json)
        hypotheses = hypotheses_from_result(result, self._origin_s)
        if not hypotheses:
            return None
        timed = next((h for h in hypotheses if h.words), None)
        decoded_at = self.stream_time_s
        start = timed.words[0].start_s if timed else decoded_at
        end = timed.words[-1].end_s if timed else decoded_at
        return Utterance(
            hypotheses=hypotheses,
            start_s=start,
            end_s=end,
            decoded_at_s=decoded_at,
            extra={
                "backend": "vosk",
                "expecting": self._expecting,
                "vosk": [a.get("confidence") for a in result.get("alternatives", [])],
                "vosk_text": (result.get("alternatives") or [result])[0].get("text", ""),
            },
        )


def _words(items: list[dict], origin_s: float, default_conf: float) -> tuple[WordTiming, ...]:
    return tuple(
        WordTiming(
            word=w["word"],
            start_s=round(origin_s + float(w["start"]), 3),
            end_s=round(origin_s + float(w["end"]), 3),
            confidence=float(w.get("conf", default_conf)),
        )
        for w in items
    )


def hypotheses_from_result(result: dict, origin_s: float = 0.0) -> tuple[Hypothesis, ...]:
    """Vosk's result JSON (parsed) as ranked hypotheses with [0, 1] scores (see top)."""
    if "alternatives" in result:
        alternatives = result["alternatives"]
        if not alternatives:
            return ()
        top = max(float(a.get("confidence", 0.0)) for a in alternatives)
        weights = [math.exp(float(a.get("confidence", 0.0)) - top) for a in alternatives]
        total = sum(weights)
        scored = [
            (a.get("text", ""), w / total, a.get("result", []))
            for a, w in zip(alternatives, weights, strict=True)
        ]
    else:  # max_alternatives == 0: one result with word posteriors
        items = result.get("result", [])
        mean = sum(float(w.get("conf", 1.0)) for w in items) / max(1, len(items))
        scored = [(result.get("text", ""), mean, items)]
    merged: dict[str, tuple[float, list[dict]]] = {}
    for raw, share, items in scored:
        tokens = raw.split()
        known = [t for t in tokens if t != UNK]
        if not known:
            continue  # silence, noise or only table talk: its share stays unclaimed
        text = " ".join(known)
        score, first_items = merged.get(text, (0.0, items))
        merged[text] = (score + share * len(known) / len(tokens), first_items)
    ranked = sorted(merged.items(), key=lambda kv: -kv[1][0])
    return tuple(
        Hypothesis(text, round(score, 4), _words(items, origin_s, score))
        for text, (score, items) in ranked
    )

