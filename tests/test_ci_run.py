"""`.ci/run`'s apt step: a stock Debian image lists only `main`, and the MBROLA voices of
the measured adapted model are in contrib / non-free (BENCHMARKS.md, session 39)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

CI_RUN = Path(__file__).resolve().parents[1] / ".ci" / "run"

DEB822 = """Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""
ONE_LINE = """deb http://deb.debian.org/debian bookworm main non-free-firmware
deb http://deb.debian.org/debian-security bookworm-security main
deb http://apt.example.org/repo stable main
"""


def _enable(*files: Path) -> int:
    """Run the script's own `enable_contrib_non_free` on `files`; its exit status."""
    script = CI_RUN.read_text()
    function = re.search(r"^enable_contrib_non_free\(\) \{.*?^\}$", script, re.S | re.M)
    assert function is not None, ".ci/run no longer defines enable_contrib_non_free"
    call = f"{function.group(0)}\nenable_contrib_non_free {' '.join(map(str, files))}"
    return subprocess.run(["bash", "-c", call], capture_output=True).returncode


def test_main_only_sources_get_contrib_and_non_free_once(tmp_path: Path) -> None:
    deb822, one_line = tmp_path / "debian.sources", tmp_path / "sources.list"
    deb822.write_text(DEB822)
    one_line.write_text(ONE_LINE)
    assert _enable(deb822, one_line, tmp_path / "missing.list") == 0
    assert "Components: main contrib non-free\n" in deb822.read_text()
    assert one_line.read_text().splitlines() == [
        "deb http://deb.debian.org/debian bookworm main contrib non-free non-free-firmware",
        "deb http://deb.debian.org/debian-security bookworm-security main contrib non-free",
        "deb http://apt.example.org/repo stable main",  # not Debian's archive: left alone
    ]
    before = (deb822.read_text(), one_line.read_text())
    assert _enable(deb822, one_line) == 1  # nothing left to change: no apt update
    assert (deb822.read_text(), one_line.read_text()) == before
