"""The recognizer's own Whisper inputs (log-Mel features, tokens, the Silero VAD file)
against faster-whisper's, and proof that loading the recognizer no longer imports the
`faster_whisper` package (PyAV and huggingface_hub came with it: +20 MB resident)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from voice_ref.voice.asr.log_mel import (
    HOP,
    SILENCE_FRAMES,
    encoder_input,
    log_mel,
    mel_filters,
)

REPO = Path(__file__).resolve().parents[1]
MODEL = REPO / "models/whisper-base"


def _speechlike(seconds: float, seed: int) -> np.ndarray:
    """A voiced sound with a moving pitch, noise and a silent gap: every Mel band used."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * 16000)) / 16000
    pitch = 120 + 60 * np.sin(2 * np.pi * 1.5 * t)
    audio = 0.2 * np.sign(np.sin(2 * np.pi * np.cumsum(pitch) / 16000))
    audio += 0.02 * rng.standard_normal(len(t))
    audio[len(t) // 3 : len(t) // 2] = 0.0
    return audio.astype(np.float32)


@pytest.mark.parametrize(("seconds", "seed"), [(0.35, 1), (1.234, 2), (2.5, 3)])
def test_features_equal_faster_whispers(seconds: float, seed: int) -> None:
    feature_extractor = pytest.importorskip("faster_whisper.feature_extractor")
    audio = _speechlike(seconds, seed)
    theirs = feature_extractor.FeatureExtractor(feature_size=80)(audio, padding=0)
    ours = log_mel(audio)
    assert ours.shape == theirs.shape
    assert np.array_equal(ours, theirs)


def test_mel_filters_are_triangles_of_unit_area_up_to_8_khz() -> None:
    filters = mel_filters()
    assert filters.shape == (80, 201)
    assert (filters >= 0).all()
    peaks = filters.argmax(axis=1)
    assert (np.diff(peaks) >= 0).all()  # centres rise with the band
    hz_per_bin = 16000 / 400
    # Slaney normalisation: each triangle's area (in Hz) is ~1, whatever its width.
    areas = filters.sum(axis=1) * hz_per_bin
    assert np.allclose(areas[10:], 1.0, atol=0.15)


@pytest.mark.parametrize("samples", [1, 159, 160, 8000, 16001])
def test_encoder_input_is_the_audio_then_silence_in_an_even_number_of_frames(
    samples: int,
) -> None:
    audio = _speechlike(2.0, 4)[:samples]
    features = encoder_input(audio)
    frames = features.shape[2]
    assert features.shape[:2] == (1, 80)
    assert frames % 2 == 0
    assert frames - SILENCE_FRAMES in (samples // HOP, samples // HOP + 1)
    assert features.flags.c_contiguous and features.dtype == np.float32


def test_tokens_equal_faster_whispers() -> None:
    if not MODEL.is_dir():
        pytest.skip("models/whisper-base missing: run `voice-ref models install whisper-base`")
    tokenizer = pytest.importorskip("faster_whisper.tokenizer")
    import tokenizers

    from voice_ref.voice.asr.whisper_tokens import WhisperTokens

    path = MODEL / "tokenizer.json"
    theirs = tokenizer.Tokenizer(
        tokenizers.Tokenizer.from_file(str(path)), True, task="transcribe", language="es"
    )
    ours = WhisperTokens(path)
    for name in ("sot_sequence", "sot_prev", "eot", "no_timestamps"):
        assert getattr(ours, name) == getattr(theirs, name), name
    for text in (" cinco quinas", "Beto, veintitrés dones.", "¿Dijiste dudo?", " 14 sextos"):
        ids = theirs.encode(text)
        assert ours.encode(text) == ids
        assert ours.decode([*ids, theirs.eot, *theirs.sot_sequence]) == theirs.decode(ids)


def test_silero_vad_is_faster_whispers_file() -> None:
    pytest.importorskip("faster_whisper")
    from faster_whisper.utils import get_assets_path

    from voice_ref.voice.asr.vad import SILERO_ASSET, silero_path

    assert silero_path() == Path(get_assets_path()) / SILERO_ASSET


def test_loading_the_recognizer_imports_no_faster_whisper() -> None:
    if not MODEL.is_dir():
        pytest.skip("models/whisper-base missing: run `voice-ref models install whisper-base`")
    code = (
        "import sys\n"
        "from voice_ref.voice.asr.whisper_backend import WhisperRecognizer\n"
        f"WhisperRecognizer({str(MODEL)!r}, threads=1)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('faster_whisper', 'av', 'huggingface_hub')))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=REPO, timeout=300, check=True)
    assert run.stdout.strip().splitlines()[-1] == "[]"
