"""`voice-ref models adapt` (voice_ref/adaptation): the encoder adapted to game speech.

The training clips are written as the phrase search scores them and are the same for a
seed; the PyTorch Whisper the trainer builds from `model.bin` encodes as CTranslate2 does;
an adapted copy differs from the model in the encoder's weights only; bounding PyTorch's
kernel caches (for memory) trains the same weights; the command leaves a complete model
folder with its decision thresholds, or nothing, and says why."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import numpy as np
import pytest
from tool_loader import load_tool

from voice_ref.adaptation import clips as adapt_set
from voice_ref.simulation.render import NoiseBank
from voice_ref.voice.asr.whisper_decoder import read_ct2_weights

REPO = Path(__file__).resolve().parents[1]
MODEL = REPO / "models/whisper-base"
DICTIONARY = Path("/usr/share/dict/spanish")


@pytest.mark.parametrize(
    ("text", "digits_of", "stop", "expected"),
    [
        ("cinco quinas", None, False, "Cinco quinas"),
        ("hay catorce dones", 14, True, "Hay 14 dones."),
        ("Ana dudo", None, True, "Ana, dudo."),
        ("Beto", None, False, "Beto"),  # a name alone takes no comma
        ("qué nervios", 3, False, "Qué nervios"),  # no 3 spelled in it: left as it is
    ],
)
def test_texts_are_written_as_the_phrase_search_scores_them(
    text: str, digits_of: int | None, stop: bool, expected: str
) -> None:
    assert adapt_set.written(text, digits_of, stop) == expected


# SHA-256 of what the measured recipe says (m11, model.bin b63fe6a9...): its bids, counts,
# other game phrases, table-talk sentences and sounds, as JSON (the dictionary's words come
# from the system's word list and are left out). A new prompt line once changed the
# sentences, and `.ci/run` built a model nobody had measured; since then they are frozen
# (clips.RECIPE_VOCABULARY, tools/freeze_recipe_vocabulary.py).
RECIPE_VOCABULARY_SHA256 = "fe858bdd021055300b7452ad5ec559df1cf6e0f586e0449e40f2389dac5755b3"


def test_the_recipe_says_what_it_was_measured_with(tmp_path: Path) -> None:
    import dataclasses
    import hashlib

    words = tmp_path / "words"
    words.write_text("casa\nperro\n", encoding="utf-8")
    vocabulary = adapt_set.Vocabulary.build(words)
    said = {f.name: getattr(vocabulary.said, f.name)
            for f in dataclasses.fields(vocabulary.said) if f.name != "game_words"}
    digest = hashlib.sha256(json.dumps(said, ensure_ascii=False).encode()).hexdigest()
    assert digest == RECIPE_VOCABULARY_SHA256, (
        "what `voice-ref models adapt` has its voices say changed (the frozen "
        "clips.RECIPE_VOCABULARY): it and .ci/run would build a model nobody measured. "
        "Measure the new model (BENCHMARKS.md) and update this digest, .ci/run's "
        "MEASURED_MODEL_SHA256 and the README's SHA-256, or put the snapshot back.")
    assert vocabulary.words == ["casa", "perro"]


def test_a_new_snapshot_reads_back_as_it_was_written(tmp_path: Path) -> None:
    """The freezing tool's snapshot of today's grammar round-trips; what the grammar says
    today may differ from the frozen recipe (that is what the snapshot is for)."""
    freeze = load_tool("freeze_recipe_vocabulary")
    current = freeze.current_vocabulary()
    current.write(tmp_path / "v.json.gz")
    assert adapt_set.FrozenVocabulary.read(tmp_path / "v.json.gz") == current
    assert ("cinco quinas", 5) in current.bids and "dudo" in current.game
    assert "uf" in current.sounds and "dudo" in current.game_words
    words = tmp_path / "words"
    words.write_text("Dudo casa quinas perro\n", encoding="utf-8")
    built = adapt_set.Vocabulary.build(words, tmp_path / "v.json.gz")
    assert built.words == ["casa", "perro"]  # game words are no table talk


def test_short_sounds_are_drawn_only_when_asked_for() -> None:
    said = adapt_set.FrozenVocabulary([("cinco quinas", 5)], [("son dos", 2)], ["dudo"],
                                      ["qué nervios"], ["uf"], ["dudo", "quinas"])
    vocab = adapt_set.Vocabulary(said, ["mesa"])
    rng = random.Random(0)
    without = {adapt_set.utterance(vocab, rng)[0] for _ in range(300)}
    assert "sound" not in without and {"bid", "count", "word"} <= without
    drawn = [adapt_set.utterance(vocab, rng, sounds=100.0) for _ in range(50)]
    assert sum(kind == "sound" for kind, _ in drawn) > 40
    assert {text.rstrip(".") for kind, text in drawn if kind == "sound"} == {"Uf"}


def test_the_synthesizer_reads_digits_as_words() -> None:
    assert adapt_set.spoken_text("Ana, 14 dones.") == "Ana catorce dones"


@pytest.mark.skipif(shutil.which("espeak-ng") is None or not DICTIONARY.is_file(),
                    reason="needs espeak-ng and wspanish")
def test_a_seed_gives_the_same_clips_and_never_a_held_out_voice(tmp_path: Path) -> None:
    t = np.arange(16000) / 16000
    noise = NoiseBank([(0.1 * np.sin(2 * np.pi * 600 * t)).astype(np.float32)])
    recipe = adapt_set.ClipRecipe(clips=12, seed=3, mbrola=())
    made = []
    for out, bank in (("a", noise), ("b", noise), ("quiet", None)):
        assert adapt_set.build_clips(tmp_path / out, recipe, bank, DICTIONARY, jobs=1) == 12
        clips = [json.loads(x) for x in (tmp_path / out / "clips.jsonl").read_text().splitlines()]
        made.append((np.load(tmp_path / out / "audio.npy"), clips))
    (audio_a, clips_a), (audio_b, clips_b), (audio_q, clips_q) = made
    assert clips_a == clips_b and np.array_equal(audio_a, audio_b)
    # without recordings the same texts and voices, under synthetic noise only
    assert clips_q == clips_a and not np.array_equal(audio_q, audio_a)
    assert len(clips_a) == 12 and sum(c["length"] for c in clips_a) == len(audio_a)
    assert all(c["text"][:1].isupper() or c["text"][:1].isdigit() for c in clips_a)
    assert not {c["voice"] for c in clips_a} & {"es+m3", "es+f4", "es-419+m1", "es-419+f2"}


# --- the PyTorch Whisper against CTranslate2 (needs torch and the model) -----------------


@pytest.fixture(scope="module")
def tools():  # noqa: ANN201
    pytest.importorskip("torch", reason="the adaptation experiment needs PyTorch")
    if not (MODEL / "model.bin").exists():
        pytest.skip("models/whisper-base missing: run `voice-ref models install whisper-base`")
    from voice_ref.adaptation import training

    return training


@pytest.mark.whisper_model
def test_the_torch_encoder_encodes_as_ctranslate2_does(tools) -> None:  # noqa: ANN001
    import ctranslate2
    import torch

    from voice_ref.voice.asr.log_mel import encoder_input

    rng = np.random.default_rng(0)
    t = np.arange(24000) / 16000
    audio = (0.05 * np.sin(2 * np.pi * 220 * t) + 0.01 * rng.standard_normal(len(t)))
    features = encoder_input(audio.astype(np.float32))
    whisper = ctranslate2.models.Whisper(str(MODEL), device="cpu", compute_type="float32")
    expected = np.array(whisper.encode(ctranslate2.StorageView.from_array(features)))
    encoder, _ = tools.load(MODEL)
    with torch.no_grad():
        got = encoder(torch.from_numpy(features)).numpy()
    assert got.shape == expected.shape
    assert np.abs(got - expected).max() < 5e-3


@pytest.mark.whisper_model
def test_the_loss_is_taken_on_the_text_after_the_start_tokens(tools) -> None:  # noqa: ANN001
    from voice_ref.voice.asr.whisper_tokens import WhisperTokens

    tok = WhisperTokens(MODEL / "tokenizer.json")
    inputs, targets = tools.token_batch(tok, ["Cinco quinas.", "Dudo"])
    start = len(tok.sot_sequence) + 1
    for row, text in enumerate(["Cinco quinas.", "Dudo"]):
        text_tokens = tok.encode(" " + text)
        assert inputs[row, :start].tolist() == [*tok.sot_sequence, tok.no_timestamps]
        scored = targets[row][targets[row] != -100].tolist()
        assert scored == [*text_tokens, tok.eot]
        # each target is the token fed right after the position that predicts it
        assert inputs[row, start : start + len(text_tokens)].tolist() == text_tokens


@pytest.mark.whisper_model
def test_an_adapted_copy_changes_the_encoder_only(tools, tmp_path: Path) -> None:  # noqa: ANN001
    encoder, _ = tools.load(MODEL)
    weights = encoder.ct2_weights()
    weights["encoder/layer_0/ffn/linear_0/bias"] = weights["encoder/layer_0/ffn/linear_0/bias"] + 1
    tools.write_encoder(MODEL, tmp_path / "adapted", weights)
    before = read_ct2_weights(MODEL / "model.bin")
    after = read_ct2_weights(tmp_path / "adapted/model.bin")
    assert (tmp_path / "adapted/model.bin").stat().st_size == (MODEL / "model.bin").stat().st_size
    tokenizer = (tmp_path / "adapted/tokenizer.json").read_bytes()
    assert tokenizer == (MODEL / "tokenizer.json").read_bytes()
    changed = {k for k in before if not np.array_equal(before[k], after[k])}
    assert changed == {"encoder/layer_0/ffn/linear_0/bias"}
    assert np.allclose(after["encoder/layer_0/ffn/linear_0/bias"].astype(np.float32),
                       before["encoder/layer_0/ffn/linear_0/bias"].astype(np.float32) + 1,
                       atol=1e-2)
    with pytest.raises(ValueError, match="not an encoder variable"):
        tools.write_encoder(MODEL, tmp_path / "bad", {"decoder/layer_norm/beta": np.zeros(512)})


def test_the_kernel_caches_are_bounded_unless_the_user_set_them(
        tools, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    import os

    monkeypatch.delenv("ONEDNN_PRIMITIVE_CACHE_CAPACITY", raising=False)
    monkeypatch.setenv("LRU_CACHE_CAPACITY", "8")
    tools.bound_kernel_caches()
    assert os.environ["ONEDNN_PRIMITIVE_CACHE_CAPACITY"] == str(tools.KERNEL_CACHE_CAPACITY)
    assert os.environ["LRU_CACHE_CAPACITY"] == "8"


_TRAIN_A_LITTLE = """
import sys
from pathlib import Path
from voice_ref.adaptation.training import TrainSettings, train
train(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]),
      TrainSettings(batch=2, threads=1), progress=lambda line: None)
