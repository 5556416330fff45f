"""The Whisper recognizer end to end on a few dev clips: WAV -> stream -> utterance -> intent."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from voice_ref.language.inventory import PhraseInventory
from voice_ref.language.parser import Parser
from voice_ref.voice.asr.base import ListenContext
from voice_ref.voice.asr.level import FLOOR_DBFS, raised
from voice_ref.voice.audio_in import read_wav
from voice_ref.voice.bench import expecting_for
from voice_ref.voice.decision import decide
from voice_ref.voice.listen import stream

REPO = Path(__file__).parents[1]
DEV = REPO.parent / "shared/audio/dev"
MODEL = REPO / "models/whisper-base"

pytestmark = [pytest.mark.whisper_model, pytest.mark.slow]


def _labels() -> list[dict]:
    if not (DEV / "labels.jsonl").exists():
        pytest.skip(f"dev audio set not found at {DEV}")
    return [json.loads(line) for line in (DEV / "labels.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def recognizer():  # noqa: ANN201
    if not (MODEL / "model.bin").exists():
        pytest.skip("models/whisper-base missing: run `voice-ref models install whisper-base`")
    from voice_ref.voice.asr.whisper_backend import WhisperRecognizer

    players = sorted({lb["intent"]["player"] for lb in _labels() if lb["intent"].get("player")})
    return WhisperRecognizer(MODEL, threads=2, players=players)


def _clean_clip(labels: list[dict], category: str) -> dict:
    return next(lb for lb in labels if lb["category"] == category and lb["noise"] is None)


def _run(recognizer, label: dict) -> list:  # noqa: ANN001
    expecting = expecting_for(label["category"])
    inventory = PhraseInventory(recognizer.players)
    phrases = tuple(inventory.phrases(expecting, canonical=False))
    recognizer.set_context(ListenContext(expecting, phrases))
    recognizer.reset()
    parser = Parser(recognizer.players)
    audio = read_wav(DEV / label["file"])
    results, _ = stream(recognizer, audio, lambda u: decide(u, parser))
    return results


def test_clean_clips_of_every_kind_give_their_intent(recognizer) -> None:  # noqa: ANN001
    labels = _labels()
    picked = [_clean_clip(labels, c) for c in
              ("bid", "command", "answer_number", "answer_yesno", "answer_choice", "name")]
    right = []
    for label in picked:
        results = _run(recognizer, label)
        got = [r.result.intent.to_json() for r in results
               if r.result.action == "accept" and r.result.intent is not None]
        right.append(label["intent"] in got)
    # Clean-speech accuracy on the whole dev set is about 80% (BENCHMARKS.md; these six
    # give 4 of 6); a broken pipeline gets none of these right, a working one at least half.
    assert sum(right) >= len(right) // 2, list(zip([lb["text"] for lb in picked], right,
                                                   strict=True))


def test_table_talk_gives_no_game_action(recognizer) -> None:  # noqa: ANN001
    labels = _labels()
    label = next(lb for lb in labels if lb["category"] == "noise_only")
    for r in _run(recognizer, label):
        assert not r.result.is_game_action, r.utterance


def test_vad_finds_the_speech_inside_silence(recognizer) -> None:  # noqa: ANN001
    from voice_ref.voice.asr.whisper_backend import WhisperRecognizer

    fresh = WhisperRecognizer(MODEL, players=recognizer.players)  # stream time starts at 0
    label = _clean_clip(_labels(), "bid")
    audio = read_wav(DEV / label["file"])
    silence = np.zeros(16000, np.float32)
    results = _run_audio(fresh, np.concatenate([silence, audio, silence]))
    assert len(results) == 1
    utt = results[0].utterance
    assert abs(utt.start_s - (1.0 + label["speech_start"])) < 0.2
    assert abs(utt.end_s - (1.0 + label["speech_end"])) < 0.2
    assert results[0].done_s >= utt.end_s  # decided after the speech ended, never before
    # Recognition started at the tentative end (`TAIL_S`: one 32 ms chunk of silence, in
    # the 0.1 s block that holds it), not at the final end 0.2 s after the speech.
    assert utt.extra["early"] is True
    assert utt.extra["started_at_s"] - utt.end_s < 0.2


def _run_audio(recognizer, audio: np.ndarray) -> list:  # noqa: ANN001
    recognizer.reset()
    parser = Parser(recognizer.players)
    return stream(recognizer, audio, lambda u: decide(u, parser))[0]


def test_text_prior_is_the_decoder_on_silence_and_is_cached(recognizer) -> None:  # noqa: ANN001
    from voice_ref.voice.asr.prefix_probe import PrefixProbe

    tokens = recognizer._tok.encode(" Cinco quinas")
    fresh = PrefixProbe(recognizer._decoder, recognizer._silence, recognizer._start(),
                        recognizer._columns)
    ((lp, row),) = fresh([tokens])
    eot = recognizer._tok.eot
    ((cached_lp, entries),) = recognizer._prior([tokens], [[eot]])
    assert cached_lp == pytest.approx(lp, abs=1e-4)
    assert entries[eot] == pytest.approx(row[eot], abs=1e-4)
    rows = recognizer._prior_probe.rows
    again = recognizer._prior([tokens], [[eot]])
    assert recognizer._prior_probe.rows == rows  # no decoder row the second time
    assert again[0][0] == cached_lp
    assert again[0][1][eot] == pytest.approx(row[eot], abs=1e-4)


def test_a_small_context_scores_every_phrase(recognizer) -> None:  # noqa: ANN001
    """A yes/no question's phrases fit the exhaustive budget: none is lost to a beam."""
    inventory = PhraseInventory(recognizer.players)
    phrases = tuple(inventory.phrases("yes_no", canonical=False))
    recognizer.set_context(ListenContext("yes_no", phrases))
    assert recognizer._exhaustive
    label = _clean_clip(_labels(), "answer_yesno")
    utt = recognizer.recognize(read_wav(DEV / label["file"]))
    texts = {c.text for c in recognizer._candidates}
    assert utt.extra["phrases_scored"] >= len(texts)  # every phrase (+ the free transcript)


