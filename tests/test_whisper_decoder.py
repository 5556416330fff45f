"""The numpy Whisper decoder: it reads model.bin plainly, agrees with CTranslate2, and its
KV cache gives what a full recomputation gives."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

from voice_ref.voice.asr.log_mel import encoder_input
from voice_ref.voice.asr.whisper_decoder import (
    LN_EPS,
    WeightsError,
    WhisperDecoder,
    _gelu,
    _layer_norm,
    read_ct2_weights,
)

REPO = Path(__file__).parents[1]
MODEL = REPO / "models/whisper-base"
DEV = REPO.parent / "shared/audio/dev"


# --- the weights file: errors in plain words (no model needed) --------------------------


def _string(text: str) -> bytes:
    data = text.encode() + b"\0"
    return struct.pack("<H", len(data)) + data


def _model_bin(version: int = 6, spec: str = "WhisperSpec", cut: int = 0) -> bytes:
    weight = np.arange(6, dtype=np.float16).reshape(2, 3)
    data = (
        struct.pack("<I", version)
        + _string(spec)
        + struct.pack("<II", 3, 1)
        + _string("decoder/embeddings/weight")
        + struct.pack("<BII", 2, 2, 3)
        + struct.pack("<BI", 4, weight.nbytes)
        + weight.tobytes()
        + struct.pack("<I", 1)
        + _string("decoder/projection/weight")
        + _string("decoder/embeddings/weight")
    )
    return data[: len(data) - cut] if cut else data


def test_reads_variables_and_aliases(tmp_path: Path) -> None:
    path = tmp_path / "model.bin"
    path.write_bytes(_model_bin())
    w = read_ct2_weights(path)
    assert w["decoder/embeddings/weight"].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert w["decoder/projection/weight"] is w["decoder/embeddings/weight"]


def test_writable_views_write_through_to_the_file(tmp_path: Path) -> None:
    path = tmp_path / "model.bin"
    path.write_bytes(_model_bin())
    with pytest.raises(ValueError, match="read-only"):
        read_ct2_weights(path)["decoder/embeddings/weight"][0, 0] = 9
    w = read_ct2_weights(path, writable=True)
    w["decoder/embeddings/weight"][1] = [7, 8, 9]
    del w
    assert read_ct2_weights(path)["decoder/embeddings/weight"].tolist() == [[0, 1, 2], [7, 8, 9]]
    assert len(path.read_bytes()) == len(_model_bin())


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "Cannot open the Whisper weights"),
        (_model_bin(cut=9), "not a complete CTranslate2 model file"),
        (_model_bin(version=2), "binary version 2"),
        (_model_bin(spec="TransformerSpec"), "not Whisper"),
        (b"\x06\x00", "not a complete CTranslate2 model file"),
    ],
)
def test_a_bad_weights_file_is_explained(tmp_path: Path, content: bytes | None, says: str) -> None:
    path = tmp_path / "model.bin"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(WeightsError, match=says) as err:
        read_ct2_weights(path)
    assert str(path) in str(err.value)


# --- against CTranslate2, on a real clip (needs the model) --------------------------------


@pytest.fixture(scope="module")
def whisper():  # noqa: ANN201
    if not (MODEL / "model.bin").exists():
        pytest.skip("models/whisper-base missing: run `voice-ref models install whisper-base`")
    if not (DEV / "labels.jsonl").exists():
        pytest.skip(f"dev audio set not found at {DEV}")
    import ctranslate2

    from voice_ref.voice.asr.whisper_backend import WhisperRecognizer
    from voice_ref.voice.audio_in import read_wav

    rec = WhisperRecognizer(MODEL, threads=2)
    labels = [json.loads(line) for line in (DEV / "labels.jsonl").read_text().splitlines()]
    label = next(lb for lb in labels if lb["category"] == "bid" and lb["noise"] is None)
    audio = read_wav(DEV / label["file"])
    f32 = ctranslate2.models.Whisper(str(MODEL), device="cpu", compute_type="float32")
    return rec, WhisperDecoder(MODEL, exact_normalizer=True), f32, audio


def _ct2_rows(model, encoded, tokens: list[int]) -> np.ndarray:  # noqa: ANN001
    """CTranslate2's log-probability rows along forced `tokens`: from the one after the
    start sequence (Whisper's start tokens are the prompt, their rows are not returned)."""
    res = model.generate(encoded, [tokens], beam_size=1, max_length=len(tokens) + 4,
                         return_logits_vocab=True, suppress_blank=False, suppress_tokens=[])[0]
    logits = np.asarray(res.logits[0], dtype=np.float32).reshape(-1, 51865)
    logits = logits - logits.max(axis=-1, keepdims=True)
    return logits - np.log(np.exp(logits).sum(axis=-1, keepdims=True))


PHRASES = (" Cuatro quinas", " 14 sextos", " Dudo", " Camila, tres trenes")


def test_forced_sequences_agree_with_ctranslate2(whisper) -> None:  # noqa: ANN001
    """Same weights, same arithmetic: against CTranslate2 in float32 the log-probabilities
    agree to ~2e-5 (measured); 1e-3 leaves room for BLAS differences. The recognizer's
    CTranslate2 runs int8: per phrase its totals differ by up to ~0.6 nats (measured
    on this clip), so 1.5 nats says "same model, other quantization"."""
    rec, dec, f32, audio = whisper
    start = rec._start()
    enc32 = f32.encode(_features(rec, audio))
    enc8 = rec._encode(audio)
    for text in PHRASES:
        seq = rec._tok.encode(text)
        forced = start + seq
        _, ours32 = dec.run(dec.cross(np.asarray(enc32)), dec.empty_state(), forced)
        ours32 = ours32[len(start) - 1 :]
        theirs32 = _ct2_rows(f32, enc32, forced)
        k = min(len(theirs32), len(seq))
        assert k >= len(seq) - 1
        # Rows compared entry by entry; entries below -30 (p < 1e-13) are noise for both.
        assert np.allclose(np.maximum(ours32[:k], -30), np.maximum(theirs32[:k], -30), atol=1e-3)
        _, ours8 = dec.run(dec.cross(np.asarray(enc8)), dec.empty_state(), forced)
        ours8 = ours8[len(start) - 1 :]
        theirs8 = _ct2_rows(rec._whisper, enc8, forced)
        k = min(len(theirs8), len(seq))
        pos, forced_now = np.arange(k), seq[:k]
        total = ours8[pos, forced_now].sum() - theirs8[pos, forced_now].sum()
        assert abs(total) < 1.5, (text, total)


def _features(rec, audio: np.ndarray):  # noqa: ANN001, ANN202
    import ctranslate2

    return ctranslate2.StorageView.from_array(encoder_input(audio, rec._n_mels))


def test_kv_cached_steps_equal_a_full_recomputation(whisper) -> None:  # noqa: ANN001
    rec, dec, _, audio = whisper
    cross = dec.cross(np.asarray(rec._encode(audio)))
    tokens = rec._start() + rec._tok.encode(" Ana, cinco quinas")
    _, full = dec.run(cross, dec.empty_state(), tokens)
    state, rows = dec.empty_state(), []
    for t in tokens:  # one token at a time, through the cache
        (state,), row = dec.step(cross, [state], [[t]])
        rows.append(row[0, 0])
    assert np.allclose(np.stack(rows), full, atol=1e-4)
    # A batch of prefixes of different lengths gives what each alone gives.
    short, _ = dec.run(cross, dec.empty_state(), tokens[:4])
    long, _ = dec.run(cross, dec.empty_state(), tokens[:7])
    _, batched = dec.step(cross, [short, long], [tokens[4:6], tokens[7:9]])
    _, alone_short = dec.run(cross, short, tokens[4:6])
    _, alone_long = dec.run(cross, long, tokens[7:9])
    assert np.allclose(batched[0], alone_short, atol=1e-4)
    assert np.allclose(batched[1], alone_long, atol=1e-4)
    assert np.allclose(batched[1], full[7:9], atol=1e-4)


def test_prefixes_fed_different_numbers_of_tokens_share_one_pass(whisper) -> None:  # noqa: ANN001
    """The probe feeds a level's prefixes together whatever their new token counts (a
    one-token word beside a three-token one): each gets what it gets alone."""
    rec, dec, _, audio = whisper
    cross = dec.cross(np.asarray(rec._encode(audio)))
    tokens = rec._start() + rec._tok.encode(" Ana, cinco quinas")
    short, _ = dec.run(cross, dec.empty_state(), tokens[:4])
    long, _ = dec.run(cross, dec.empty_state(), tokens[:6])
    fed = [tokens[4:5], tokens[6:9], tokens[4:6]]
    states, hidden = dec.step_hidden(cross, [short, long, short], fed)
    assert hidden.shape[:2] == (3, 3)
    for i, (parent, new) in enumerate(zip([short, long, short], fed, strict=True)):
        alone_state, alone = dec.run(cross, parent, new)
        n = len(new)
        assert states[i].length == parent.length + n
        assert np.allclose(states[i].kv, alone_state.kv, atol=1e-4)
        rows = hidden[i, :n] @ dec.embeddings.T
        rows = rows - dec.log_normalizer(hidden[i, :n])[:, None]
        assert np.allclose(rows, alone, atol=1e-3)
        assert not hidden[i, n:].any()  # padding stays zero


def test_the_probe_scores_a_sequence_the_same_however_it_gets_there(whisper) -> None:  # noqa: ANN001
    """From its cached parent, from the start, or together with siblings: same numbers."""
    from voice_ref.voice.asr.prefix_probe import PrefixProbe

    rec, dec, _, audio = whisper
    enc = np.asarray(rec._encode(audio))
    columns = {rec._tok.eot: 0}
    words = [rec._tok.encode(w) for w in (" Cuatro", " quinas", " dones")]
    step_by_step = PrefixProbe(dec, enc, rec._start(), columns)
    step_by_step([words[0]])
    (lp1, row1), (lp2, _) = step_by_step([words[0] + words[1], words[0] + words[2]])
    direct = PrefixProbe(dec, enc, rec._start(), columns)
    ((lp_direct, row_direct),) = direct([words[0] + words[1]])
    assert lp1 == pytest.approx(lp_direct, abs=1e-3)
    assert row1[rec._tok.eot] == pytest.approx(row_direct[rec._tok.eot], abs=1e-3)
    _, rows = dec.run(dec.cross(enc), dec.empty_state(), rec._start() + words[0] + words[2])
    n = len(rec._start())
    expected = sum(rows[n - 1 + i, t] for i, t in enumerate(words[0] + words[2]))
    assert lp2 == pytest.approx(float(expected), abs=1e-3)


def test_a_probe_that_dropped_old_states_restarts_from_a_kept_ancestor(whisper) -> None:  # noqa: ANN001
    """The long-lived prior keeps only recent decoder states; extending an older prefix
    recomputes it from the start and gives the same number."""
    from voice_ref.voice.asr.prefix_probe import KeepStates, PrefixProbe

    rec, dec, _, audio = whisper
    enc = np.asarray(rec._encode(audio))
    columns = {rec._tok.eot: 0}
    words = [rec._tok.encode(w) for w in (" Cinco", " quinas", " Dudo", " Paso", " Sí")]
    recent = PrefixProbe(dec, enc, rec._start(), columns, keep_states=KeepStates.RECENT)
    recent([words[0]])
    for w in words[2:]:  # three more calls: the state of " Cinco" is dropped
        recent([w])
    assert recent._entries[tuple(words[0])].state is None
    ((lp, row),) = recent([words[0] + words[1]])
    ((lp_all, row_all),) = PrefixProbe(dec, enc, rec._start(), columns)([words[0] + words[1]])
    assert lp == pytest.approx(lp_all, abs=1e-3)
    assert row[rec._tok.eot] == pytest.approx(row_all[rec._tok.eot], abs=1e-3)


def test_the_int8_normalizer_is_close_to_float32_on_real_hidden_states(whisper) -> None:  # noqa: ANN001
    """What the recognizer runs (int8) against float32, on the decoder's own states for
    the game phrases: a few hundredths of a nat on average (BENCHMARKS.md, session 7)."""
    rec, dec, _, audio = whisper
    cross = dec.cross(np.asarray(rec._encode(audio)))
    rows = []
    for text in PHRASES:
        tokens = rec._start() + rec._tok.encode(text)
        _, hidden = dec.step_hidden(cross, [dec.empty_state()], [tokens])
        rows.append(hidden[0])
    hidden = np.concatenate(rows)
    error = np.abs(rec._decoder.log_normalizer(hidden) - dec.exact_log_normalizer(hidden))
    assert error.mean() < 0.06
    assert error.max() < 0.4


def test_a_normalizer_that_fails_its_check_gives_way_to_float32(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """On a CPU whose int8 kernel is wrong the decoder still scores right, in float32,
    and says why it is slower."""
    if not (MODEL / "model.bin").exists():
        pytest.skip("models/whisper-base missing: run `voice-ref models install whisper-base`")
    from voice_ref.voice.asr import projection

    monkeypatch.setattr(projection.VocabularyNormalizer, "max_error", lambda self: 3.0)
    with caplog.at_level("WARNING"):
        decoder = WhisperDecoder(MODEL)
    assert decoder.normalizer == "float32"
    assert "off by 3.00 nats" in caplog.text
    monkeypatch.setattr(projection.VocabularyNormalizer, "max_error", lambda self: 0.01)
    assert WhisperDecoder(MODEL).normalizer == "int8-w7"


def test_in_place_gelu_and_layer_norm_give_the_bits_of_the_plain_formulas() -> None:
    """The step's GELU (erf by Abramowitz & Stegun) and layer norm run in place for speed;
    their docstrings promise the very values of the textbook expressions."""
    rng = np.random.default_rng(3)
    x = rng.normal(0, 2, (40, 256)).astype(np.float32)
    x[0, :4] = (0.0, -0.0, 1e-30, -12.0)
    scaled = x * np.float32(1 / np.sqrt(2))
    a = np.abs(scaled)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    plain_gelu = 0.5 * x * (1.0 + np.sign(scaled) * (1.0 - poly * np.exp(-a * a)))
    assert _gelu(x).dtype == np.float32
    assert np.array_equal(_gelu(x), plain_gelu)
    gamma = rng.normal(1, 0.1, 256).astype(np.float32)
    beta = rng.normal(0, 0.1, 256).astype(np.float32)
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    plain_norm = (x - mean) / np.sqrt(var + LN_EPS) * gamma + beta
    assert np.array_equal(_layer_norm(x, (gamma, beta)), plain_norm)
