"""Issue 32: inputs come from the runner only, and only events no pull request's code can reach
publish.

`entrypoint.py` as the container runs it, against a real origin (bare repository by path) and
the fake GitHub API. Each test would push `swiftpm-1.2.3` if the guard failed; each asserts
the branch is absent, the exit code and the one-line notice that says why.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.action_repo import Served, served
from support.actions_env import (
    REPOSITORY,
    ROOT,
    dispatch_payload,
    make_origin,
    pull_request_payload,
    run_entrypoint,
)
from support.fake_github import FakeGitHub
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, all_names, write_zip
from support.runner_job import Job
from swiftpm_guard.action.settings import INPUTS as DECLARED

TOKEN = "ghs_e2eEventsToken0123456789"
VERSION = "1.2.3"
BRANCH = f"swiftpm-{VERSION}"
INPUTS = {"version": VERSION, "artifacts": "out", "author": "Bot <bot@example.org>"}


@pytest.fixture
def repo(tmp_path: Path, fake_github: FakeGitHub) -> Iterator[Served]:
    with served("path", make_origin(tmp_path / "remote"), tmp_path / "srv", TOKEN) as made:
        fake_github.add_repo(REPOSITORY, git_dir=made.bare)
        fake_github.add_token(TOKEN)
        yield made


def _workspace(tmp_path: Path, repo: Served, branch: str = "main") -> Path:
    workspace = repo.clone(branch, tmp_path / "workspace")
    (workspace / "out").mkdir()
    for name in all_names([*PRODUCT_KEYS, *BINARY_ONLY_KEYS]):
        write_zip(workspace / "out" / f"{name}-{VERSION}.zip", name)
    return workspace


def _step(tmp_path: Path, fake: FakeGitHub, repo: Served, workspace: Path, event: str,
          payload: dict, inputs: dict[str, str], ref: str = "refs/heads/main"):
    (tmp_path / "step").mkdir(exist_ok=True)
    step = Job(tmp_path / "step", fake.url).step(
        workspace, event, payload, sha=repo.origin.main, ref=ref,
        inputs={"github-token": TOKEN, **inputs})
    for name, default in DECLARED.items():  # the runner passes every declared input
        step.env.setdefault(f"INPUT_{name.upper()}", default)
    return repo.point(step)


def _notices(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("::notice")]


# -- inputs: the underscore spelling only where the runner's hyphenated one is absent ---------


def test_an_underscore_input_in_the_job_env_does_not_fill_an_empty_input(tmp_path, repo,
                                                                         fake_github):
    """A dispatch on feature/x, with `INPUT_PUBLISH_REFS=feature/*` in the job's environment
    and the runner's empty `INPUT_PUBLISH-REFS`: checked only, nothing pushed."""
    workspace = _workspace(tmp_path, repo)
    ref = "refs/heads/feature/x"
    step = _step(tmp_path, fake_github, repo, workspace, "workflow_dispatch",
                 dispatch_payload({}, ref=ref), {**INPUTS, "publish-refs": ""}, ref=ref)
    assert step.env["INPUT_PUBLISH-REFS"] == ""  # the runner passes every declared input
    step.env["INPUT_PUBLISH_REFS"] = "feature/*"
    step.env["INPUT_DRY_RUN"] = "true"  # and one more the job would like
    result = run_entrypoint(step, workspace)
    assert result.returncode == 0, result.stdout + result.stderr
    assert BRANCH not in repo.heads()
    reason = step.outputs()["not-pushed-reason"]
    assert f"`{ref}` is not a ref publish-refs allows" in reason
    assert _notices(result.stdout) == [f"::notice title=swiftpm-guard::{reason}"]


