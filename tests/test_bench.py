"""`voice-ref bench`: scoring rules on synthetic rows, and the real command on a tiny folder."""

from __future__ import annotations

import json
import shutil
from argparse import Namespace
from pathlib import Path

import pytest

from voice_ref.language.expecting import Expecting
from voice_ref.voice.bench import (
    HELDOUT_VOICES,
    TUNING_VOICES,
    _same,
    clip_latency_ms,
    expecting_for,
    expecting_of,
    main,
    select,
    split_of,
    summarize,
    talk_asked,
)

REPO = Path(__file__).parents[1]
DEV = REPO.parent / "shared/audio/dev"
MODEL = REPO / "models/whisper-base"

BID = {"type": "bid", "quantity": 5, "face": 5, "clean": False}


@pytest.mark.parametrize(
    ("got", "expected", "correct"),
    [
        (BID, BID, True),
        ({**BID, "face": 4}, BID, False),
        (None, {"type": "none"}, True),
        ({"type": "dudo"}, {"type": "none"}, False),
        ({"type": "none", "player": "Ana"}, {"type": "none", "player": "Ana"}, True),
        (None, {"type": "none", "player": "Ana"}, False),
        ({"type": "none", "player": "Beto"}, {"type": "none", "player": "Ana"}, False),
        ({"type": "dudo"}, {"type": "dudo", "player": "Ana"}, False),
    ],
)
def test_exact_protocol_equality(got, expected, correct) -> None:  # noqa: ANN001
    assert _same(got, expected) is correct


@pytest.mark.parametrize(
    ("category", "expecting"),
    [("answer_number", "count"), ("answer_yesno", "yes_no"), ("answer_choice", "choice"),
     ("bid", "turn"), ("chatter", "turn"), ("name", "turn"), ("", "turn")],
)
def test_context_from_category(category: str, expecting: str) -> None:
    assert expecting_for(category) == expecting


def test_talk_asked_plays_only_talk_under_the_question() -> None:
    labels = [
        {"file": "a.wav", "category": "chatter", "intent": {"type": "none"}},
        {"file": "b.wav", "category": "name", "intent": {"type": "none", "player": "Ana"}},
        {"file": "c.wav", "category": "noise_only", "intent": {"type": "none"}},
        {"file": "d.wav", "category": "bid", "intent": BID},
        {"file": "e.wav", "category": "answer_number", "intent": {"type": "number", "value": 3}},
    ]
    asked = talk_asked(labels, Expecting.COUNT)
    assert [lb["file"] for lb in asked] == ["a.wav", "b.wav", "c.wav"]
    # A name said alone answers no count: nothing is the right result.
    assert all(lb["intent"] == {"type": "none"} for lb in asked)
    assert {expecting_of(lb) for lb in asked} == {Expecting.COUNT}
    assert expecting_of(labels[0]) == Expecting.TURN  # the labels themselves are untouched
    assert labels[1]["intent"]["player"] == "Ana"


def _row(expected: dict, got: dict | None, noise: str | None, snr: int | None,
         latency: float) -> dict:
    return {"expected": expected, "got": got, "correct": _same(got, expected),
            "false_action": expected["type"] == "none" and got is not None
            and got["type"] != "none", "noise": noise, "snr": snr, "latency_ms": latency,
            "busy_s": 0.5, "audio_s": 2.0, "confirmed": []}


def test_summary_groups_and_rates() -> None:
    rows = [
        _row(BID, BID, None, None, 100),
        _row(BID, None, "pink_noise", 6, 300),
        _row({"type": "none"}, {"type": "paso"}, "pink_noise", 6, 200),
        _row({"type": "none"}, None, "running_tap", 12, 400),
    ]
    s = summarize(rows, {})
    assert s["clips"] == 4
    assert s["accuracy"] == 0.5
    assert s["accuracy_by_snr"] == {"12": 1.0, "6": 0.0, "clean": 1.0}
    noise_only = summarize([_row({"type": "none"}, None, "pink_noise", None, 1)], {})
    assert noise_only["accuracy_by_snr"] == {"noise only": 1.0}
    assert s["accuracy_by_noise"]["pink_noise"] == 0.0
    assert s["accuracy_by_type"] == {"bid": 0.5, "none": 0.5}
    assert s["false_action_rate"] == 0.5
    assert s["latency_ms_mean"] == 250.0
    assert s["rtf"] == 0.25


