"""`voice-ref models download`: the real download code path, served locally.

No internet here: each test builds a small zip with a Vosk model's layout and serves
it from a file:// URL or an HTTP server on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import hashlib
import http.server
import threading
import zipfile
from pathlib import Path

import pytest

from voice_ref.voice.vosk_model import (
    KNOWN_ARCHIVES,
    ArchiveInfo,
    DownloadError,
    ModelMissingError,
    download_model,
    main_download,
    model_problems,
    require_model,
)

NAME = "vosk-model-tiny-test"
LAYOUT = {
    "am/final.mdl": b"acoustic model",
    "conf/model.conf": b"--beam=10.0\n",
    "graph/HCLr.fst": b"hclr",
    "graph/Gr.fst": b"gr",
    "README": b"test model\n",
}


def make_zip(path: Path, files: dict[str, bytes] = LAYOUT, top: str | None = NAME) -> ArchiveInfo:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(f"{top}/{name}" if top else name, data)
    data = path.read_bytes()
    return ArchiveInfo(size=len(data), sha256=hashlib.sha256(data).hexdigest())


def leftovers(models_dir: Path) -> list[str]:
    return sorted(p.name for p in models_dir.iterdir() if p.name.startswith("."))


@pytest.fixture
def served(tmp_path):
    """An HTTP server on 127.0.0.1 serving tmp_path/www; yields its base URL."""
    www = tmp_path / "www"
    www.mkdir()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kw):
            super().__init__(*args, directory=str(www), **kw)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield www, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_http_download_verifies_and_installs(tmp_path, served):
    www, base = served
    info = make_zip(www / f"{NAME}.zip")
    models = tmp_path / "models"
    path = download_model(NAME, models, url=f"{base}{NAME}.zip", expected=info, progress=False)
    assert path == models / NAME
    assert model_problems(path) == []
    assert (path / "am" / "final.mdl").read_bytes() == LAYOUT["am/final.mdl"]
    assert leftovers(models) == []
    assert require_model(path) == path


def test_file_url_and_archive_with_files_at_top_level(tmp_path):
    archive = tmp_path / "flat.zip"
    info = make_zip(archive, top=None)
    models = tmp_path / "models"
    path = download_model(NAME, models, url=archive.as_uri(), expected=info, progress=False)
    assert sorted(p.name for p in path.iterdir()) == ["README", "am", "conf", "graph"]


def test_archive_folder_with_another_name_is_installed_under_the_model_name(tmp_path):
    archive = tmp_path / "m.zip"
    make_zip(archive, top="something-else")
    path = download_model(NAME, tmp_path / "models", url=archive.as_uri(), progress=False)
    assert path.name == NAME and model_problems(path) == []


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        (lambda info: ArchiveInfo(info.size + 1, info.sha256), "expected"),
        (lambda info: ArchiveInfo(info.size, "0" * 64), "SHA-256"),
    ],
)
def test_size_or_checksum_mismatch_installs_nothing(tmp_path, served, tamper, message):
    www, base = served
    info = make_zip(www / f"{NAME}.zip")
    models = tmp_path / "models"
    with pytest.raises(DownloadError, match=message):
        download_model(NAME, models, url=f"{base}{NAME}.zip", expected=tamper(info), progress=False)
    assert not (models / NAME).exists()
    assert leftovers(models) == []


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda p: p.write_bytes(b"this is not a zip"), "not a zip"),
        (lambda p: make_zip(p, {"am/final.mdl": b"x"}), "does not contain a Vosk model"),
        (lambda p: make_zip(p, {"../escape.txt": b"x", **LAYOUT}, top=None), "unsafe path"),
    ],
)
def test_bad_archives_are_refused(tmp_path, build, message):
    archive = tmp_path / "bad.zip"
    build(archive)
    models = tmp_path / "models"
    with pytest.raises(DownloadError, match=message):
        download_model(NAME, models, url=archive.as_uri(), progress=False)
    assert not (models / NAME).exists()
    assert not (tmp_path / "escape.txt").exists()
    assert leftovers(models) == []


def test_unreachable_address_is_a_clear_error(tmp_path):
    missing = (tmp_path / "nowhere.zip").as_uri()
    with pytest.raises(DownloadError, match="cannot download"):
        download_model(NAME, tmp_path / "models", url=missing, progress=False)


def test_installed_model_is_not_downloaded_again(tmp_path):
    archive = tmp_path / "m.zip"
    make_zip(archive)
    models = tmp_path / "models"
    first = download_model(NAME, models, url=archive.as_uri(), progress=False)
    archive.unlink()  # a second download would now fail
    assert download_model(NAME, models, url=archive.as_uri(), progress=False) == first


def test_incomplete_earlier_install_is_replaced(tmp_path):
    models = tmp_path / "models"
    (models / NAME / "am").mkdir(parents=True)
    (models / NAME / "am" / "partial").write_bytes(b"half")
    assert model_problems(models / NAME)
    archive = tmp_path / "m.zip"
    make_zip(archive)
    path = download_model(NAME, models, url=archive.as_uri(), progress=False)
    assert model_problems(path) == []
    assert not (path / "am" / "partial").exists()


def test_missing_model_message_names_the_command(tmp_path):
    with pytest.raises(ModelMissingError, match="voice-ref models download") as err:
        require_model(tmp_path / "vosk-model-small-es-0.42")
    assert "not installed" in str(err.value)


def test_official_archive_is_pinned():
    info = KNOWN_ARCHIVES["vosk-model-small-es-0.42"]
    assert info.size == 39_817_833
    assert len(info.sha256) == 64 and int(info.sha256, 16) >= 0


def _config(tmp_path: Path) -> Path:
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[asr]\nvosk_model = "models/{NAME}"\n', encoding="utf-8")
    return cfg


def test_command_installs_next_to_the_configured_model(tmp_path, capsys):
    archive = tmp_path / "m.zip"
    make_zip(archive)
    args = argparse.Namespace(config=str(_config(tmp_path)), name=NAME, url=archive.as_uri())
    assert main_download(args) == 0
    assert model_problems(tmp_path / "models" / NAME) == []
    assert "Installed" in capsys.readouterr().out
    assert main_download(args) == 0
    assert "already installed" in capsys.readouterr().out


def test_command_failure_exits_1_with_the_reason(tmp_path, capsys):
    archive = tmp_path / "broken.zip"
    archive.write_bytes(b"PK broken")
    args = argparse.Namespace(config=str(_config(tmp_path)), name=NAME, url=archive.as_uri())
    assert main_download(args) == 1
    assert "not a zip" in capsys.readouterr().err
    assert not (tmp_path / "models" / NAME).exists()


def test_command_without_internet_gives_the_manual_way(tmp_path, capsys):
    """No connection (here: a closed port) → the official address, where to unpack, and
    that Whisper needs no download."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}/{NAME}.zip"
    args = argparse.Namespace(config=str(_config(tmp_path)), name=NAME, url=closed)
    assert main_download(args) == 1
    err = capsys.readouterr().err
    assert "cannot download" in err and "No internet here?" in err
    assert f"https://alphacephei.com/vosk/models/{NAME}.zip" in err
    assert str(tmp_path / "models" / NAME / "am" / "final.mdl") in err
    assert f"--url /path/to/{NAME}.zip" in err
    assert "Whisper" in err and "offline" in err
    assert not (tmp_path / "models" / NAME).exists()


def test_command_takes_a_plain_path_to_a_copied_archive(tmp_path, capsys):
    archive = tmp_path / "copied.zip"
    make_zip(archive)
    args = argparse.Namespace(config=str(_config(tmp_path)), name=NAME, url=str(archive))
    assert main_download(args) == 0
    assert model_problems(tmp_path / "models" / NAME) == []
