"""Which Spanish voice speaks: the most natural one installed, unless config names one.

espeak-ng's own voices are easy to install everywhere but hard to follow at a noisy table.
Better voices exist on most machines and are used when found, in this order:

1. the system's own voices through pyttsx3's native drivers (macOS NSSpeechSynthesizer,
   Windows SAPI5), which are recorded human voices;
2. MBROLA Spanish voices through espeak-ng (Linux: Debian's `mbrola-es2`, `mbrola-mx2`, ...
   in contrib/non-free); espeak-ng lists their definitions even when the voice data is
   missing, so a voice counts only when its data file is on disk;
3. espeak-ng's own Spanish (`es-419`, then `es`).

An MBROLA voice that drops sounds comes last: espeak-ng 1.51 (Debian 12, Raspberry Pi OS
bookworm) maps some Spanish phonemes ("o/", "e/", diphthongs) to diphones the MBROLA
databases do not have, and MBROLA says silence instead ("Le toca a Beto" comes out as
"Toka beat"; BENCHMARKS.md, session 27). A short probe line finds out (`mbrola_drops_sounds`).

Within a kind, Latin American Spanish comes before Spain's (the game is played in Chile,
Peru and Bolivia). Discovery is split from choice so the choice is tested with fake lists.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path

AUTO = "auto"
MBROLA_DIRS = (Path("/usr/share/mbrola"), Path("/usr/local/share/mbrola"), Path("/usr/lib/mbrola"))
DROPS_SOUNDS_NOTE = "(drops sounds with this espeak-ng: not chosen automatically)"
# A line a referee says, with the sounds espeak-ng 1.51 cannot hand to MBROLA's Spanish
# databases: stressed and final "o"/"e", the diphthong of "hay", "tr".
PROBE_LINE = "Dudo. Le toca a Beto: ¿cuántas quinas hay? Quedan tres dados."
_LATIN_AMERICA = ("es-419", "es-mx", "es-us", "es-vz", "es-ar", "es-cl", "es-co", "es-pe")


class VoiceKind(IntEnum):
    """How a voice is rendered; a lower value sounds more natural."""

    NATIVE = 0  # pyttsx3's platform driver (nsss, sapi5)
    MBROLA = 1  # espeak-ng front end + MBROLA diphones
    ESPEAK = 2  # espeak-ng formant synthesis

    @property
    def label(self) -> str:
        return {0: "system", 1: "mbrola", 2: "espeak-ng"}[self.value]


@dataclass(frozen=True, slots=True)
class Voice:
    """One installed voice. `ident` is what its engine is given (a pyttsx3 voice id, or an
    espeak-ng voice name such as "mb-es2" / "es-419")."""

    kind: VoiceKind
    ident: str
    name: str
    language: str  # "es-mx", "es-es", "es-419", ... lower case
    drops_sounds: bool = False  # renders some sounds as silence (`mbrola_drops_sounds`)

    @property
    def latin_american(self) -> bool:
        return self.language.startswith(_LATIN_AMERICA)

    def rank(self) -> tuple[bool, int, int, str]:
        return (self.drops_sounds, int(self.kind), 0 if self.latin_american else 1, self.ident)

    def describe(self) -> str:
        line = f"{self.ident:<12} {self.kind.label:<10} {self.language:<7} {self.name}"
        return f"{line}  {DROPS_SOUNDS_NOTE}" if self.drops_sounds else line


def choose_voice(found: Iterable[Voice], configured: str = AUTO) -> Voice:
    """The voice to speak with: the configured one, else the most natural one found.

    A configured name that was not found is still tried as an espeak-ng voice (espeak-ng
    knows voices it does not list, e.g. "es+f3")."""
    voices = sorted(found, key=Voice.rank)
    wanted = configured.strip()
    if wanted and wanted.casefold() != AUTO:
        for voice in voices:
            if wanted.casefold() in (voice.ident.casefold(), voice.name.casefold()):
                return voice
        kind = VoiceKind.MBROLA if wanted.startswith("mb-") else VoiceKind.ESPEAK
        return Voice(kind, wanted, wanted, "es")
    if voices:
        return voices[0]
    return Voice(VoiceKind.ESPEAK, "es-419", "Spanish (Latin America)", "es-419")


def ranked(found: Iterable[Voice]) -> list[Voice]:
    return sorted(found, key=Voice.rank)


# ------------------------------------------------------------------------------ discovery


def installed_voices(platform: str = sys.platform) -> list[Voice]:
    """Every Spanish voice this machine can speak with (best effort, never raises)."""
    voices: list[Voice] = []
    if platform in ("darwin", "win32"):
        voices += native_voices()
    listing = _espeak_listing("es")
    have_mbrola = shutil.which("mbrola") is not None
    voices += mbrola_voices(listing, mbrola_data_exists, have_mbrola, mbrola_drops_sounds)
    voices += espeak_voices(listing)
    return voices


def native_voices() -> list[Voice]:
    """Spanish voices of pyttsx3's default driver (macOS / Windows only)."""
    try:
        import pyttsx3

        engine = pyttsx3.init()
        listed = engine.getProperty("voices")
    except Exception:  # no driver, no voices: the other kinds remain
        return []
    out = []
    for v in listed:
        language = _native_language(v)
        if language.startswith("es"):
            out.append(Voice(VoiceKind.NATIVE, str(v.id), str(v.name), language))
    return out


