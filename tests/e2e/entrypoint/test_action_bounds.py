"""Issue 32's bounds, through `entrypoint.py` as the container runs it: a payload that is
large but within its cap is read in linear memory, a local zip over the artifact cap is
refused before a byte is hashed, and a server that drips its answer is cut at its deadline.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support.actions_env import (
    FRAMEWORKS_FROM,
    REPOSITORY,
    ROOT,
    Origin,
    Step,
    clone,
    make_origin,
    push_payload,
    run_entrypoint,
)
from support.fake_github import FakeGitHub

TOKEN = "ghs_e2eBoundsToken0123456789"
#: What the entry point may map: Python, the tool and its libraries take about 300 MB of
#: address space; the 3.5 GB the old depth pre-check needed for a 30 MB string is far above.
ADDRESS_SPACE = 1024 * 1024 * 1024


@pytest.fixture
def origin(tmp_path: Path, fake_github: FakeGitHub) -> Origin:
    made = make_origin(tmp_path / "remote")
    fake_github.add_repo(REPOSITORY, git_dir=made.bare)
    fake_github.add_token(TOKEN)
    return made


def _run_capped(step: Step, cwd: Path, address_space: int) -> subprocess.CompletedProcess[str]:
    """`entrypoint.py` in a fresh process whose address space is capped (and its children's)."""
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    return subprocess.run([sys.executable, str(ROOT / "entrypoint.py")], cwd=cwd, env=step.env,
                          capture_output=True, text=True, timeout=120, check=False,
                          preexec_fn=cap)


def test_a_30_mb_commit_message_is_read_in_bounded_memory(tmp_path, origin, fake_github, runner):
    workspace = clone(origin, "main", tmp_path / "workspace")
    payload = push_payload(ref="refs/heads/main", before=origin.main, after=origin.main)
    payload["head_commit"]["message"] = "x" * 30_000_000  # inside the 32 MiB payload cap
    step = runner.step(workspace, "push", payload, sha=origin.main,
                       inputs={"frameworks-from": FRAMEWORKS_FROM})
    result = _run_capped(step, workspace, ADDRESS_SPACE)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "MemoryError" not in result.stderr
    assert step.outputs()["consistent"] == "true"


def test_a_sparse_terabyte_zip_is_refused_before_hashing(tmp_path, origin, fake_github, runner):
    from support.release import write_zip

    workspace = clone(origin, "main", tmp_path / "workspace")
    out = workspace / "out"
    out.mkdir()
    write_zip(out / "kernels-1.2.3.zip", "kernels")
    with (out / "huge-1.2.3.zip").open("wb") as sparse:
        sparse.truncate(1 << 40)  # a terabyte that takes no disk
    step = runner.step(
        workspace,
        "workflow_dispatch",
        sha=origin.main,
        inputs={"mode": "check", "version": "1.2.3", "artifacts": "out",
                "frameworks-from": FRAMEWORKS_FROM, "github-token": TOKEN},
    )
    started = time.monotonic()
    result = run_entrypoint(step, workspace)
    took = time.monotonic() - started
    assert result.returncode == 2, result.stdout + result.stderr
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1, result.stdout
    assert "out/huge-1.2.3.zip" in errors[0]
    assert f"zip is {1 << 40} bytes, more than the {16 * 1024**3} bytes" in errors[0]
    assert took < 30, took  # hashing it took about half an hour
