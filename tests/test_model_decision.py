"""A speech model's own decision thresholds (`decision.toml` in its folder) reach every
table's decider, and `voice-ref models adapt` refuses plainly what it cannot do."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from voice_ref.adaptation import command
from voice_ref.config import ADAPTED_WHISPER_MODEL, BASE_WHISPER_MODEL, config_from_dict
from voice_ref.rules.variants import ConfigError
from voice_ref.voice.asr.select import (
    DECISION_FILE,
    RecognizerUnavailable,
    with_model_decision,
)
from voice_ref.voice.decision.thresholds import Thresholds, checked_overrides, thresholds_from


@pytest.mark.parametrize(
    ("values", "expected", "error"),
    [
        ({"sure_talk": -1.2}, (("sure_talk", -1.2),), None),
        ({"talk_similarity": 1}, (("talk_similarity", 1.0),), None),  # an int is a number
        ({"illegal_reach": 3}, (("illegal_reach", 3),), None),
        ({"sure_talks": -1.2}, None, "'sure_talks' is not a decision threshold"),
        ({"sure_talk": "-1.2"}, None, "sure_talk must be a number"),
        ({"sure_talk": True}, None, "sure_talk must be a number"),
    ],
)
def test_overrides_are_checked_by_name_and_kind(values, expected, error) -> None:  # noqa: ANN001
    if error is None:
        assert checked_overrides(values) == expected
    else:
        with pytest.raises(ValueError, match=error):
            checked_overrides(values)


def _table(tmp_path: Path, decision: str | None, backend: str = "whisper"):  # noqa: ANN202
    model = tmp_path / "models/adapted"
    model.mkdir(parents=True)
    (model / "model.bin").write_bytes(b"")
    if decision is not None:
        (model / DECISION_FILE).write_text(decision, encoding="utf-8")
    return config_from_dict({"asr": {"backend": backend, "whisper_model": "models/adapted"}},
                            base_dir=tmp_path)


def test_the_models_thresholds_reach_the_decider_and_the_rest_stay(tmp_path: Path) -> None:
    config = with_model_decision(_table(tmp_path, "[thresholds]\nsure_talk = -1.2\n"))
    limits = thresholds_from(config)
    assert limits.sure_talk == -1.2
    assert limits.talk_similarity == Thresholds().talk_similarity
    assert limits.accept == config.asr.speech_accept_score


@pytest.mark.parametrize(
    ("decision", "backend"),
    [(None, "whisper"), ("[thresholds]\nsure_talk = -1.2\n", "vosk")],
)
def test_without_a_file_or_with_vosk_nothing_changes(tmp_path: Path, decision, backend) -> None:  # noqa: ANN001
    config = _table(tmp_path, decision, backend)
    assert with_model_decision(config) == config


def test_a_model_given_on_the_command_line_brings_its_own(tmp_path: Path) -> None:
    config = _table(tmp_path, None)
    other = tmp_path / "other"
    other.mkdir()
    (other / "model.bin").write_bytes(b"")
    (other / DECISION_FILE).write_text("[thresholds]\ntalk_similarity = 0.65\n")
    assert thresholds_from(with_model_decision(config, model=other)).talk_similarity == 0.65


@pytest.mark.parametrize("text", ["[thresholds]\nsure_talk = 'x'\n", "[thresholds\n",
                                  "[thresholds]\nloudness = 3\n"])
def test_a_broken_file_is_named_and_changes_nothing(tmp_path: Path, text: str) -> None:
    config = _table(tmp_path, text)
    with pytest.raises(RecognizerUnavailable, match=DECISION_FILE):
        with_model_decision(config)


def _model(folder: Path, decision: str | None = None) -> Path:
    folder.mkdir(parents=True)
    (folder / "model.bin").write_bytes(b"")
    if decision is not None:
        (folder / DECISION_FILE).write_text(decision, encoding="utf-8")
    return folder


@pytest.mark.parametrize("asr", [{}, {"whisper_model": "auto"}, {"whisper_model": " auto "}])
def test_auto_loads_the_adapted_model_once_it_is_built(tmp_path: Path, asr: dict) -> None:
    config = config_from_dict({"asr": {"backend": "whisper", **asr}}, base_dir=tmp_path)
    assert config.whisper_model == config.whisper_base == tmp_path / BASE_WHISPER_MODEL
    assert with_model_decision(config) == config
    adapted = _model(tmp_path / ADAPTED_WHISPER_MODEL, "[thresholds]\nsure_talk = -1.2\n")
    assert config.whisper_model == adapted
    assert config.whisper_base == tmp_path / BASE_WHISPER_MODEL  # what adapting starts from
    assert thresholds_from(with_model_decision(config)).sure_talk == -1.2


def test_a_configured_folder_is_loaded_even_when_an_adapted_model_exists(tmp_path: Path) -> None:
    _model(tmp_path / ADAPTED_WHISPER_MODEL, "[thresholds]\nsure_talk = -1.2\n")
    config = config_from_dict({"asr": {"backend": "whisper", "whisper_model": "models/mine"}},
                              base_dir=tmp_path)
    assert config.whisper_model == config.whisper_base == tmp_path / "models/mine"
    assert with_model_decision(config) == config


@pytest.mark.parametrize("value", ["", "  ", 3, ["models/x"]])
def test_a_whisper_model_that_is_no_folder_name_is_explained(value: object) -> None:
    with pytest.raises(ConfigError, match='whisper_model is "auto" or a model folder'):
        config_from_dict({"asr": {"whisper_model": value}})


def test_the_recognizer_factory_says_when_auto_chose_the_adapted_model(
    tmp_path: Path, monkeypatch  # noqa: ANN001
) -> None:
    from voice_ref.voice.asr import select

    adapted = _model(tmp_path / ADAPTED_WHISPER_MODEL)
    loaded: list[Path] = []
    monkeypatch.setattr(select, "_whisper", lambda config, path, players, tell: loaded.append(path))
    told: list[str] = []
    config = config_from_dict({"asr": {"backend": "whisper"}}, base_dir=tmp_path)
    select.make_recognizer(config, tell=told.append)
    assert loaded == [adapted] and told == [f"speech model: {adapted}, adapted to the game"]
    select.make_recognizer(config, model=str(adapted), tell=told.append)  # asked for by name
    assert loaded == [adapted, adapted] and len(told) == 1


@pytest.mark.parametrize(("asr", "told_of_adapting"), [
    ({}, True),  # "auto" fell back to the base model: say how to get the better one
    ({"whisper_model": "models/mine"}, False),  # the operator chose this folder
])
def test_the_recognizer_factory_says_how_to_adapt_when_auto_loads_the_base_model(
    tmp_path: Path, monkeypatch, asr: dict, told_of_adapting: bool  # noqa: ANN001
) -> None:
    from voice_ref.voice.asr import select

    monkeypatch.setattr(select, "_whisper", lambda config, path, players, tell: path)
    told: list[str] = []
    config = config_from_dict({"asr": {"backend": "whisper", **asr}}, base_dir=tmp_path)
    assert select.make_recognizer(config, tell=told.append) == config.whisper_base
    assert any("voice-ref models adapt" in line for line in told) == told_of_adapting


def _adapt_args(tmp_path: Path, **given: object) -> argparse.Namespace:
    config = tmp_path / "config.toml"
    config.write_text('[asr]\nwhisper_model = "models/base"\n', encoding="utf-8")
    values = {"config": str(config), "base": None, "out": None, "noise": None, "clips": 10000,
              "seed": 7, "no_mbrola": True, "replace": False, **given}
    return argparse.Namespace(**values)


def test_adapting_without_a_base_model_says_how_to_get_one(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    assert command.main_adapt(_adapt_args(tmp_path)) == 2
    err = capsys.readouterr().err
    problem = command.missing_requirement(tmp_path / "models/base")
    assert problem is not None and problem in err
    assert not (tmp_path / "models/whisper-base-table").exists()


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ({"out": "SAME"}, "cannot replace its base model"),
        ({"out": "EXISTS"}, "already exists; pass --replace"),
        ({"clips": 10}, "--clips must be at least 100"),
        ({"noise": "MISSING"}, "cannot use the noise recordings"),
    ],
)
def test_what_the_command_cannot_do_is_refused_before_any_work(
    tmp_path: Path, monkeypatch, capsys, given: dict, says: str  # noqa: ANN001
) -> None:
    monkeypatch.setattr(command, "missing_requirement", lambda base: None)
    base = tmp_path / "models/base"
    exists = tmp_path / "models/table"
    exists.mkdir(parents=True)
    (exists / "keep.txt").write_text("mine")
    paths = {"SAME": str(base), "EXISTS": str(exists), "MISSING": str(tmp_path / "nowhere")}
    given = {k: paths.get(v, v) if isinstance(v, str) else v for k, v in given.items()}
    assert command.main_adapt(_adapt_args(tmp_path, **given)) == 2
    assert says in capsys.readouterr().err
    assert (exists / "keep.txt").read_text() == "mine"
    assert not any(p.name.endswith(".partial") for p in (tmp_path / "models").iterdir())


@pytest.mark.parametrize(("total_gb", "warned"), [(2.0, True), (3.5, True), (4.0, False),
                                                  (8.0, False), (None, False)])
def test_a_machine_short_of_memory_is_warned_before_adapting(
    total_gb: float | None, warned: bool
) -> None:
    warning = command.memory_warning(total_gb)
    assert (warning is not None) is warned
    if warning is not None:
        assert f"{total_gb:.1f} GB" in warning and "copy the folder" in warning


def test_this_machine_says_how_much_memory_it_has() -> None:
    total = command.physical_memory_gb()
    assert total is None or total > 0.5

