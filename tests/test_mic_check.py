"""`voice-ref check`: what it says about a microphone's level, clipping and room noise.

Levels are checked on synthetic audio with known speech spans (table-driven), then on
speech through the live voice detector, from a file and from the virtual sound card."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from pulse_helpers import SINK
from table_audio import espeak_available, speak
from test_level import call_in_a_room

from voice_ref.voice.asr.level import FLOOR_DBFS, MAX_GAIN_DB, SILENCE_DBFS, clipped_share
from voice_ref.voice.audio_in import write_wav
from voice_ref.voice.mic_check import (
    CLIPPING_SHARE,
    NOISY_MARGIN_DB,
    LevelWatch,
    MicProblem,
    Span,
    assess,
    describe,
    room_level_dbfs,
    speech_spans,
)

RATE = 16000
VOICE_REF = [sys.executable, "-m", "voice_ref"]
WHISPER = Path(__file__).resolve().parents[1] / "models" / "whisper-base"
SPEECH = Span(0.6, 1.1)  # where `test_level.call_in_a_room` puts its "speech"


@pytest.mark.parametrize(
    ("speech_dbfs", "room_below_db", "problems"),
    [
        (-22.0, 30.0, ()),  # a call at the measured levels, a quiet room
        (-12.0, 30.0, ()),  # loud, with headroom: peaks at -9 dBFS
        (FLOOR_DBFS - 8, 30.0, (MicProblem.QUIET,)),  # raised by the recognizer: a note
        (FLOOR_DBFS - MAX_GAIN_DB - 5, 30.0, (MicProblem.TOO_QUIET,)),
        (2.0, 30.0, (MicProblem.CLIPPING,)),  # the sine's peaks cut flat at full scale
        (-22.0, NOISY_MARGIN_DB - 3, (MicProblem.NOISY,)),
        (-22.0, NOISY_MARGIN_DB + 3, ()),
        (FLOOR_DBFS - 8, NOISY_MARGIN_DB - 3, (MicProblem.QUIET, MicProblem.NOISY)),
    ],
)
def test_what_is_reported_for_a_call(speech_dbfs, room_below_db, problems):
    report = assess(call_in_a_room(speech_dbfs, room_below_db), (SPEECH,))
    assert report.problems == problems
    assert report.to_fix == tuple(p for p in problems if p is not MicProblem.QUIET)
    lines = describe(report)
    assert any(line.startswith("OK") for line in lines) == (not report.to_fix)
    assert sum(line.startswith(("To fix:", "Note:")) for line in lines) == len(problems)


def test_the_levels_are_the_speech_and_the_room_between_utterances():
    report = assess(call_in_a_room(-20.0, 25.0), (SPEECH,))
    assert report.speech_dbfs == pytest.approx(-20.0, abs=0.3)
    assert report.room_dbfs == pytest.approx(-45.0, abs=0.5)
    assert report.margin_db == pytest.approx(25.0, abs=0.6)
    # Without the span the "speech" is room: the median frame stays the room's.
    assert room_level_dbfs(call_in_a_room(-20.0, 25.0), ()) == pytest.approx(-45.0, abs=1.0)


def test_nothing_heard_is_no_speech_and_nothing_else():
    room = call_in_a_room(-40.0)[: int(0.5 * RATE)]
    report = assess(room, ())
    assert report.problems == report.to_fix == (MicProblem.NO_SPEECH,)
    assert report.speech_dbfs is None and report.margin_db is None
    silence = np.zeros(RATE, np.float32)
    assert assess(silence, ()).room_dbfs == SILENCE_DBFS
    assert room_level_dbfs(silence[:100], ()) == SILENCE_DBFS  # shorter than a frame


def test_clipping_is_samples_at_full_scale_beyond_a_few_peaks():
    audio = np.full(10_000, 0.5, np.float32)
    assert clipped_share(audio) == 0.0
    audio[:5] = 1.0  # five peaks: a loud "¡dudo!"
    assert clipped_share(audio) == 0.0005 < CLIPPING_SHARE
    audio[:50] = -1.0
    assert clipped_share(audio) == 0.005 > CLIPPING_SHARE
    assert clipped_share(np.zeros(0, np.float32)) == 0.0


def test_the_json_report_says_what_describe_says():
    report = assess(call_in_a_room(2.0), (SPEECH,))
    out = report.to_json()
    assert out["problems"] == ["clipping"]
    assert out["utterances"][0]["clipped_share"] > CLIPPING_SHARE
    assert json.loads(json.dumps(out)) == out


# -- real speech, through the voice detector --------------------------------------------


def spoken_call(tmp: Path, gain_db: float = 0.0, noise_below_db: float | None = None) -> Path:
    """An espeak-ng "cuatro quinas" with room tone around it, at a speech level of about
    -22 dBFS + `gain_db` (clipped as a sound card clips), optionally with white noise
    `noise_below_db` under it throughout."""
    speech = speak("cuatro quinas")
    speech = speech / np.sqrt(np.mean(np.square(speech[np.abs(speech) > 0.01]))) * 10 ** (-22 / 20)
    pad = np.zeros(int(0.8 * RATE), np.float32)
    audio = np.concatenate([pad, speech, pad])
    rng = np.random.default_rng(5)
    room_db = -80.0 if noise_below_db is None else -22.0 - noise_below_db
    audio = audio + rng.standard_normal(len(audio)) * 10 ** (room_db / 20)
    audio = np.clip(audio * 10 ** (gain_db / 20), -1.0, 1.0).astype(np.float32)
    path = tmp / f"call_{gain_db}_{noise_below_db}.wav"
    write_wav(path, audio, RATE)
    return path


def check(*options: str, env: dict | None = None, timeout: float = 120):
    return subprocess.run([*VOICE_REF, "check", *options], capture_output=True, text=True,
                          timeout=timeout, env=env)


@pytest.mark.parametrize(
    ("gain_db", "noise_below_db", "problems", "code"),
    [
        (0.0, None, [], 0),
        (20.0, None, ["clipping"], 1),
        (-20.0, None, ["quiet"], 0),
        (0.0, 3.0, ["noisy"], 1),
    ],
)
def test_a_recording_is_checked_from_the_command_line(tmp_path, gain_db, noise_below_db,
                                                      problems, code):
    if not espeak_available():
        pytest.skip("espeak-ng is not installed (apt install espeak-ng)")
    wav = spoken_call(tmp_path, gain_db, noise_below_db)
    run = check("--input", str(wav), "--no-recognize", "--json")
    assert run.returncode == code, run.stderr
    out = json.loads(run.stdout)
    assert len(out["utterances"]) == 1
    assert out["problems"] == problems
    assert out["heard"] == []


def test_the_voice_detector_finds_the_call():
    if not espeak_available():
        pytest.skip("espeak-ng is not installed (apt install espeak-ng)")
    speech = speak("cuatro quinas")
    pad = np.zeros(RATE, np.float32)
    spans = speech_spans(np.concatenate([pad, speech, pad]))
    voiced = np.flatnonzero(np.abs(speech) > 0.01)  # espeak-ng pads its output with silence
    assert len(spans) == 1
    assert spans[0].start_s == pytest.approx(1.0 + voiced[0] / RATE, abs=0.15)
    assert spans[0].end_s == pytest.approx(1.0 + voiced[-1] / RATE, abs=0.3)


def test_a_file_that_is_no_audio_is_explained(tmp_path):
    bad = tmp_path / "notes.wav"
    bad.write_text("no audio here")
    run = check("--input", str(bad), "--no-recognize")
    assert run.returncode == 2
    assert "not an audio file" in run.stderr
    assert run.stdout == ""


@pytest.mark.whisper_model
def test_the_check_says_what_the_recognizer_understood(tmp_path):
    if not espeak_available():
        pytest.skip("espeak-ng is not installed (apt install espeak-ng)")
    if not (WHISPER / "model.bin").exists():
        pytest.skip("models/whisper-base is missing: run `voice-ref models install whisper-base`")
    run = check("--input", str(spoken_call(tmp_path)), "--model", str(WHISPER),
                "--backend", "whisper", timeout=300)
    assert run.returncode == 0, run.stderr
    assert "OK: the speech does not clip" in run.stdout
    assert "understood: accept" in run.stdout
    assert '"quantity": 4, "face": 5' in run.stdout


# -- the microphone of a virtual sound card ----------------------------------------------


@pytest.mark.audio_devices
def test_the_microphone_is_checked_after_the_referee_asks(card, tmp_path):
    """The referee says the prompt on the loudspeaker, then records; a player's call
    played into the room once it says so is what the report is about (the prompt is not
    in the recording: one utterance, the call's level)."""
    if not espeak_available():
        pytest.skip("espeak-ng is not installed (apt install espeak-ng)")
    wav = spoken_call(tmp_path, gain_db=20.0)  # a hot microphone: the call clips
    proc = subprocess.Popen([*VOICE_REF, "check", "--seconds", "6", "--no-recognize", "--json"],
                            env=card.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    recording = threading.Event()
    errors: list[str] = []

    def watch() -> None:
        for line in proc.stderr:
            errors.append(line)
            if "recording" in line:
                recording.set()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        assert recording.wait(240), "".join(errors)
        subprocess.run(["paplay", f"--device={SINK}", str(wav)], env=card.env(), check=True,
                       timeout=60)
        out, _ = proc.communicate(timeout=120)
    finally:
        proc.kill()
    watcher.join(timeout=10)
    assert proc.returncode == 1, "".join(errors)
    # Which devices are checked comes first (the card's, through ALSA's PulseAudio plugin).
    assert errors[0].startswith("voice-ref check: microphone: default; loudspeaker: default")
    report = json.loads(out)
    assert report["problems"] == ["clipping"]
    assert len(report["utterances"]) == 1
    assert report["seconds"] == pytest.approx(6.0, abs=0.15)
    # The virtual card plays on time and has no room: the prompt was heard, and it ended
    # within the deaf window.
    own = report["own_voice"]
    assert own["heard_dbfs"] > report["room_dbfs"] + 10
    assert own["leaks"] is False and own["tail_s"] < own["holdoff_s"] - 0.1
    assert "self_hearing" not in report["problems"]


@pytest.mark.audio_devices
def test_a_loudspeaker_that_plays_late_is_found(own_card):
    """The referee's voice reaches the table 0.8 s after the loudspeaker is given it (a
    looped sink): its end, after the line's own trailing silence, falls past the deaf
    window, and the check says which holdoff_s covers it. The check judges the audio the
    live loop would hear, so the leaked end shows as an utterance too."""
    env = own_card.env()
    env["PULSE_SINK"] = own_card.late_loudspeaker(800)
    run = check("--seconds", "2", "--no-recognize", "--json", env=env, timeout=240)
    assert run.returncode == 1, run.stderr
    report = json.loads(run.stdout)
    own = report["own_voice"]
    assert own["leaks"] is True and own["tail_s"] > own["holdoff_s"] - 0.1
    assert "self_hearing" in report["problems"]
    plain = check("--seconds", "2", "--no-recognize", env=env, timeout=240)
    assert "set holdoff_s = " in plain.stdout


def test_without_a_microphone_the_check_says_so(tmp_path):
    from test_live_devices import no_sound_server_env

    run = check("--no-recognize", env=no_sound_server_env())
    assert run.returncode == 2
    assert "microphone" in run.stderr.lower()
    assert "voice-ref devices" in run.stderr


# -- during a game: the levels the recognizer measured, watched ---------------------------

LOUD, QUIET_ENOUGH, TOO_QUIET = -18.0, -45.0, FLOOR_DBFS - MAX_GAIN_DB - 5
HOT = CLIPPING_SHARE * 10


@pytest.mark.parametrize(
    ("utterances", "warned_at"),
    [
        ([(LOUD, 0.0)] * 12, {}),
        ([(QUIET_ENOUGH, 0.0)] * 12, {}),  # raised by the recognizer: nothing to tell
        ([(LOUD, CLIPPING_SHARE / 2)] * 12, {}),  # a few peaks at full scale
        ([(LOUD, HOT)] * 5, {2: "clips"}),  # told once, at the third
        ([(LOUD, HOT), *[(LOUD, 0.0)] * 9] * 3, {}),  # once in ten is a loud call, no gain
        ([(LOUD, HOT), (LOUD, 0.0)] * 3, {4: "clips"}),
        ([(TOO_QUIET, 0.0)] * 4, {2: "very quiet"}),
        ([(TOO_QUIET, HOT)] * 4, {2: "clips", 3: "very quiet"}),  # one warning at a time
    ],
)
def test_a_game_warns_once_about_a_microphone_that_keeps_clipping_or_is_too_quiet(
        utterances, warned_at):
    watch = LevelWatch()
    told = {}
    for i, (level, clipped) in enumerate(utterances):
        warning = watch.observe({"level_dbfs": level, "clipped_share": clipped})
        if warning is not None:
            told[i] = warning
    assert sorted(told) == sorted(warned_at)
    for i, words in warned_at.items():
        assert words in told[i] and "voice-ref check" in told[i]


def test_a_backend_that_does_not_measure_levels_is_never_warned_about():
    watch = LevelWatch()
    assert [watch.observe({}) for _ in range(12)] == [None] * 12
    assert watch.observe({"level_dbfs": None, "clipped_share": HOT}) is None


@pytest.mark.whisper_model
@pytest.mark.slow
def test_play_tells_the_operator_when_the_microphone_clips(tmp_path):
    """A recorded session through a microphone 20 dB too hot: `play` says so on stderr,
    once, with what to do; the game's protocol on stdout is untouched by it."""
    from table_audio import SHORT_GAME, session_wav, short_game_config, voice_of

    from voice_ref.voice.audio_in import read_wav

    if not espeak_available():
        pytest.skip("espeak-ng is not installed (apt install espeak-ng)")
    if not (WHISPER / "model.bin").exists():
        pytest.skip("models/whisper-base is missing: run `voice-ref models install whisper-base`")
    config = short_game_config(tmp_path / "config.toml", WHISPER)
    wav = session_wav([(voice_of(who), text) for who, text in SHORT_GAME[:4]],
                      tmp_path / "session.wav")
    audio = read_wav(wav)
    peak = float(np.max(np.abs(audio)))
    write_wav(wav, np.clip(audio / peak * 10 ** (20 / 20), -1.0, 1.0).astype(np.float32), RATE)
    run = subprocess.run(
        [*VOICE_REF, "--config", str(config), "play", "--input", str(wav), "--json",
         "--silent", "--state-dir", str(tmp_path / "state")],
        capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stderr
    warnings = [line for line in run.stderr.splitlines() if "the speech clips" in line]
    assert len(warnings) == 1, run.stderr
    assert warnings[0].startswith("voice-ref: warning: microphone, 3 of the last 3 utterances")
    assert all(json.loads(line) for line in run.stdout.splitlines())
