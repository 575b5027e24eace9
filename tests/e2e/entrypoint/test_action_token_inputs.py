"""Issue 32, the smaller items: the tokens' masks are escaped as the runner unescapes them,
github-token is validated like push-token (one line, exit 2, never quoted), and nothing the
action writes into the workspace is left owned by another user than the workspace's.

`entrypoint.py` as the container runs it, against the fake GitHub API; the log is read with
the runner's own rules (support/runner_commands.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from support.actions_env import (
    FRAMEWORKS_FROM,
    REPOSITORY,
    clone,
    make_origin,
    push_payload,
    run_entrypoint,
)
from support.fake_github import FakeGitHub
from support.runner_commands import commands_in
from support.runner_job import Job


def _check(tmp_path: Path, fake: FakeGitHub, token: str):
    origin = make_origin(tmp_path / "remote")
    fake.add_repo(REPOSITORY, git_dir=origin.bare)
    workspace = clone(origin, "main", tmp_path / "workspace")
    step = Job(tmp_path, fake.url).step(
        workspace, "push",
        push_payload(ref="refs/heads/main", before="0" * 40,
                     after=origin.main),
        sha=origin.main, inputs={"frameworks-from": FRAMEWORKS_FROM, "github-token": token})
    return workspace, step


@pytest.mark.parametrize("token", ["ghs_e2e%25Mask0123456789", "ghs_e2e%0AMask0123456789",
                                   "ghs_e2e%0DMask%Mask0123456789"])
def test_the_mask_is_the_token_as_the_runner_reads_it(tmp_path, fake_github, token):
    fake_github.add_token(token)
    workspace, step = _check(tmp_path, fake_github, token)
    result = run_entrypoint(step, workspace)
    assert result.returncode == 0, result.stdout + result.stderr
    masks = [c.data for c in commands_in(result.stdout).executed if c.name == "add-mask"]
    assert masks == [token]  # the runner masks exactly the token, not an unescaped cousin
    assert fake_github.only_check_run()["conclusion"] == "success"


@pytest.mark.parametrize("token", ["ghs_e2eLine\nBreak0123456789", "ghs_e2eLatin\u0151x0123",
                                   "ghs_e2e Space0123456789"])
def test_a_github_token_that_cannot_be_a_header_is_exit_2_and_never_quoted(
        tmp_path, fake_github, token):
    workspace, step = _check(tmp_path, fake_github, token)
    result = run_entrypoint(step, workspace)
    assert result.returncode == 2, result.stdout + result.stderr
    executed = commands_in(result.stdout).executed
    errors = [c for c in executed if c.name == "error"]
    assert len(errors) == 1, result.stdout
    assert errors[0].data.startswith("the token in input github-token must be printable ASCII")
    pieces = [piece for piece in token.replace(" ", "\n").splitlines() if len(piece) > 4]
    for line in (result.stdout + result.stderr).splitlines():
        if not line.startswith("::add-mask::"):
            assert not any(piece in line for piece in pieces), line
    assert fake_github.requests == []  # refused before any request
    assert "Traceback" not in result.stderr



def _owned_by_another(tmp_path: Path, fake: FakeGitHub) -> list[str]:
    """A check as root in a workspace whose every path is uid 1001's: the paths that are not."""
    token = "ghs_e2eOwnerToken0123456789"
    fake.add_token(token)
    workspace, step = _check(tmp_path, fake, token)
    for path in [workspace, *workspace.rglob("*")]:
        os.chown(path, 1001, 1001, follow_symlinks=False)
    result = run_entrypoint(step, workspace)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (workspace / ".swiftpm-guard" / "report.json").is_file()
    return [str(path.relative_to(workspace)) for path in [workspace, *workspace.rglob("*")]
            if path.lstat().st_uid != 1001 or path.lstat().st_gid != 1001]


@pytest.fixture
def as_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to run as the action's container does")


def test_nothing_the_action_writes_in_the_workspace_belongs_to_another_user(
        tmp_path, fake_github, as_root):
    """The runner's checkout belongs to its user (uid 1001 here); the action's container runs
    as root. Our reports and manifest are handed to the workspace's owner."""
    assert [p for p in _owned_by_another(tmp_path, fake_github)
            if p != ".git" and not p.startswith(".git/")] == []


def test_nothing_in_the_clones_git_folder_belongs_to_another_user(tmp_path, fake_github,
                                                                  as_root):
    assert _owned_by_another(tmp_path, fake_github) == []
