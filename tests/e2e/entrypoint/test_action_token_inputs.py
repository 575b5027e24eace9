"""Issue 32, the smaller items: the tokens' masks are escaped as the runner unescapes them, and
github-token is validated like push-token (one line, exit 2, never quoted).

`entrypoint.py` as the container runs it, against the fake GitHub API; the log is read with
the runner's own rules (support/runner_commands.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.actions_env import (
    FRAMEWORKS_FROM,
    REPOSITORY,
    clone,
    make_origin,
    push_payload,
    run_entrypoint,
    runner_env,
)
from support.fake_github import FakeGitHub
from support.runner_commands import commands_in


def _check(tmp_path: Path, fake: FakeGitHub, token: str):
    origin = make_origin(tmp_path / "remote")
    fake.add_repo(REPOSITORY, git_dir=origin.bare)
    workspace = clone(origin, "main", tmp_path / "workspace")
    step = runner_env(tmp_path, api_url=fake.url, workspace=workspace, event_name="push",
                      payload=push_payload(ref="refs/heads/main", before="0" * 40,
                                           after=origin.main),
                      sha=origin.main, ref="refs/heads/main",
                      inputs={"frameworks-from": FRAMEWORKS_FROM, "github-token": token})
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
