"""Jinja filters and globals that raise: the real error and the template line, no stray output.

`truncate(0)` raises an AssertionError and `cycler()` a RuntimeError. Both escaped the render's
list of expected exceptions, killed the forked child with multiprocessing's own
`Process ForkProcess-1:` traceback on stderr, and the parent said "rendering died (killed or
out of memory)". The CLI runs in a fresh process here, so whatever the child writes to the
real stderr is seen.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from support.release import Release

RAISING = [
    # (template body line, what the one line must say)
    ('{{ "abc" | truncate(0) }}', "AssertionError"),
    ("{{ cycler() }}", "RuntimeError"),
    ('{{ "x" | wordwrap(0) }}', "ValueError"),
    ("{{ [1, 2] | map('truncate', 0) | list }}", "AssertionError"),
    ('{{ "%d" % "x" }}', "TypeError"),
    ("{{ cycler().next() }}", "RuntimeError"),
    ('{{ "a" | indent(width=none) }}', "Error"),
    ("{{ range(3) | slice(0) | list }}", "ZeroDivisionError"),
]


def run_cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "swiftpm_guard", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(("body", "says"), RAISING)
def test_a_raising_filter_is_reported_with_its_error_and_line(
    release: Release, tmp_path: Path, body: str, says: str
) -> None:
    template = tmp_path / "Package.swift.j2"
    template.write_text('let version = "{{ version }}"\n// two\n' + body + "\n")
    done = run_cli(
        tmp_path,
        "check",
        "--template",
        str(template),
        "--version",
        release.version,
        "--checksums",
        str(release.checksums),
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert "Process" not in done.stderr and "Traceback" not in done.stderr
    assert "died" not in done.stderr
    assert f"{template}:3:" in lines[0], lines[0]
    assert says in lines[0]


def _raise_runtime(text: str) -> str:
    raise RuntimeError(text)


def _exit(code: int) -> None:
    raise SystemExit(code)


@pytest.mark.parametrize(("function", "arg", "says"), [
    (_raise_runtime, "boom", "RuntimeError: boom"),
    (_exit, 7, "SystemExit: 7"),
])
def test_whatever_escapes_the_child_is_relayed_not_printed(
    capfd: pytest.CaptureFixture[str], function, arg, says: str
) -> None:
    from swiftpm_guard.errors import InputError
    from swiftpm_guard.infra.bounded import call_isolated

    with pytest.raises(InputError) as raised:
        call_isolated(function, arg, file="t.j2", seconds=30)
    assert str(raised.value) == f"t.j2: rendering failed: {says}"
    out, err = capfd.readouterr()
    assert out == "" and err == "", err
