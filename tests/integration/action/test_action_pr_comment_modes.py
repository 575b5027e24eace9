"""Input pr-comment in-process (waits injected) against the fake API: when no comment is
written, the log and the job summary say why, and the verdict never depends on it."""

from __future__ import annotations

import time

import pytest

from support.actions_env import (
    FRAMEWORKS_FROM,
    REPOSITORY,
    WORKFLOW,
    clone,
    commit_all,
    git,
    make_origin,
    pull_request_payload,
    push_payload,
)
from support.fake_github import FakeGitHub
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, workflow_text
from support.runner_job import Job
from swiftpm_guard.action import main as action
from swiftpm_guard.infra.github import RetryPolicy

TOKEN = "ghs_commentInProcess"
ALL_KEYS = [*PRODUCT_KEYS, *BINARY_ONLY_KEYS]
PULL = 31


def _policy() -> RetryPolicy:
    waited: list[float] = []
    return RetryPolicy(attempts=3, sleep=waited.append, monotonic=time.monotonic,
                       request_timeout=1, seconds_between_writes=None, log=lambda line: None)


def _step(tmp_path, fake: FakeGitHub, *, event: str = "pull_request", **inputs: str):
    origin = make_origin(tmp_path / "remote")
    fake.add_repo(REPOSITORY, git_dir=origin.bare)
    fake.add_token(TOKEN)
    fake.add_pull(REPOSITORY, PULL)
    workspace = clone(origin, "main", tmp_path / "workspace")
    (workspace / WORKFLOW).write_text(workflow_text([*ALL_KEYS, "kernels_new"]))
    head = commit_all(workspace, "build kernels_new")
    if event == "pull_request":
        git(workspace, "checkout", "-q", "--detach", origin.main)
        git(workspace, "merge", "-q", "--no-ff", "-m", "Merge head into base", head)
        payload = pull_request_payload(number=PULL, head_sha=head, head_ref="topic",
                                       base_ref="main", base_sha=origin.main)
        ref = f"refs/pull/{PULL}/merge"
    else:
        payload = push_payload(ref="refs/heads/main", before=origin.main, after=head)
        ref = "refs/heads/main"
    given = {"frameworks-from": FRAMEWORKS_FROM, "pr-comment": "true", **inputs}
    return Job(tmp_path, fake.url).step(
        workspace, event, payload, sha=git(workspace, "rev-parse", "HEAD"), ref=ref, inputs=given)


def _issue_calls(fake: FakeGitHub) -> list[str]:
    return [r.operation_id for r in fake.requests if (r.operation_id or "").startswith("issues/")]


@pytest.mark.parametrize(("inputs", "why"), [
    ({"github-token": TOKEN, "dry-run": "true"}, "dry-run: no pull-request comment was written"),
    ({}, "no github-token: no pull-request comment was written"),
], ids=["dry-run", "no-token"])
def test_no_comment_is_said_in_the_log_and_the_summary(tmp_path, fake_github, capsys, inputs,
                                                       why):
    step = _step(tmp_path, fake_github, **inputs)
    assert action.main(step.env, policy=_policy()) == 1
    out = capsys.readouterr().out
    assert _issue_calls(fake_github) == [] and fake_github.check_runs == {}
    assert f"::notice title=swiftpm-guard::{why}" in out.splitlines()
    assert f"> No pull-request comment: {why}." in step.summary()


def test_a_push_has_no_conversation(tmp_path, fake_github, capsys):
    step = _step(tmp_path, fake_github, event="push", **{"github-token": TOKEN})
    assert action.main(step.env, policy=_policy()) == 1
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert _issue_calls(fake_github) == [] and len(fake_github.check_runs) == 1
    assert "pull-request comment" not in out and "pull-request comment" not in step.summary()


def test_a_server_that_keeps_failing_is_a_warning_and_the_verdict_stands(tmp_path, fake_github,
                                                                       capsys):
    fake_github.inject("issues/create-comment", "500", times=100)
    step = _step(tmp_path, fake_github, **{"github-token": TOKEN})
    assert action.main(step.env, policy=_policy()) == 1
    out = capsys.readouterr().out
    assert [r.status for r in fake_github.calls("issues/create-comment")] == [500, 500, 500]
    warnings = [line for line in out.splitlines()
                if line.startswith("::warning title=swiftpm-guard::")]
    assert len(warnings) == 1
    assert warnings[0].endswith(f"the pull-request comment could not be written: comment on pull "
                                f"request #{PULL}: gave up after 3 attempt(s) (server error 500; "
                                "budget 300s): HTTP 500: Server Error")
    assert len(fake_github.check_runs) == 1 and step.outputs()["consistent"] == "false"
    assert fake_github.comments(REPOSITORY, PULL) == []