def test_questions_are_counted_apart_from_actions() -> None:
    rows = [
        _row({"type": "none"}, None, None, None, 1) | {"confirmed": [{"type": "dudo"}]},
        _row(BID, None, None, None, 1) | {"confirmed": [BID]},
    ]
    s = summarize(rows, {})
    assert s["false_action_rate"] == 0.0
    assert s["confirmed_on_none"] == 1.0 and s["confirmed_right"] == 0.5


def test_voice_split_is_fixed_four_and_four() -> None:
    assert len(TUNING_VOICES) == len(HELDOUT_VOICES) == 4
    assert not TUNING_VOICES & HELDOUT_VOICES
    for voices in (TUNING_VOICES, HELDOUT_VOICES):  # both dialects, both sexes on each side
        assert {v.split("+")[0] for v in voices} == {"es", "es-419"}
        assert {v.split("+")[1][0] for v in voices} == {"m", "f"}
    assert split_of({"file": "wav/dr0001.wav", "voice": "asterisk-es-mx", "source": "real"}) \
        == "heldout"
    assert split_of({"file": "wav/d0002.wav", "voice": None}) == "tuning"
    assert split_of({"file": "wav/d0003.wav", "voice": None}) == "heldout"


def test_a_label_may_say_its_split() -> None:
    """tuning-real (tools/make_tuning_real.py) is a real voice built for tuning."""
    real = {"file": "wav/tr0001.wav", "voice": "asterisk-es-co", "source": "real"}
    assert split_of(real) == "heldout"
    assert split_of({**real, "split": "tuning"}) == "tuning"
    assert split_of({**real, "voice": "es+m3", "split": "heldout"}) == "heldout"


def test_select_keeps_a_split_and_every_nth_clip_per_category() -> None:
    labels = [{"file": f"wav/d{i:04d}.wav", "voice": v, "category": c}
              for i, (v, c) in enumerate(
                  [(v, c) for v in sorted(TUNING_VOICES | HELDOUT_VOICES)
                   for c in ("bid", "bid", "chatter")])]
    tuning = select(labels, "tuning")
    assert len(tuning) == 12 and all(lb["voice"] in TUNING_VOICES for lb in tuning)
    every = select(labels, "heldout", every=2)
    assert [lb["category"] for lb in every].count("bid") == 4
    assert [lb["category"] for lb in every].count("chatter") == 2
    with pytest.raises(ValueError, match="split"):
        select(labels, "dev")


@pytest.mark.parametrize(
    ("done", "end", "latency"),
    [([1.5], 1.2, 300.0), ([0.9, 1.6], 1.2, 400.0), ([1.0], 1.2, 0.0), ([], 1.2, None)],
    ids=["one", "split-utterance-counts-the-last", "before-the-label-end", "nothing"],
)
def test_latency_is_on_the_clip_clock_and_never_negative(done, end, latency) -> None:  # noqa: ANN001
    got = clip_latency_ms(done, end)
    assert got == (pytest.approx(latency) if latency is not None else None)


