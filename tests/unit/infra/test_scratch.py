"""The run's private temporary folder (issue 32): under the fixed base, never $TMPDIR; mode
0700 and ours; `tempfile`'s folder and the TMPDIR of what we start while the run lasts; gone
after, with the caller's TMPDIR back."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from swiftpm_guard.errors import InfrastructureError
from swiftpm_guard.infra.scratch import BASE, PREFIX, private_tempdir


def test_the_folder_is_private_and_is_the_runs_temporary_folder(tmp_path, monkeypatch):
    job_tmp = tmp_path / "job-tmp"
    job_tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(job_tmp))
    with private_tempdir() as folder:
        info = folder.lstat()
        assert folder.parent == Path(BASE) and folder.name.startswith(PREFIX)
        assert stat.S_ISDIR(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o700
        assert info.st_uid == os.geteuid()
        assert tempfile.gettempdir() == str(folder)
        with tempfile.TemporaryDirectory() as inner:
            assert Path(inner).parent == folder
        child = subprocess.run([sys.executable, "-c", "import os; print(os.environ['TMPDIR'])"],
                               capture_output=True, text=True, check=True, timeout=30)
        assert child.stdout.strip() == str(folder)
    assert not folder.exists()
    assert os.environ["TMPDIR"] == str(job_tmp)
    assert list(job_tmp.iterdir()) == []


def test_the_folder_goes_when_the_run_fails(monkeypatch):
    monkeypatch.delenv("TMPDIR", raising=False)
    with pytest.raises(RuntimeError), private_tempdir() as folder:
        (folder / "left").write_text("x")
        raise RuntimeError("boom")
    assert not folder.exists() and "TMPDIR" not in os.environ


def test_a_base_that_cannot_hold_it_is_exit_3(tmp_path):
    with pytest.raises(InfrastructureError, match="cannot make a private temporary folder"), \
            private_tempdir(str(tmp_path / "missing")):
        pass
