"""scripts/apt-sources.sh: the Debian archives the debootstrapping scripts take from apt's own
sources (so the repository names no archive host), run by the real bash on sample trees."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "apt-sources.sh"

DEB822 = """\
Types: deb-src
URIs: http://src.example.invalid/debian
Suites: bookworm
Components: main

Types: deb
# http://commented.example.invalid/debian
URIs: http://disabled.example.invalid/debian
Suites: bookworm
Enabled: no

Types: deb deb-src
URIs: http://mirror.example.invalid/debian/ http://second.example.invalid/debian
Suites: bookworm bookworm-updates
Components: main

Types: deb
URIs: http://mirror.example.invalid/debian-security
Suites: bookworm-security
"""
ONE_LINE = """\
# deb http://commented.example.invalid/debian bookworm main
deb [signed-by=/usr/share/keyrings/x.gpg arch=amd64] https://third.example.invalid/ubuntu noble main
deb http://list.example.invalid/debian trixie main
"""


def _run(function: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", f'set -euo pipefail; source "$0"; {function} "$@"', str(SCRIPT), *map(str, args)],
        capture_output=True, text=True, timeout=30, check=False,
    )


@pytest.fixture
def etc_apt(tmp_path: Path) -> Path:
    (tmp_path / "sources.list.d").mkdir()
    (tmp_path / "sources.list.d" / "debian.sources").write_text(DEB822)
    (tmp_path / "sources.list.d" / "other.list").write_text(ONE_LINE)
    (tmp_path / "sources.list.d" / "ignored.list.disabled").write_text("deb http://no.invalid/debian x y\n")
    return tmp_path


def test_enabled_binary_sources_are_listed_in_apt_order(etc_apt):
    result = _run("apt_source_uris", etc_apt)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "http://mirror.example.invalid/debian/",
        "http://second.example.invalid/debian",
        "http://mirror.example.invalid/debian-security",
        "https://third.example.invalid/ubuntu",
        "http://list.example.invalid/debian",
    ]


@pytest.mark.parametrize(
    ("name", "uri"),
    [
        ("debian", "http://mirror.example.invalid/debian"),
        ("debian-security", "http://mirror.example.invalid/debian-security"),
    ],
)
def test_the_first_archive_of_a_name_is_chosen(etc_apt, name, uri):
    result = _run("debian_archive", name, etc_apt)
    assert (result.returncode, result.stdout) == (0, uri + "\n")


def test_no_archive_of_that_name_is_exit_1_and_nothing_printed(tmp_path):
    (tmp_path / "sources.list").write_text(ONE_LINE.replace("/debian ", "/debian-ports "))
    result = _run("debian_archive", "debian", tmp_path)
    assert (result.returncode, result.stdout) == (1, "")


def test_the_engine_and_toolchain_scripts_take_their_archive_from_it():
    scripts = SCRIPT.parent
    for name in ("container-engine.sh", "swift-toolchain.sh"):
        text = (scripts / name).read_text()
        assert "apt-sources.sh" in text and "debian_archive debian" in text, name
