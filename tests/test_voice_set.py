"""tools/make_voice_set.py: DEV lines said again by another synthesizer (a fake pico2wave
here), with one split's noises only, at the label's level and SNR."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from tool_loader import load_tool

from voice_ref.simulation.render import active_power
from voice_ref.voice.audio_in import read_wav, write_wav

RATE = 16000

# Says every line as a 440 Hz tone, 0.1 s per character, after 0.1 s of low hiss.
FAKE_PICO = """#!{python}
import sys, numpy as np
sys.path.insert(0, {root!r})
from voice_ref.voice.audio_in import write_wav
args = sys.argv[1:]
assert args[:2] == ["-l", "es-ES"] and args[2] == "-w", args
t = np.arange(int(16000 * 0.1 * len(args[4]))) / 16000
hiss = np.full(1600, 2e-4, np.float32)
write_wav(args[3], np.concatenate([hiss, 0.3 * np.sin(2 * np.pi * 440 * t)]), 16000)
"""


def _sine(hz: float, seconds: float = 2.0) -> np.ndarray:
    t = np.arange(int(RATE * seconds)) / RATE
    return (0.1 * np.sin(2 * np.pi * hz * t)).astype(np.float32)


def _dev_like(src: Path) -> list[dict]:
    (src / "wav").mkdir(parents=True)
    labels = [
        {"file": "wav/dev_0001.wav", "category": "noise_only", "noise": "tap", "snr": None,
         "text": "", "intent": {"type": "none"}},  # odd: held out
        {"file": "wav/dev_0002.wav", "category": "noise_only", "noise": "tap", "snr": None,
         "text": "", "intent": {"type": "none"}},  # even: tuning
        {"file": "wav/dev_0003.wav", "category": "bid", "voice": "es+m1", "noise": "tap",
         "snr": 6, "level_dbfs": -24.0, "text": "cinco quinas", "rate": 150,
         "intent": {"type": "bid", "quantity": 5, "face": 5}},
        {"file": "wav/dev_0004.wav", "category": "dudo", "voice": "es+f4", "noise": None,
         "snr": None, "level_dbfs": -30.0, "text": "dudo", "intent": {"type": "dudo"}},
    ]
    labels += [  # more noisy lines: each must get the held-out noise
        {**labels[2], "file": f"wav/dev_00{n}.wav"} for n in range(10, 16)
    ]
    write_wav(src / labels[0]["file"], _sine(300), RATE)
    write_wav(src / labels[1]["file"], _sine(4000), RATE)
    for label in labels[2:]:
        write_wav(src / label["file"], _sine(1000, 1.0), RATE)
    (src / "labels.jsonl").write_text("".join(json.dumps(x) + "\n" for x in labels))
    return labels


def _install_fake_pico(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exe = folder / "pico2wave"
    root = str(Path(__file__).resolve().parents[1])
    exe.write_text(FAKE_PICO.format(python=sys.executable, root=root))
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", str(folder))


@pytest.mark.parametrize(("split", "noise_hz"), [("heldout", 300), ("tuning", 4000)])
def test_each_line_is_said_again_at_its_level_with_one_splits_noise(
        tmp_path, monkeypatch, split, noise_hz):  # noqa: ANN001
    src, out, bin_dir = tmp_path / "dev", tmp_path / "pico", tmp_path / "bin"
    bin_dir.mkdir()
    labels = _dev_like(src)
    _install_fake_pico(bin_dir, monkeypatch)
    assert load_tool("make_voice_set").main([str(src), str(out), "--split", split]) == 0
    made = [json.loads(x) for x in (out / "labels.jsonl").read_text().splitlines()]
    assert [x["file"] for x in made] == [x["file"] for x in labels[2:]]  # no noise-only clips
    for label, new in zip(labels[2:], made, strict=True):
        assert (new["text"], new["intent"]) == (label["text"], label["intent"])
        assert (new["voice"], new["split"]) == ("pico-es-ES", split)
        assert "rate" not in new  # espeak-ng's speed of the DEV clip, not Pico's
        clip = read_wav(out / new["file"], RATE)
        start, end = round(new["speech_start"] * RATE), round(new["speech_end"] * RATE)
        assert end - start == pytest.approx(0.1 * len(label["text"]) * RATE, abs=2)  # hiss cut
        assert 0.25 * RATE <= start <= 0.5 * RATE
        if label["noise"] is None:  # the noisy one: speech + noise, checked by its SNR below
            speech_db = 10 * np.log10(active_power(clip[start:end]))
            assert speech_db == pytest.approx(label["level_dbfs"], abs=0.2)
    for new in (x for x in made if x["noise"]):
        noisy = read_wav(out / new["file"], RATE)
        start, end = round(new["speech_start"] * RATE), round(new["speech_end"] * RATE)
        lead = noisy[:start]
        noise_power = float(np.mean(lead**2))  # (speech + noise) / noise = 10^0.6 + 1 at 6 dB
        assert active_power(noisy[start:end]) / noise_power == pytest.approx(10**0.6 + 1, rel=0.1)
        peak_hz = np.fft.rfftfreq(len(lead), 1 / RATE)[np.argmax(np.abs(np.fft.rfft(lead)))]
        assert peak_hz == pytest.approx(noise_hz, abs=10)
    clean = read_wav(out / made[1]["file"], RATE)  # "dudo": no noise under it
    assert not clean[: round(made[1]["speech_start"] * RATE)].any()


def test_without_pico2wave_the_tool_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    _dev_like(tmp_path / "dev")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SystemExit):
        load_tool("make_voice_set").main([str(tmp_path / "dev"), str(tmp_path / "out")])
    assert "apt install libttspico-utils" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