def test_numpy_blas_runs_the_decoder_on_one_thread(recognizer) -> None:  # noqa: ANN001, ARG001
    """Loading the recognizer limits numpy's BLAS (`BLAS_THREADS`): a second thread spun
    on the core CTranslate2 writes the free transcript on."""
    from threadpoolctl import threadpool_info

    from voice_ref.voice.asr.whisper_backend import BLAS_THREADS

    blas = [pool for pool in threadpool_info() if pool["user_api"] == "blas"]
    assert blas
    assert all(pool["num_threads"] == BLAS_THREADS == 1 for pool in blas)


def test_a_context_set_again_is_not_compiled_again(recognizer) -> None:  # noqa: ANN001
    """The bench and a session set the same contexts over and over: the trie of a phrase
    set seen lately is reused (the big "turn" context took seconds to compile)."""
    inventory = PhraseInventory(recognizer.players)
    yes_no = ListenContext("yes_no", tuple(inventory.phrases("yes_no", canonical=False)))
    count = ListenContext("count", tuple(inventory.phrases("count", canonical=False)))
    recognizer.set_context(yes_no)
    trie = recognizer._trie
    recognizer.set_context(count)
    assert recognizer._trie is not trie
    recognizer.set_context(ListenContext("yes_no", tuple(list(yes_no.phrases))))  # equal, a copy
    assert recognizer._trie is trie
    assert recognizer._exhaustive


def test_the_prior_is_what_the_correction_removes(recognizer) -> None:  # noqa: ANN001
    """The decoder expects a short common reply more than a rare bid without any
    speech: that advantage is what PMI subtracts (lambda x the prior)."""
    common, rare = (recognizer._tok.encode(t) for t in (" Sí.", " Diecisiete sextos"))
    (p_common, _), (p_rare, _) = recognizer._prior([common, rare], [[], []])
    assert p_common > p_rare + 3.0
    assert 0 < recognizer.prior_weight <= 1


