"""Which Spanish voice the announcer picks, from fake lists of installed voices."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from voice_ref.voice.voices import (
    Voice,
    VoiceKind,
    _native_language,
    choose_voice,
    espeak_voices,
    mbrola_data_exists,
    mbrola_drops_sounds,
    mbrola_voices,
)

# What `espeak-ng --voices=es` prints on Debian bookworm (MBROLA definitions included).
LISTING = """Pty Language       Age/Gender VoiceName          File                 Other Languages
 3  es-es           --/F      spanish-mbrola-3   mb/mb-es3            (es 3)
 5  es              --/M      Spanish_(Spain)    roa/es
 5  es-419          --/M      Spanish_(Latin_America) roa/es-419           (es-mx 6)(es 6)
 7  es-es           --/M      spanish-mbrola-2   mb/mb-es2            (es 7)
 7  es-mx           --/M      mexican-mbrola-2   mb/mb-mx2            (es 8)
"""

NATIVE_MX = Voice(VoiceKind.NATIVE, "com.apple.voice.Paulina", "Paulina", "es-mx")
NATIVE_ES = Voice(VoiceKind.NATIVE, "com.apple.voice.Monica", "Mónica", "es-es")
MB_ES2 = Voice(VoiceKind.MBROLA, "mb-es2", "spanish-mbrola-2", "es-es")
MB_MX2 = Voice(VoiceKind.MBROLA, "mb-mx2", "mexican-mbrola-2", "es-mx")
MX2_GAPS = Voice(VoiceKind.MBROLA, "mb-mx2", "mexican-mbrola-2", "es-mx", drops_sounds=True)
ES_419 = Voice(VoiceKind.ESPEAK, "es-419", "Spanish (Latin America)", "es-419")
ES = Voice(VoiceKind.ESPEAK, "es", "Spanish (Spain)", "es")


@pytest.mark.parametrize(
    ("found", "configured", "chosen"),
    [
        ([ES, ES_419], "auto", ES_419),  # espeak-ng only: Latin American first
        ([ES_419, MB_ES2], "auto", MB_ES2),  # an MBROLA voice beats espeak-ng
        ([MB_ES2, MB_MX2, ES_419], "auto", MB_MX2),  # Latin American MBROLA first
        ([ES_419, MB_MX2, NATIVE_ES], "auto", NATIVE_ES),  # a system voice beats MBROLA
        ([NATIVE_ES, NATIVE_MX], "AUTO", NATIVE_MX),
        ([MX2_GAPS, ES_419], "auto", ES_419),  # a voice that drops sounds comes last
        ([MX2_GAPS, MB_ES2, ES_419], "auto", MB_ES2),  # ... behind a whole MBROLA voice
        ([MX2_GAPS, ES_419], "mb-mx2", MX2_GAPS),  # ... but is spoken with when configured
        ([ES_419, MB_ES2], "es-419", ES_419),  # a configured voice always wins
        ([NATIVE_MX, ES_419], "paulina", NATIVE_MX),  # by name, any case
        ([], "auto", ES_419),  # nothing listed: espeak-ng's es-419
        ([ES_419], "es+f3", Voice(VoiceKind.ESPEAK, "es+f3", "es+f3", "es")),  # tried as given
        ([ES_419], "mb-es1", Voice(VoiceKind.MBROLA, "mb-es1", "mb-es1", "es")),
    ],
)
def test_the_most_natural_spanish_voice_is_chosen(found, configured, chosen):
    assert choose_voice(found, configured) == chosen


def test_mbrola_voices_count_only_with_their_data_installed():
    installed = {"es2"}
    assert mbrola_voices(LISTING, installed.__contains__, have_mbrola=True) == [MB_ES2]
    assert mbrola_voices(LISTING, installed.__contains__, have_mbrola=False) == []
    assert mbrola_voices(LISTING, lambda _db: False, have_mbrola=True) == []


def test_mbrola_voices_are_marked_when_they_drop_sounds():
    both = {"es2", "mx2"}.__contains__
    assert mbrola_voices(LISTING, both, True, {"mb-mx2"}.__contains__) == [MB_ES2, MX2_GAPS]


def _fake_espeak(folder: Path, stderr: str, code: int = 0) -> None:
    exe = folder / "espeak-ng"
    exe.write_text(f"#!/bin/sh\nprintf '%s' '{stderr}' >&2\nexit {code}\n")
    exe.chmod(0o755)


@pytest.mark.parametrize(
    ("stderr", "code", "drops"),
    [
        # What espeak-ng 1.51 + mbrola-mx2 print for "Dudo. Le toca a Beto ..." (Debian 12).
        ("mbrola: Warning: d-o/ unknown, replaced with _-_\n", 0, True),
        ("", 0, False),  # every diphone found
        ("", 1, True),  # the voice could not be spoken at all
    ],
)
def test_a_probe_line_finds_voices_that_drop_sounds(tmp_path, monkeypatch, stderr, code, drops):
    _fake_espeak(tmp_path, stderr, code)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert mbrola_drops_sounds("mb-mx2") is drops


def test_without_espeak_ng_no_mbrola_voice_can_be_probed(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert mbrola_drops_sounds("mb-es2") is True


def test_espeak_voices_leave_out_mbrola_definitions():
    assert espeak_voices(LISTING) == [ES, ES_419]


def test_mbrola_data_is_found_in_either_layout(tmp_path: Path):
    (tmp_path / "es2").mkdir()
    (tmp_path / "es2" / "es2").write_bytes(b"x")
    (tmp_path / "mx2").write_bytes(b"x")
    assert mbrola_data_exists("es2", [tmp_path]) and mbrola_data_exists("mx2", [tmp_path])
    assert not mbrola_data_exists("es1", [tmp_path])


@pytest.mark.parametrize(
    ("voice", "language"),
    [
        (SimpleNamespace(id="x", name="Paulina", languages=["es_MX"]), "es-mx"),
        (SimpleNamespace(id="x", name="Monica", languages=[b"\x05es_ES"]), "es-es"),
        (SimpleNamespace(id=r"HKEY\...\TTS_MS_ES-MX_SABINA_11.0", name="Microsoft Sabina",
                         languages=[]), "es-mx"),
        (SimpleNamespace(id="x", name="Alex", languages=["en_US"]), "en-us"),
    ],
)
def test_native_voice_languages_are_read_from_any_driver(voice, language):
    assert _native_language(voice) == language


def test_say_list_shows_the_voices_found_and_the_one_in_use(capsys):
    from voice_ref.cli import main as cli_main

    assert cli_main(["say", "--list"]) == 0
    out = capsys.readouterr().out
    assert "Spanish voices found" in out and "In use: " in out
    assert "es-419" in out  # espeak-ng is installed on every machine the tests run on
    assert cli_main(["say"]) == 2  # no sentence and no --list: explained, not a traceback


def test_say_list_warns_when_the_configured_voice_drops_sounds(capsys, monkeypatch):
    from voice_ref.voice import announcer

    monkeypatch.setattr(announcer, "installed_voices", lambda: [MX2_GAPS, ES_419])
    assert announcer.list_voices("mb-mx2") == 0
    out = capsys.readouterr().out
    assert "In use: mb-mx2" in out and "Warning: mb-mx2 leaves gaps" in out
    assert announcer.list_voices("auto") == 0
    out = capsys.readouterr().out
    assert "In use: es-419" in out and "Warning" not in out
    assert "mb-mx2" in out and "not chosen automatically" in out
