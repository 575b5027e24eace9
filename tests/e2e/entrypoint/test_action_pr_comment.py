"""Input pr-comment: `entrypoint.py` run as the runner runs it, against the fake GitHub.

A pull request checked three times: the first run comments, a second with the same findings
leaves the comment alone, a third whose change brings another problem edits the same comment
in place. A fork's pull request (read-only token) gets no comment, a notice that names the
permission, and the check run's fallback. Without the input the conversation is never read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.actions_env import (
    FRAMEWORKS_FROM,
    REPOSITORY,
    WORKFLOW,
    Origin,
    clone,
    commit_all,
    git,
    make_origin,
    pull_request_payload,
    run_entrypoint,
)
from support.fake_github import READ, FakeGitHub
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, workflow_text
from support.runner_job import Job

TOKEN = "ghs_e2eCommentWriteToken0123456"
READ_TOKEN = "ghs_e2eCommentReadToken01234567"
ALL_KEYS = [*PRODUCT_KEYS, *BINARY_ONLY_KEYS]
PULL = 21


@pytest.fixture
def origin(tmp_path: Path, fake_github: FakeGitHub) -> Origin:
    made = make_origin(tmp_path / "remote")
    fake_github.add_repo(REPOSITORY, git_dir=made.bare)
    fake_github.add_token(TOKEN)
    fake_github.add_token(READ_TOKEN, READ)
    fake_github.add_pull(REPOSITORY, PULL)
    return made


def _check(tmp: Path, origin: Origin, fake: FakeGitHub, added: list[str], *, token: str = TOKEN,
           head_repo: str = REPOSITORY, comment: str | None = "true"):
    """One run of the check on the pull request whose workflow also builds `added`."""
    tmp.mkdir()
    workspace = clone(origin, "main", tmp / "workspace")
    git(workspace, "checkout", "-q", "-b", "change-frameworks")
    (workspace / WORKFLOW).write_text(workflow_text([*ALL_KEYS, *added]))
    head = commit_all(workspace, "build more")
    git(workspace, "checkout", "-q", "--detach", origin.main)
    git(workspace, "merge", "-q", "--no-ff", "-m", "Merge head into base", head)
    payload = pull_request_payload(number=PULL, head_sha=head, head_ref="change-frameworks",
                                   base_ref="main", base_sha=origin.main, head_repo=head_repo)
    inputs = {"frameworks-from": FRAMEWORKS_FROM, "github-token": token}
    if comment is not None:
        inputs["pr-comment"] = comment
    step = Job(tmp, fake.url).step(
        workspace, "pull_request", payload, sha=git(workspace, "rev-parse", "HEAD"),
        ref=f"refs/pull/{PULL}/merge", inputs=inputs)
    result = run_entrypoint(step, workspace)
    assert result.returncode == 1, result.stdout + result.stderr  # the change brings an error
    return step, result


def _writes(fake: FakeGitHub) -> list[str]:
    return [r.operation_id for r in fake.requests
            if r.method != "GET" and r.operation_id.startswith("issues/")]


def test_one_comment_created_left_alone_then_edited_in_place(tmp_path, origin, fake_github):
    _step, first = _check(tmp_path / "1", origin, fake_github, ["kernels_new"])
    [made] = [dict(c) for c in fake_github.comments(REPOSITORY, PULL)]  # as it was then
    run = sorted(fake_github.check_runs.values(), key=lambda r: r["id"])[0]
    lines = made["body"].split("\n")
    assert lines[0].startswith("<!-- swiftpm-guard pr-comment key=") and lines[0].endswith(" -->")
    assert lines[1] == ("### ❌ SwiftPM manifest: kernels\\_new: main builds it; no template "
                        "has its product")
    assert lines[3] == ("Conclusion **failure** for `Package.swift.template` · "
                        f"[the check run](<{run['html_url']}>)")
    assert lines[5] == "#### Findings"
    assert "`unclaimed-artifact`" in made["body"] and "kernels\\_new\\_debug" not in lines[1]
    assert lines[-2] == ("<sub>swiftpm-guard edits this comment in place when its findings "
                         "change.</sub>")
    assert f"pull-request comment created: {made['html_url']}" in first.stdout + first.stderr
    assert _writes(fake_github) == ["issues/create-comment"]

    _check(tmp_path / "2", origin, fake_github, ["kernels_new"])
    assert _writes(fake_github) == ["issues/create-comment"]  # same findings: no edit
    assert [c["body"] for c in fake_github.comments(REPOSITORY, PULL)] == [made["body"]]

    step, third = _check(tmp_path / "3", origin, fake_github, ["kernels_new", "kernels_other"])
    assert _writes(fake_github) == ["issues/create-comment", "issues/update-comment"]
    [edited] = fake_github.comments(REPOSITORY, PULL)
    assert edited["id"] == made["id"] and edited["edits"] == 1
    assert "kernels\\_other" in edited["body"] and edited["body"] != made["body"]
    assert edited["body"].split("\n")[0] != lines[0]  # a new findings digest, the same key
    assert edited["body"].split("\n")[0].split(" findings=")[0] == lines[0].split(" findings=")[0]
    assert "pull-request comment updated" in third.stdout + third.stderr
    assert "No pull-request comment" not in step.summary()
    assert len(fake_github.check_runs) == 3  # the check run itself is unchanged by the input


def test_a_copied_marker_in_someone_else_s_comment_is_never_edited(tmp_path, origin,
                                                                    fake_github):
    from swiftpm_guard.report.pr_comment import guard_key

    key = guard_key("SwiftPM manifest", "Package.swift.template")
    copied = f"<!-- swiftpm-guard pr-comment key={key} findings={'0' * 16} -->\nall fine\n"
    reviewer = {"login": "reviewer", "id": 4242, "type": "User"}
    fake_github.add_comment(REPOSITORY, PULL, copied, user=reviewer)

    _check(tmp_path / "1", origin, fake_github, ["kernels_new"])
    theirs, made = fake_github.comments(REPOSITORY, PULL)
    assert (theirs["body"], theirs["edits"]) == (copied, 0)
    assert made["user"]["login"] == "github-actions[bot]" and made["user"]["type"] == "Bot"

    _check(tmp_path / "2", origin, fake_github, ["kernels_new", "kernels_other"])
    assert _writes(fake_github) == ["issues/create-comment", "issues/update-comment"]
    theirs, edited = fake_github.comments(REPOSITORY, PULL)
    assert (theirs["body"], theirs["edits"]) == (copied, 0)
    assert edited["id"] == made["id"] and edited["edits"] == 1
    # The job's token is an installation token: GitHub refuses it GET /user, so its
    # comments are github-actions[bot]'s.
    assert [r.authorization for r in fake_github.calls("users/get-authenticated")] == [
        f"token {TOKEN}"] * 2
    assert fake_github.violations == []


def test_a_fork_gets_no_comment_and_the_check_runs_fallback(tmp_path, origin, fake_github):
    step, result = _check(tmp_path / "1", origin, fake_github, ["kernels_new"],
                          token=READ_TOKEN, head_repo="forker/executorch")
    assert fake_github.comments(REPOSITORY, PULL) == []
    assert [c.status for c in fake_github.calls("issues/create-comment")] == [403]
    assert fake_github.check_runs == {}
    notices = [line for line in result.stdout.splitlines() if line.startswith("::notice")]
    assert len(notices) == 2  # the check run's fallback, then the comment's
    assert "read-only token" in notices[0]
    assert "cannot write pull-request comments" in notices[1]
    assert "pull-requests: write" in notices[1]
    assert [line for line in result.stdout.splitlines() if line.startswith("::error")]
    summary = step.summary()
    assert "No pull-request comment: the token cannot write pull" in summary
    assert "kernels_new" in summary  # the whole report is there instead


@pytest.mark.parametrize("given", [None, "false"])
def test_off_by_default_the_conversation_is_never_read(tmp_path, origin, fake_github, given):
    _check(tmp_path / "1", origin, fake_github, ["kernels_new"], comment=given)
    assert [r for r in fake_github.requests if r.operation_id.startswith("issues/")] == []
    assert len(fake_github.check_runs) == 1