def test_the_composite_action_reads_only_its_own_underscore_inputs(tmp_path, repo, fake_github):
    """The composite's step sets INPUT_PUBLISH_REFS itself (empty); the job's environment holds
    `INPUT_PUBLISH-REFS=feature/*`. entrypoint.py --composite ignores the hyphenated one."""
    workspace = _workspace(tmp_path, repo)
    ref = "refs/heads/feature/x"
    step = _step(tmp_path, fake_github, repo, workspace, "workflow_dispatch",
                 dispatch_payload({}, ref=ref), {}, ref=ref)
    step.env = {key.replace("-", "_") if key.startswith("INPUT_") else key: value
                for key, value in step.env.items()}
    step.env.update({f"INPUT_{k.upper().replace('-', '_')}": v for k, v in INPUTS.items()})
    step.env["INPUT_PUBLISH_REFS"] = ""
    step.env["INPUT_PUBLISH-REFS"] = "feature/*"
    result = subprocess.run([sys.executable, str(ROOT / "entrypoint.py"), "--composite"],
                            cwd=workspace, env=step.env, capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert BRANCH not in repo.heads()
    assert "is not a ref publish-refs allows" in step.outputs()["not-pushed-reason"]


# -- events: an allow-list, in explicit mode publish too --------------------------------------


def _fork_pull_request(repo: Served) -> dict:
    return pull_request_payload(number=7, head_sha=repo.origin.main, head_ref="patch",
                                base_ref="main", base_sha=repo.origin.main,
                                head_repo="mallory/executorch")


def _issue_comment(repo: Served) -> dict:
    pull = _fork_pull_request(repo)
    return {"action": "created", "repository": pull["repository"],
            "issue": {"number": 7, "pull_request": {"url": "https://api.github.invalid/pulls/7"}},
            "comment": {"body": "/publish"}, "sender": {"login": "mallory"}}


def _workflow_run(repo: Served, event: str, head_repository: str) -> dict:
    pull = _fork_pull_request(repo)
    return {"action": "completed", "repository": pull["repository"],
            "workflow_run": {"id": 4242, "event": event, "conclusion": "success",
                             "head_branch": "patch", "head_sha": repo.origin.main,
                             "head_repository": {"full_name": head_repository}}}


@pytest.mark.parametrize(("event", "payload", "expected"), [
    ("issue_comment", _issue_comment, "mode publish on a `issue_comment` event: checked only"),
    ("pull_request_target", _fork_pull_request,
     "mode publish on a `pull_request_target` event: checked only"),
    ("workflow_run", lambda repo: _workflow_run(repo, "pull_request", "mallory/executorch"),
     "mode publish on a `workflow_run` event triggered by a fork's `pull_request`: checked "
     "only"),
    ("workflow_run", lambda repo: _workflow_run(repo, "pull_request", REPOSITORY),
     "mode publish on a `workflow_run` event triggered by `pull_request`: checked only"),
    ("workflow_run", lambda repo: _workflow_run(repo, "push", "mallory/executorch"),
     "mode publish on a `workflow_run` event triggered by a fork's `push`: checked only"),
])
def test_explicit_publish_on_an_event_a_pull_request_reaches_only_checks(
        tmp_path, repo, fake_github, event, payload, expected):
    workspace = _workspace(tmp_path, repo)
    step = _step(tmp_path, fake_github, repo, workspace, event, payload(repo),
                 {**INPUTS, "mode": "publish"})
    result = run_entrypoint(step, workspace)
    assert result.returncode == 0, result.stdout + result.stderr
    assert BRANCH not in repo.heads()  # nothing pushed
    reason = step.outputs()["not-pushed-reason"]
    assert reason.startswith(expected) and "nothing is pushed" in reason
    assert _notices(result.stdout) == [f"::notice title=swiftpm-guard::{reason}"]
    assert step.outputs()["pushed"] == "false"


def test_a_workflow_run_of_a_push_in_this_repository_publishes(tmp_path, repo, fake_github):
    workspace = _workspace(tmp_path, repo)
    step = _step(tmp_path, fake_github, repo, workspace, "workflow_run",
                 _workflow_run(repo, "push", REPOSITORY), {**INPUTS, "mode": "publish"})
    result = run_entrypoint(step, workspace)
    assert result.returncode == 0, result.stdout + result.stderr
    assert BRANCH in repo.heads()
    assert step.outputs()["pushed"] == "true"
