"""`scripts/release.sh --dry-run`'s arguments: what it accepts, and everything that would make
it leave loopback, touch the repository or act as a real release refused before any step
runs (exit 2, one line). The run itself is tests/e2e/test_release_dry_run.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from support.scripts import SCRIPTS, load

dry_run = load("release_dry_run")
ROOT = SCRIPTS.parent


def test_defaults():
    options = dry_run.parse(["1.2.3"])
    assert options == dry_run.Options("1.2.3", "dry-run", None, None, None, None, None)


def test_every_option_in_both_spellings(tmp_path):
    options = dry_run.parse([
        "--owner", "Octo-Org", "--registry=127.0.0.1:5000", "--index", "http://localhost:8080/",
        f"--workdir={tmp_path / 'work'}", "--python", "/usr/bin/python3", "2.0.0",
        "--platforms", "linux/arm64/v8"])
    assert options == dry_run.Options("2.0.0", "octo-org", "127.0.0.1:5000",
                                      "http://localhost:8080", tmp_path / "work",
                                      "/usr/bin/python3", "linux/arm64/v8")


def test_an_empty_workdir_is_taken(tmp_path):
    assert dry_run.parse(["1.0.0", "--workdir", str(tmp_path)]).workdir == tmp_path


@pytest.mark.parametrize("args, message", [
    ([], "exactly one version"),
    (["1.0.0", "1.0.1"], "exactly one version"),
    (["v1.0.0"], "'v1.0.0' is not X.Y.Z"),
    (["1.0"], "'1.0' is not X.Y.Z"),
    (["1.0.0", "--owner", "a b"], "not a registry owner"),
    (["1.0.0", "--owner"], "--owner needs a value"),
    (["1.0.0", "--owner", "a", "--owner", "b"], "--owner given twice"),
    # Off loopback: a real registry or index, or a loopback look-alike.
    (["1.0.0", "--registry", "ghcr.io"], "never leaves loopback"),
    (["1.0.0", "--registry", "ghcr.io:443"], "never leaves loopback"),
    (["1.0.0", "--registry", "127.0.0.1"], "never leaves loopback"),
    (["1.0.0", "--registry", "127.0.0.1.example.invalid:5000"], "never leaves loopback"),
    (["1.0.0", "--registry", "10.0.0.1:5000"], "never leaves loopback"),
    (["1.0.0", "--registry", "127.0.0.1:0"], "never leaves loopback"),
    (["1.0.0", "--index", "https://127.0.0.1:8080"], "never leaves loopback"),
    (["1.0.0", "--index", "http://upload.example.invalid/legacy/"], "never leaves loopback"),
    (["1.0.0", "--index", "http://127.0.0.1:8080/legacy"], "never leaves loopback"),
    (["1.0.0", "--index", "http://user@127.0.0.1:8080"], "never leaves loopback"),
    # What belongs to the real release: the dry run builds, pushes and pins itself.
    (["1.0.0", "--digest", "sha256:" + "a" * 64], "--digest is not for a dry run"),
    (["1.0.0", "--from-tag"], "--from-tag is not for a dry run"),
    (["1.0.0", "--push-only"], "--push-only is not for a dry run"),
    (["1.0.0", "--check"], "--check is not for a dry run"),
    (["1.0.0", "--platforms", "windows/amd64"], "linux/<arch>"),
    (["1.0.0", "--bogus"], "unknown option '--bogus'"),
])
def test_refused(args, message):
    with pytest.raises(dry_run.UsageError) as error:
        dry_run.parse(args)
    assert message in str(error.value)


def test_a_workdir_with_files_or_inside_the_repository_is_refused(tmp_path):
    (tmp_path / "left-over").write_text("x")
    with pytest.raises(dry_run.UsageError, match="exists and is not an empty folder"):
        dry_run.parse(["1.0.0", "--workdir", str(tmp_path)])
    with pytest.raises(dry_run.UsageError, match="exists and is not an empty folder"):
        dry_run.parse(["1.0.0", "--workdir", str(tmp_path / "left-over")])
    with pytest.raises(dry_run.UsageError, match="inside the repository"):
        dry_run.parse(["1.0.0", "--workdir", str(ROOT / "dry-run-work")])


def _release_sh(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SCRIPTS / "release.sh"), *args], capture_output=True,
                          text=True, timeout=60, check=False, env={"PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize("args, message", [
    (["--dry-run", "1.0.0", "--registry", "ghcr.io"], "never leaves loopback"),
    (["1.0.0", "--dry-run", "--from-tag"], "--from-tag is not for a dry run"),
    (["--dry-run"], "exactly one version"),
])
def test_release_sh_hands_dry_run_to_the_script_which_refuses_before_any_step(args, message):
    done = _release_sh(*args)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""  # no step started
    assert message in done.stderr and done.stderr.count("\n") == 1, done.stderr


def test_the_dry_run_only_reads_the_repository_it_is_in():
    """Where it takes the release from: the repository holding the script, by path."""
    assert Path(dry_run.REPO) == ROOT
