"""The phrases a recognizer listens for before the referee gives it a context (and what
`voice-ref listen` gives it) are this table's: with the cachito preset, limpio bids too."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from voice_ref.config import config_from_dict
from voice_ref.voice.asr import select
from voice_ref.voice.asr.base import ListenContext
from voice_ref.voice.audio_in import write_wav


class FakeWhisper:
    """Stands in for the Whisper recognizer: remembers the contexts it was given."""

    sample_rate = 16000
    name = "fake"
    model = "fake"

    def __init__(self, path: Path, **kwargs) -> None:  # noqa: ANN003
        self.path, self.kwargs = path, kwargs
        self.contexts: list[ListenContext] = []

    def set_context(self, context: ListenContext) -> None:
        self.contexts.append(context)

    def prepare(self, contexts: Sequence[ListenContext], background: bool = False) -> None:
        self.prepared = list(contexts)
        self.in_background = background

    def accept(self, samples: np.ndarray) -> list:
        return []

    def flush(self) -> list:
        return []


@pytest.fixture
def fake_whisper(monkeypatch):  # noqa: ANN001, ANN201
    import voice_ref.voice.asr.whisper_backend as whisper_backend

    monkeypatch.setattr(whisper_backend, "WhisperRecognizer", FakeWhisper)
    monkeypatch.setattr(select, "_have_faster_whisper", lambda: True)
    monkeypatch.setattr(select, "ensure_whisper_model", lambda path, tell=None: True)


def limpio(context: ListenContext) -> set[str]:
    return {p.text for p in context.phrases if getattr(p.intent, "clean", False)}


@pytest.mark.parametrize(("preset", "has_limpio"), [("cachito", True), ("chile", False)])
def test_whisper_starts_with_the_presets_phrases(tmp_path, fake_whisper, preset, has_limpio):
    config = config_from_dict({"rules": {"preset": preset}}, base_dir=tmp_path)
    recognizer = select.make_recognizer(config, backend="whisper", players=["Ana", "Beto"])
    context = recognizer.contexts[-1]
    assert context.expecting == "any"
    texts = {p.text for p in context.phrases}
    assert {"cinco quinas", "dudo", "ana"} <= {t.casefold() for t in texts}
    assert ("cinco quinas limpias" in limpio(context)) is has_limpio
    assert bool(limpio(context)) is has_limpio


def test_listen_listens_for_limpio_bids_with_the_cachito_preset(tmp_path, monkeypatch, capsys):
    from voice_ref.cli import main as cli_main

    made: list[FakeWhisper] = []

    def fake_make(config, backend=None, model=None, players=None, tell=None):  # noqa: ANN001, ANN202
        made.append(FakeWhisper(Path("m"), players=players))
        return made[-1]

    monkeypatch.setattr(select, "make_recognizer", fake_make)
    (tmp_path / "config.toml").write_text('[rules]\npreset = "cachito"\n', encoding="utf-8")
    write_wav(tmp_path / "quiet.wav", np.zeros(16000, np.float32), 16000)
    rc = cli_main(["--config", str(tmp_path / "config.toml"), "listen", str(tmp_path / "quiet.wav"),
                   "--players", "Ana,Beto", "--json"])
    assert rc == 0, capsys.readouterr().err
    assert "cinco quinas limpias" in limpio(made[0].contexts[-1])
