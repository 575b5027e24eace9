"""Which swift the Docker action runs: the image's, by its absolute path (`image_swift`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from swiftpm_guard.infra.swift_locate import IMAGE_SWIFT, image_swift

ROOT = Path(__file__).resolve().parents[3]


def _executable(path: Path) -> Path:
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_auto_is_the_images_swift_by_its_path_or_off(tmp_path):
    planted = _executable(tmp_path / "swift")
    assert image_swift("auto", str(planted)) == str(planted)
    assert image_swift("auto", str(tmp_path / "absent")) == "off"
    assert image_swift("auto", str(tmp_path)) == "off"  # a folder is no swift
    (tmp_path / "plain").write_text("")
    assert image_swift("auto", str(tmp_path / "plain")) == "off"  # nor a file it cannot run
    # What the user chose stays theirs (validated later, as input swift).
    assert image_swift("off", str(planted)) == "off"
    assert image_swift("/some/swift", str(planted)) == "/some/swift"
    assert IMAGE_SWIFT == "/usr/bin/swift"  # where Debian's swiftlang puts it (Dockerfile)


_PROBE = """
import os, runpy, sys
import swiftpm_guard.action.main as entry
entry.main = lambda env: print(env["PATH"], env.get("INPUT_SWIFT")) or 0
sys.argv = [ENTRYPOINT, *sys.argv[1:]]
runpy.run_path(ENTRYPOINT, run_name="__main__")
"""


def _entrypoint(tmp_path: Path, *args: str, **env: str) -> str:
    """entrypoint.py as the image or the composite action starts it, main() replaced by a
    probe that prints the PATH and input swift main() would have read."""
    probe = f"ENTRYPOINT = {str(ROOT / 'entrypoint.py')!r}\n{_PROBE}"
    given = {"PATH": str(tmp_path), "PYTHONPATH": str(ROOT / "src"), **env}
    done = subprocess.run([sys.executable, "-c", probe, *args], env=given, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_in_the_image_path_is_the_systems_and_swift_auto_never_the_jobs(tmp_path):
    _executable(tmp_path / "swift")  # on the job's PATH
    expected = IMAGE_SWIFT if os.access(IMAGE_SWIFT, os.X_OK) else "off"
    path, swift = _entrypoint(tmp_path, "--image", INPUT_SWIFT="auto").split()
    assert path == "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    assert swift == expected
    assert _entrypoint(tmp_path, "--image").split()[1] == expected  # input left to default
    # A step's `with: args` come after the ENTRYPOINT's --image.
    assert _entrypoint(tmp_path, "--image", "extra", INPUT_SWIFT="auto").split()[1] == expected
    given = str(_executable(tmp_path / "chosen"))
    assert _entrypoint(tmp_path, "--image", INPUT_SWIFT=given).split()[1] == given


def test_the_composite_action_keeps_the_jobs_path_and_input(tmp_path):
    assert _entrypoint(tmp_path, INPUT_SWIFT="auto").split() == [str(tmp_path), "auto"]