def test_missing_labels_is_explained(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    args = Namespace(audio=str(tmp_path), backend="whisper", model=None, json=True, limit=None,
                     split="all", every=1, rules=None, rows=None)
    assert main(args) == 2
    assert "labels.jsonl" in capsys.readouterr().err


@pytest.mark.whisper_model
@pytest.mark.slow
def test_bench_json_on_a_tiny_folder(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    if not (MODEL / "model.bin").exists():
        pytest.skip("models/whisper-base missing: run `voice-ref models install whisper-base`")
    if not (DEV / "labels.jsonl").exists():
        pytest.skip(f"dev audio set not found at {DEV}")
    labels = [json.loads(line) for line in (DEV / "labels.jsonl").read_text().splitlines()]
    picked = [next(lb for lb in labels if lb["category"] == c)
              for c in ("bid", "command", "chatter")]
    (tmp_path / "wav").mkdir()
    for lb in picked:
        shutil.copy(DEV / lb["file"], tmp_path / lb["file"])
    (tmp_path / "labels.jsonl").write_text("".join(json.dumps(lb) + "\n" for lb in picked))
    args = Namespace(audio=str(tmp_path), backend="whisper", model=None, json=True, limit=None,
                     split="all", every=1, rules="cachito", rows=str(tmp_path / "rows.jsonl"),
                     cold=True)
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("clips", "accuracy", "accuracy_by_noise", "accuracy_by_snr", "accuracy_by_type",
                "false_action_rate", "latency_ms_mean", "latency_ms_p95", "rtf",
                "rss_peak_mb", "load_s", "backend", "model"):
        assert key in out, key
    assert out["clips"] == 3 and out["backend"] == "whisper" and out["rules"] == "cachito"
    assert out["versions"]["ctranslate2"][0].isdigit()  # what the numbers were measured with
    assert out["prepare_s"] == 0.0  # --cold: no preparing
    rows = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert [r["file"] for r in rows] == [lb["file"] for lb in picked]
    assert all(r["latency_ms"] is None or r["latency_ms"] >= 0 for r in rows)
    assert 0.0 <= out["accuracy"] <= 1.0 and out["latency_ms_p95"] > 0 and out["rss_peak_mb"] > 0
    # --talk-in count: only the table talk, played while a count is awaited.
    args.talk_in, args.rows = "count", str(tmp_path / "talk.jsonl")
    assert main(args) == 0
    talk_summary = json.loads(capsys.readouterr().out)
    assert talk_summary["clips"] == 1 and talk_summary["talk_in"] == "count"
    talk = [json.loads(line) for line in (tmp_path / "talk.jsonl").read_text().splitlines()]
    assert [(r["category"], r["expecting"]) for r in talk] == [("chatter", "count")]


def test_replay_decides_again_from_recorded_recognizer_output() -> None:
    from voice_ref.config import Config
    from voice_ref.language.inventory import PhraseInventory
    from voice_ref.voice.bench import replay
    from voice_ref.voice.decision import bench_decider

    utterance = {"start_s": 0.3, "end_s": 1.1, "free": "", "fluency": None,
                 "hypotheses": [["cuatro quinas", 0.48], ["48", 0.3], ["14", 0.22]]}
    row = {"file": "wav/d0001.wav", "text": "cuatro quinas", "voice": "es+m1",
           "expected": {"type": "bid", "quantity": 4, "face": 5, "clean": False},
           "noise": None, "snr": None, "category": "bid", "expecting": "turn",
           "split": "tuning", "utterances": [utterance], "latency_ms": 500.0,
           "busy_s": 1.0, "audio_s": 1.5}
    players = ["Ana", "Beto"]
    (again,) = replay([row], bench_decider(Config(), players), PhraseInventory(players))
    # The bare numbers cannot answer a turn: the bid keeps the whole mass.
    assert again["correct"] and again["got"] == row["expected"]
    assert again["latency_ms"] == 500.0 and again["split"] == "tuning"


def test_replay_keeps_the_phrasings_the_backend_pooled() -> None:
    from voice_ref.config import Config
    from voice_ref.language.inventory import PhraseInventory
    from voice_ref.voice.bench import replay
    from voice_ref.voice.decision import bench_decider

    # Whisper's "dudo dudo" for a lone espeak "dudo", written "Duna": it sounds like the
    # "dudo" pooled under it, not like "dudo dudo" (the default thresholds decide).
    utterance = {"start_s": 0.3, "end_s": 0.9, "free": "Duna", "fluency": -2.0,
                 "hypotheses": [["dudo dudo", 0.98], ["Duna", 0.02]]}
    row = {"file": "wav/d0002.wav", "text": "dudo", "voice": "es+m1",
           "expected": {"type": "dudo"}, "noise": None, "snr": None, "category": "command",
           "expecting": "turn", "split": "tuning", "latency_ms": 400.0, "busy_s": 0.5,
           "audio_s": 1.2}
    players = ["Ana", "Beto"]

    def decided(utt: dict) -> dict:
        (again,) = replay([{**row, "utterances": [utt]}], bench_decider(Config(), players),
                          PhraseInventory(players))
        return again

    assert decided({**utterance, "phrasings": {"dudo dudo": ["dudo"]}})["correct"]
    plain = decided(utterance)
    assert not plain["correct"] and plain["confirmed"] == [{"type": "dudo"}]
