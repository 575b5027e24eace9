"""The package as PyPI gets it: `python -m build` makes an sdist and a wheel that pass
`twine check --strict`; the wheel holds every module and the package data; installed into a
clean virtualenv it runs the demo (examples/demo.sh) and `python -m swiftpm_guard`."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import swiftpm_guard

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "swiftpm_guard"
VERSION = swiftpm_guard.__version__


def _run(argv: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False,
                          **kwargs)
    assert done.returncode == 0, f"{argv}: {done.stdout[-3000:]}{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """Built from a copy of the repository's files, so the build leaves nothing in it."""
    source = tmp_path_factory.mktemp("source")
    listed = _run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others",
                   "--exclude-standard"]).stdout
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file() and not name.startswith(("tests/", "fuzz/")):
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            (source / name).write_bytes((ROOT / name).read_bytes())
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--outdir", str(out), str(source)])
    return out


def _package_files() -> set[str]:
    """Every file the package needs at run time: its modules and its data (py.typed)."""
    return {str(p.relative_to(SRC.parent)) for p in SRC.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}


def test_sdist_and_wheel_pass_twine_check(dist):
    wheel = dist / f"swiftpm_guard-{VERSION}-py3-none-any.whl"
    sdist = dist / f"swiftpm_guard-{VERSION}.tar.gz"
    assert sorted(p.name for p in dist.iterdir()) == sorted([sdist.name, wheel.name])
    _run([sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)])


def test_the_wheel_holds_every_module_and_the_package_data(dist):
    with zipfile.ZipFile(dist / f"swiftpm_guard-{VERSION}-py3-none-any.whl") as wheel:
        names = set(wheel.namelist())
        metadata = wheel.read(f"swiftpm_guard-{VERSION}.dist-info/METADATA").decode()
        entry_points = wheel.read(f"swiftpm_guard-{VERSION}.dist-info/entry_points.txt").decode()
    missing = _package_files() - names
    assert not missing, f"not in the wheel: {sorted(missing)}"
    assert "swiftpm_guard/py.typed" in names
    assert "swiftpm-guard = swiftpm_guard.cli.main:run" in entry_points
    assert "Description-Content-Type: text/markdown" in metadata
    assert "Provides-Extra: github" in metadata
    with tarfile.open(dist / f"swiftpm_guard-{VERSION}.tar.gz") as sdist:
        sdist_names = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
    assert {f"src/{name}" for name in _package_files()} <= sdist_names


def test_the_wheel_in_a_clean_virtualenv_runs_the_demo(dist, tmp_path):
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    python = venv / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
          str(dist / f"swiftpm_guard-{VERSION}-py3-none-any.whl")])
    where = _run([str(python), "-I", "-c", "import swiftpm_guard; print(swiftpm_guard.__file__)"],
                 cwd=tmp_path).stdout.strip()
    assert where.startswith(str(venv)), where  # the installed copy, not this checkout
    demo = _run(["bash", str(ROOT / "examples" / "demo.sh"), str(venv / "bin" / "swiftpm-guard")],
                cwd=tmp_path)
    assert "consistent for 1.0.0" in demo.stdout, demo.stdout
    assert "blocked as expected (exit 1, nothing written)" in demo.stdout, demo.stdout
    assert (tmp_path / "demo-out" / "Package.swift").is_file()
    codes = _run([str(python), "-I", "-m", "swiftpm_guard", "codes"], cwd=tmp_path).stdout
    assert "unfilled-placeholder" in codes