def test_after_prepare_an_answer_computes_no_text_prior(recognizer) -> None:  # noqa: ANN001
    """`prepare` computes the prior of every phrase of a context before the game: an
    utterance then only computes its own free transcript's (and an end check on a punct
    other than ".", which is not prepared), not the ~100 rows a big context's phrases
    needed."""
    from voice_ref.voice.asr.whisper_backend import END_CHECKS

    inventory = PhraseInventory(recognizer.players)
    count = ListenContext("count", tuple(inventory.phrases("count", canonical=False)))
    recognizer.prepare([count])
    recognizer.set_context(count)
    assert not recognizer._exhaustive  # a beam search: which prefixes it scores varies
    label = _clean_clip(_labels(), "answer_number")
    before = recognizer._text_prior.computed
    recognizer.recognize(read_wav(DEV / label["file"]))
    assert recognizer._text_prior.computed - before <= 1 + END_CHECKS


# Between the tentative and the final end: nothing, the same context set again (a copy),
# another context. (recognitions, whether the final used the tentative result)
BETWEEN = {"nothing": (None, 1, True), "same context": ("count", 1, True),
           "other context": ("yes_no", 2, False)}


@pytest.fixture(scope="module")
def speculative(recognizer):  # noqa: ANN001, ANN201
    """A recognizer with tentative ends two chunks after the speech (whatever `TAIL_S` is)."""
    from voice_ref.voice.asr.whisper_backend import WhisperRecognizer

    return WhisperRecognizer(MODEL, threads=2, players=recognizer.players, tail_s=0.064)


@pytest.mark.parametrize("between, calls, early", BETWEEN.values(), ids=BETWEEN.keys())
def test_the_final_end_reuses_the_tentative_result(speculative, monkeypatch, between, calls,
                                                   early) -> None:  # noqa: ANN001
    """Recognition starts at the tentative end, inside that block's `accept`; the final
    end uses that result unless the phrases changed in between."""
    recognizer = speculative
    inventory = PhraseInventory(recognizer.players)
    count = ListenContext("count", tuple(inventory.phrases("count", canonical=False)))
    recognizer.set_context(count)
    recognizer.reset()
    seen = []
    real = recognizer.recognize
    monkeypatch.setattr(recognizer, "recognize", lambda *a: seen.append(a) or real(*a))
    label = _clean_clip(_labels(), "answer_number")
    audio = np.concatenate([read_wav(DEV / label["file"]), np.zeros(8000, np.float32)])
    blocks = [audio[i : i + 1600] for i in range(0, len(audio), 1600)]
    out = []
    for block in blocks:
        got = recognizer.accept(block)
        out += got
        if seen and not out and between is not None:  # the tentative end was recognized
            phrases = tuple(inventory.phrases(between, canonical=False))  # a new tuple
            recognizer.set_context(ListenContext(between, phrases))
            between = None
    assert len(out) == 1 and len(seen) == calls
    assert out[0].extra["early"] is early
    # An early result started a block (or more) before the final end; a new one at it.
    assert (out[0].extra["started_at_s"] < out[0].decoded_at_s) is early
    if early:
        assert out[0].end_s == seen[0][2]  # the tentative audio's speech end


@pytest.fixture()
def fresh_model(tmp_path: Path) -> Path:
    """The model's files linked into an empty folder: a text prior store of its own."""
    if not (MODEL / "model.bin").exists():
        pytest.skip("models/whisper-base missing: run `voice-ref models install whisper-base`")
    for name in ("config.json", "model.bin", "tokenizer.json", "vocabulary.json"):
        (tmp_path / name).symlink_to(MODEL / name)
    return tmp_path


def test_a_table_prepared_before_is_not_walked_again(fresh_model: Path, monkeypatch) -> None:  # noqa: ANN001
    """The store names what it covers: the next start of the same table (another process)
    finds its digest and walks none of its phrases."""
    from voice_ref.voice.asr.whisper_backend import WhisperRecognizer

    inventory = PhraseInventory(["Ana", "Beto"])
    contexts = [ListenContext(e, tuple(inventory.phrases(e, canonical=False)))
                for e in ("yes_no", "starter")]
    first = WhisperRecognizer(fresh_model, threads=2, players=["Ana", "Beto"])
    first.prepare(contexts)
    assert (fresh_model / "text-prior.npz").is_file()
    again = WhisperRecognizer(fresh_model, threads=2, players=["Ana", "Beto"])
    monkeypatch.setattr(again, "_prepare_prior", lambda _trie: pytest.fail("walked again"))
    again.prepare(contexts)
    other_names = WhisperRecognizer(fresh_model, threads=2, players=["Ana", "Carla"])
    walked: list[object] = []
    monkeypatch.setattr(other_names, "_prepare_prior", walked.append)
    other_names.prepare([ListenContext("starter", tuple(
        PhraseInventory(["Ana", "Carla"]).phrases("starter", canonical=False)))])
    assert walked  # new names: new prefixes to compute


