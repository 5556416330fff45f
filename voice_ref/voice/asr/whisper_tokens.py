"""Whisper's tokens for Spanish transcription: text <-> token ids and the special tokens.

A thin layer over the model's own `tokenizer.json` (the `tokenizers` library), instead of
faster-whisper's `Tokenizer`, whose import loads the whole `faster_whisper` package
(PyAV, huggingface_hub: +20 MB resident, see `log_mel`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

LANGUAGE = "es"
TASK = "transcribe"


class WhisperTokens:
    """Token ids of the special tokens the recognizer writes, and text encoding."""

    def __init__(self, tokenizer_json: Path | str, language: str = LANGUAGE) -> None:
        import tokenizers

        self._tokenizer = tokenizers.Tokenizer.from_file(str(tokenizer_json))
        self.sot = self._special("startoftranscript")
        self.sot_prev = self._special("startofprev")
        self.eot = self._special("endoftext")
        self.no_timestamps = self._special("notimestamps")
        self.sot_sequence = [self.sot, self._special(language), self._special(TASK)]

    def _special(self, name: str) -> int:
        token = self._tokenizer.token_to_id(f"<|{name}|>")
        if token is None:
            raise ValueError(f"the Whisper tokenizer has no <|{name}|> token")
        return token

    def encode(self, text: str) -> list[int]:
        """Text tokens, no special tokens (a word needs its leading space: " cinco")."""
        return self._tokenizer.encode(text, add_special_tokens=False).ids

    def decode(self, tokens: Sequence[int]) -> str:
        """The text of `tokens`; special tokens (ids from `eot` up) are left out."""
        return self._tokenizer.decode([t for t in tokens if t < self.eot])
