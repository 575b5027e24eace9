"""No environment holds a token: `entrypoint.py` re-executes itself without the token inputs and
takes them back from a pipe (action/token_handover.py).

A manifest SwiftPM compiles and runs is code from the repository: here a stand-in `swift` (input
swift names it; the action runs it exactly where it runs SwiftPM) records its own environment and
the action's, `/proc/<its parent>/environ`, as any program the action starts could. Neither may
hold a token, and the action must still have used the token for the check run."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from support.actions_env import (
    FRAMEWORKS_FROM,
    REPOSITORY,
    ROOT,
    clone,
    make_origin,
    push_payload,
)
from support.fake_github import FakeGitHub
from support.runner_job import Job

TOKEN = "ghs_handoverWriteToken0123456789"
PUSH_TOKEN = "ghp_handoverPushToken0123456789"

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(),
                                reason="needs /proc (Linux)")


def _recording_swift(folder: Path, log: Path) -> Path:
    """A `swift` that records its environment and its parent's, then dumps an empty package."""
    swift = folder / "swift"
    swift.write_text(
        "#!/bin/sh\n"
        f'{{ echo "== parent $PPID"; tr "\\000" "\\n" < /proc/$PPID/environ; '
        f'echo "== self"; env; }} >> "{log}"\n'
        """echo '{"name": "p", "products": [], "targets": []}'\n"""
    )
    swift.chmod(swift.stat().st_mode | stat.S_IXUSR)
    return swift


def test_neither_the_action_nor_what_it_starts_holds_a_token(
        tmp_path: Path, fake_github: FakeGitHub, runner: Job) -> None:
    origin = make_origin(tmp_path / "remote")
    fake_github.add_repo(REPOSITORY, git_dir=origin.bare)
    fake_github.add_token(TOKEN)
    workspace = clone(origin, "main", tmp_path / "workspace")
    log = tmp_path / "environments.txt"
    _step, result = runner.run(
        workspace,
        "push",
        push_payload(ref="refs/heads/main", before="0" * 40, after=origin.main),
        sha=origin.main,
        inputs={"frameworks-from": FRAMEWORKS_FROM, "github-token": TOKEN,
                "push-token": PUSH_TOKEN, "swift": str(_recording_swift(tmp_path, log))},
    )

    assert result.returncode in (0, 1), result.stdout + result.stderr
    recorded = log.read_text()
    assert recorded.count("== parent") >= 1 and "PATH=" in recorded  # the stand-in really ran
    assert TOKEN not in recorded and PUSH_TOKEN not in recorded
    assert "INPUT_GITHUB-TOKEN" not in recorded and "INPUT_PUSH-TOKEN" not in recorded
    # The token still reached the one origin it is for: the check run was posted with it.
    assert fake_github.only_check_run()["status"] == "completed"


def test_a_descriptor_named_by_the_job_is_not_read_as_the_tokens(
        tmp_path: Path, fake_github: FakeGitHub, runner: Job) -> None:
    """SWIFTPM_GUARD_TOKENS_FD set by the job (no token inputs): a standard stream or a pipe
    still open for writing is never taken for the hand-over; the run goes on without tokens."""
    origin = make_origin(tmp_path / "remote")
    fake_github.add_repo(REPOSITORY, git_dir=origin.bare)
    workspace = clone(origin, "main", tmp_path / "workspace")
    step = runner.step(workspace, "push",
                       push_payload(ref="refs/heads/main", before="0" * 40, after=origin.main),
                       sha=origin.main, inputs={"frameworks-from": FRAMEWORKS_FROM})
    reader, writer = os.pipe()  # open at both ends: the old process did not write and close it
    try:
        for number in ("0", "1", str(reader)):
            step.env["SWIFTPM_GUARD_TOKENS_FD"] = number
            result = subprocess.run([sys.executable, str(ROOT / "entrypoint.py")], cwd=workspace,
                                    env=step.env, capture_output=True, text=True, timeout=120,
                                    check=False, pass_fds=(reader,))
            assert result.returncode == 0, (number, result.stdout + result.stderr)
            assert "consistent" in result.stdout, result.stdout
    finally:
        os.close(reader)
        os.close(writer)