def _linked_model(folder: Path) -> Path:
    """Another folder with the model's files linked in: a text prior store of its own."""
    folder.mkdir()
    for name in ("config.json", "model.bin", "tokenizer.json", "vocabulary.json"):
        (folder / name).symlink_to(MODEL / name)
    return folder


def _count_context(players: list[str]) -> ListenContext:
    return ListenContext("count", tuple(PhraseInventory(players).phrases("count", canonical=False)))


def test_a_prepared_table_reads_its_end_checks_from_the_store(fresh_model: Path) -> None:
    """The end check's "phrase + punct" sequences are prepared with the phrases: an answer
    computes the prior of its own free transcript only, and scores every phrase as an
    answer that computed them from the start (a store without them) does."""
    from voice_ref.voice.asr.whisper_backend import WhisperRecognizer

    audio = read_wav(DEV / _clean_clip(_labels(), "answer_number")["file"])
    prepared = WhisperRecognizer(fresh_model, threads=2, players=["Ana", "Beto"])
    prepared.prepare([_count_context(["Ana", "Beto"])])
    prepared.set_context(_count_context(["Ana", "Beto"]))
    answer = prepared.recognize(audio)
    assert answer.extra["prior_computed"] <= 1
    cold = WhisperRecognizer(_linked_model(fresh_model / "cold"), threads=2,
                             players=["Ana", "Beto"])
    cold.set_context(_count_context(["Ana", "Beto"]))
    old_way = cold.recognize(audio)
    assert old_way.extra["prior_computed"] > 1 + answer.extra["prior_computed"]
    assert [s[:2] for s in answer.extra["scored"]] == [s[:2] for s in old_way.extra["scored"]]
    for (_, _, value), (_, _, old) in zip(answer.extra["scored"], old_way.extra["scored"],
                                          strict=True):
        assert value == pytest.approx(old, abs=0.011)  # rounded to 0.01 by the recognizer


def test_a_store_of_the_older_walk_gets_its_end_checks_from_decoder_states(
    fresh_model: Path, monkeypatch
) -> None:  # noqa: ANN001
    """A table prepared by the walk of `PREPARE_VERSION` 1 (no end-check entries) is walked
    again, with the same decoder rows as a new table: the phrases' states are made again
    on the way, so no end check is computed from the start."""
    from voice_ref.voice.asr import whisper_backend

    def walk_rows(model: Path) -> int:
        recognizer = whisper_backend.WhisperRecognizer(model, threads=2, players=["Ana"])
        recognizer.prepare([_count_context(["Ana"])])
        return recognizer.prepare_rows

    new_table = walk_rows(_linked_model(fresh_model / "new"))
    with monkeypatch.context() as old:
        old.setattr(whisper_backend, "PREPARE_VERSION", 1)
        old.setattr(whisper_backend, "PREPARED_END_PUNCTS", "")
        assert 0 < walk_rows(fresh_model) < new_table
    assert walk_rows(fresh_model) == new_table
    assert walk_rows(fresh_model) == 0  # prepared: known by its digest