def _native_language(voice: object) -> str:
    """pyttsx3 voices carry languages as str, bytes or a list of either, or only in the id."""
    langs = getattr(voice, "languages", None) or []
    for lang in langs if isinstance(langs, list | tuple) else [langs]:
        text = lang.decode(errors="ignore") if isinstance(lang, bytes) else str(lang)
        text = text.strip("\x05\x00 ").replace("_", "-").lower()
        if text:
            return text
    ident = f"{getattr(voice, 'id', '')} {getattr(voice, 'name', '')}".lower()
    if "es-mx" in ident or "es_mx" in ident or "mexic" in ident:
        return "es-mx"
    if "es-es" in ident or "es_es" in ident or "spanish" in ident or "español" in ident:
        return "es-es"
    return ""


def espeak_program() -> str | None:
    """The espeak-ng program (or the older espeak), None when neither is installed."""
    return shutil.which("espeak-ng") or shutil.which("espeak")


def _espeak_listing(language: str) -> str:
    exe = espeak_program()
    if exe is None:
        return ""
    try:
        run = subprocess.run(
            [exe, f"--voices={language}"], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return run.stdout


def parse_espeak_voices(listing: str) -> list[tuple[str, str, str]]:
    """`espeak-ng --voices=es` -> (language, name, file) per voice line."""
    rows = []
    for line in listing.splitlines()[1:]:
        cols = line.split()
        if len(cols) >= 5:
            rows.append((cols[1].lower(), cols[3], cols[4]))
    return rows


def mbrola_voices(
    listing: str,
    data_exists: Callable[[str], bool],
    have_mbrola: bool,
    drops_sounds: Callable[[str], bool] = lambda _ident: False,
) -> list[Voice]:
    """The MBROLA Spanish voices whose data is installed (`mb/mb-es2` needs `es2`), each
    marked when it drops sounds (`drops_sounds(ident)`)."""
    if not have_mbrola:
        return []
    out = []
    for language, name, file in parse_espeak_voices(listing):
        if not file.startswith("mb/") or not language.startswith("es"):
            continue
        ident = file.removeprefix("mb/")
        if data_exists(ident.removeprefix("mb-")):
            out.append(Voice(VoiceKind.MBROLA, ident, name, language, drops_sounds(ident)))
    return out


def mbrola_drops_sounds(ident: str) -> bool:
    """Whether espeak-ng + MBROLA say `PROBE_LINE` with sounds missing: MBROLA warns
    "Warning: d-o/ unknown, replaced with _-_" for each diphone it replaces by silence.
    A voice that cannot be probed at all counts as dropping sounds."""
    exe = espeak_program()
    if exe is None:
        return True
    try:
        run = subprocess.run(
            [exe, "-v", ident, "--stdout", PROBE_LINE],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return True
    return run.returncode != 0 or "unknown" in run.stderr.casefold()


def espeak_voices(listing: str) -> list[Voice]:
    """espeak-ng's own Spanish voices (not the MBROLA definitions)."""
    out = []
    for language, name, file in parse_espeak_voices(listing):
        if file.startswith("mb/") or not language.startswith("es"):
            continue
        out.append(Voice(VoiceKind.ESPEAK, language, name.replace("_", " "), language))
    return out


def mbrola_data_exists(database: str, dirs: Sequence[Path] = MBROLA_DIRS) -> bool:
    """Whether an MBROLA database ("es2") is installed: `<dir>/es2/es2` or `<dir>/es2`."""
    return any((d / database / database).is_file() or (d / database).is_file() for d in dirs)