"""


@pytest.mark.slow
@pytest.mark.whisper_model
def test_bounded_kernel_caches_train_the_same_weights(tools, tmp_path: Path) -> None:  # noqa: ANN001
    """Each cache reads its size once per process, hence one process per size; a cache of
    one kernel rebuilds every kernel it meets, the most a bound could change."""
    import os
    import subprocess
    import sys

    rng = np.random.default_rng(3)
    lengths = [8000, 12000, 9600, 16000, 7200, 11200]  # six shapes, three batches
    texts = ["Cinco quinas.", "Dudo", "Tres ases.", "Calzo", "Paso", "Dos tontos."]
    audio = (rng.standard_normal(sum(lengths)) * 3000).astype(np.int16)
    data = tmp_path / "clips"
    data.mkdir()
    np.save(data / "audio.npy", audio)
    starts = np.cumsum([0, *lengths[:-1]])
    (data / "clips.jsonl").write_text("".join(
        json.dumps({"start": int(s), "length": n, "text": t}) + "\n"
        for s, n, t in zip(starts, lengths, texts, strict=True)), "utf-8")
    weights = {}
    for capacity in ("1", "1024"):
        env = {**os.environ, "ONEDNN_PRIMITIVE_CACHE_CAPACITY": capacity,
               "LRU_CACHE_CAPACITY": capacity}
        out = tmp_path / f"model_{capacity}"
        subprocess.run([sys.executable, "-c", _TRAIN_A_LITTLE, str(data), str(MODEL), str(out)],
                       env=env, check=True, timeout=600)
        weights[capacity] = read_ct2_weights(out / "model.bin", "encoder/")
    moved = read_ct2_weights(MODEL / "model.bin", "encoder/")
    assert any(not np.array_equal(moved[k], weights["1"][k]) for k in moved)  # it trained
    assert all(np.array_equal(weights["1"][k], weights["1024"][k]) for k in moved)


@pytest.mark.slow
@pytest.mark.whisper_model
def test_the_command_leaves_a_model_with_its_thresholds(tools, tmp_path: Path, capsys) -> None:  # noqa: ANN001
    import argparse

    from voice_ref.adaptation import command
    from voice_ref.config import config_from_dict
    from voice_ref.voice.asr.select import with_model_decision
    from voice_ref.voice.decision import thresholds_from

    pytest.importorskip("pyroomacoustics")
    if shutil.which("espeak-ng") is None or not DICTIONARY.is_file():
        pytest.skip("needs espeak-ng and wspanish")
    out = tmp_path / "models/table"
    args = argparse.Namespace(config=None, base=str(MODEL), out=str(out), noise=None, clips=100,
                              seed=7, no_mbrola=True, replace=False)
    assert command.main_adapt(args) == 0
    assert "whisper_model" in capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["table"]  # no leftovers
    assert (out / "model.bin").stat().st_size == (MODEL / "model.bin").stat().st_size
    before = read_ct2_weights(MODEL / "model.bin")
    after = read_ct2_weights(out / "model.bin")
    changed = {k for k in before if not np.array_equal(before[k], after[k])}
    assert changed and all(k.startswith("encoder/") for k in changed)
    assert json.loads((out / "adaptation.json").read_text())["clips"] == 100
    table = config_from_dict({"asr": {"backend": "whisper", "whisper_model": str(out)}})
    limits = thresholds_from(with_model_decision(table))
    assert {k: getattr(limits, k) for k in command.RECIPE_THRESHOLDS} == command.RECIPE_THRESHOLDS


@pytest.mark.parametrize(("found", "said"), [
    (("es1", "es2", "es4"), None),                         # the measured recipe
    ((), "no MBROLA Spanish voices"),
    (("es1", "es4"), "MBROLA voices missing: es2; adapting with es1, es4 only"),
])
def test_the_command_says_when_mbrola_voices_are_missing(
        found: tuple[str, ...], said: str | None) -> None:
    from voice_ref.adaptation.command import mbrola_note

    note = mbrola_note(found)
    assert (note is None) if said is None else (note is not None and said in note)