def test_preparing_holds_a_decoder_state_only_while_something_extends_it(
    fresh_model: Path, monkeypatch
) -> None:  # noqa: ANN001
    """The walk's memory is the decoder states it holds (~25 kB a token position each): a
    parent's is released once its last child is computed, a leaf's once its entries are
    stored, an end check's is never kept. Released no sooner than that: the walk computes
    the same rows and stores the same values, bit for bit, as one that keeps every state."""
    from voice_ref.voice.asr import whisper_backend
    from voice_ref.voice.asr.prefix_probe import PrefixProbe

    held: list[int] = []
    step = PrefixProbe._step

    def counting_step(probe: PrefixProbe, *args) -> None:  # noqa: ANN002
        step(probe, *args)
        held.append(sum(1 for e in probe._entries.values() if e.state is not None))

    monkeypatch.setattr(PrefixProbe, "_step", counting_step)

    def prepare(folder: Path) -> tuple[int, int, np.lib.npyio.NpzFile]:
        held.clear()
        recognizer = whisper_backend.WhisperRecognizer(folder, threads=2, players=["Ana"])
        recognizer.prepare([_count_context(["Ana"])])
        return max(held), recognizer.prepare_rows, np.load(folder / "text-prior.npz")

    states, rows, store = prepare(_linked_model(fresh_model / "walk"))
    monkeypatch.setattr(PrefixProbe, "forget", lambda _probe, _sequences: None)
    kept_states, kept_rows, kept_store = prepare(_linked_model(fresh_model / "keep_all"))
    assert rows == kept_rows
    assert np.array_equal(store["hashes"], kept_store["hashes"])
    assert np.array_equal(store["values"], kept_store["values"])
    assert states < 2 * whisper_backend.PREPARE_CHUNK < kept_states


def test_a_background_prepare_leaves_the_work_to_another_process(fresh_model: Path) -> None:
    """`prepare(background=True)` returns without computing anything itself; once the
    low-priority process is done, the recognizer reads its work and an answer computes
    no more prior than after a prepare in the foreground."""
    from voice_ref.voice.asr.whisper_backend import END_CHECKS, WhisperRecognizer

    recognizer = WhisperRecognizer(fresh_model, threads=2, players=["Ana", "Beto"])
    inventory = PhraseInventory(recognizer.players)
    count = ListenContext("count", tuple(inventory.phrases("count", canonical=False)))
    recognizer.prepare([count], background=True)
    assert recognizer._text_prior.computed == 0
    assert recognizer.finish_preparing(timeout=600)
    assert recognizer._digest([count]) in recognizer._text_prior.prepared_sets
    recognizer.set_context(count)
    label = _clean_clip(_labels(), "answer_number")
    recognizer.recognize(read_wav(DEV / label["file"]))
    assert recognizer._text_prior.computed <= 1 + END_CHECKS


def test_a_read_only_model_folder_starts_no_background_work(fresh_model: Path, monkeypatch,
                                                            caplog) -> None:  # noqa: ANN001
    """Work that could not be saved would be lost and done again every start: a model
    folder that cannot be written gets no worker, and the person setting up is told."""
    from voice_ref.voice.asr import whisper_backend

    recognizer = whisper_backend.WhisperRecognizer(fresh_model, threads=2, players=["Ana"])
    writable = whisper_backend.os.access
    monkeypatch.setattr(whisper_backend.os, "access",
                        lambda path, mode: False if Path(path) == fresh_model else
                        writable(path, mode))
    count = ListenContext("count", tuple(PhraseInventory(["Ana"]).phrases("count")))
    recognizer.prepare([count], background=True)
    assert recognizer._background is None
    assert "read-only" in caplog.text


def test_a_quiet_microphone_is_heard_at_the_measured_floor(recognizer) -> None:  # noqa: ANN001
    """Speech quieter than every measured clip (a laptop in the middle of the table, 20 dB
    down) is heard as if recorded at the measured floor (`level.raised`), and speech at
    the measured levels as it is."""
    label = _clean_clip(_labels(), "bid")
    inventory = PhraseInventory(recognizer.players)
    recognizer.set_context(ListenContext("turn", tuple(inventory.phrases("turn", canonical=False))))
    audio = read_wav(DEV / label["file"])
    quiet = audio * np.float32(0.1)
    assert raised(audio) is audio

    def heard(samples: np.ndarray) -> list[tuple[str, float]]:
        return [(h.text, h.score) for h in recognizer.recognize(samples).hypotheses[:3]]

    assert heard(quiet) == heard(raised(quiet))
    # the level as recorded, for `--heard` logs and `voice-ref listen`
    assert recognizer.recognize(quiet).extra["level_dbfs"] < FLOOR_DBFS
    assert recognizer.recognize(audio).extra["level_dbfs"] >= FLOOR_DBFS
