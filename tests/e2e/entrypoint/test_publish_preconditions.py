"""Publish mode checks every precondition before the push, and reports a push whatever follows.

`entrypoint.py` in a fresh process, publishing to a bare origin by path. Today the action
pushes first and only then finds `.swiftpm-guard` unusable (a symlink, a file), a report path
that cannot be replaced, or a step summary it cannot append to: exit 2, no outputs, and a
branch on the remote that no output mentions. The checks exist
(`sinks.files.prepare_output_dir`, `sinks.actions_io.report_push`, tested in
tests/hostile/test_output_preconditions.py); calling them is action_publish's part.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.action_repo import Served, served
from support.actions_env import (
    FRAMEWORKS_FROM,
    REPOSITORY,
    make_origin,
    run_entrypoint,
)
from support.fake_github import FakeGitHub
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, all_names, write_zip
from support.runner_job import Job

TOKEN = "ghs_e2ePreconditionToken012345"
NIGHTLY = "1.2.3.20250101"


@pytest.fixture
def repo(tmp_path: Path, fake_github: FakeGitHub) -> Iterator[Served]:
    with served("path", make_origin(tmp_path / "remote"), tmp_path / "srv", TOKEN) as made:
        fake_github.add_repo(REPOSITORY, git_dir=made.bare)
        fake_github.add_token(TOKEN)
        yield made


def _publish(tmp_path: Path, repo: Served, fake: FakeGitHub, spoil) -> tuple:
    workspace = repo.clone("main", tmp_path / "workspace")
    out = workspace / "out"
    out.mkdir()
    for name in all_names([*PRODUCT_KEYS, *BINARY_ONLY_KEYS]):
        write_zip(out / f"{name}-{NIGHTLY}.zip", name)
    step = Job(tmp_path, fake.url, served=repo).step(
        workspace, sha=repo.origin.main,
        inputs={
            "github-token": TOKEN,
            "mode": "publish",
            "version": NIGHTLY,
            "artifacts": "out",
            "frameworks-from": FRAMEWORKS_FROM,
        })
    spoil(workspace, step)
    return run_entrypoint(step, workspace), step


def _error_line(result) -> str:
    errors = [ln for ln in result.stdout.splitlines() if ln.startswith("::error ")]
    assert len(errors) == 1, result.stdout + result.stderr
    return errors[0]


def _link_out(workspace: Path, step) -> None:
    elsewhere = workspace.parent / "elsewhere"
    elsewhere.mkdir()
    (workspace / ".swiftpm-guard").symlink_to(elsewhere, target_is_directory=True)


def _a_file(workspace: Path, step) -> None:
    (workspace / ".swiftpm-guard").write_text("not a folder\n")


def _report_is_a_folder(workspace: Path, step) -> None:
    (workspace / ".swiftpm-guard" / "report.json").mkdir(parents=True)


def _summary_is_a_folder(workspace: Path, step) -> None:
    os.unlink(step.summary_file)
    step.summary_file.mkdir()


@pytest.mark.parametrize(
    ("spoil", "named"),
    [
        (_link_out, ".swiftpm-guard"),
        (_a_file, ".swiftpm-guard"),
        (_report_is_a_folder, ".swiftpm-guard/report.json"),
        (_summary_is_a_folder, "step_summary"),
    ],
    ids=["output-folder-symlink", "output-folder-file", "report-is-a-folder", "summary-folder"],
)
def test_an_unusable_output_is_found_before_the_push(
    tmp_path: Path, repo: Served, fake_github: FakeGitHub, spoil, named: str
) -> None:
    result, step = _publish(tmp_path, repo, fake_github, spoil)
    assert result.returncode == 2, result.stdout + result.stderr
    assert named in _error_line(result)
    assert repo.heads() == {}, "pushed before finding the output unusable"
    assert "pushed=true" not in step.output_file.read_text()


def test_a_push_with_usable_outputs_still_reports_everything(
    tmp_path: Path, repo: Served, fake_github: FakeGitHub
) -> None:
    """The control: the same run with nothing spoiled pushes and says so."""
    result, step = _publish(tmp_path, repo, fake_github, lambda workspace, step: None)
    assert result.returncode == 0, result.stdout + result.stderr
    outputs = step.outputs()
    assert outputs["pushed"] == "true" and repo.heads() == {outputs["branch"]: repo.heads()[
        outputs["branch"]
    ]}


@pytest.fixture
def http_repo(tmp_path: Path, fake_github: FakeGitHub) -> Iterator[Served]:
    with served("http", make_origin(tmp_path / "remote"), tmp_path / "srv", TOKEN) as made:
        fake_github.add_repo(REPOSITORY, git_dir=made.bare)
        fake_github.add_token(TOKEN)
        yield made


def test_a_push_is_reported_whatever_fails_after_it(
    tmp_path: Path, http_repo: Served, fake_github: FakeGitHub
) -> None:
    """The remote's post-receive hook turns `.swiftpm-guard` into a file the moment the push
    lands (after every check could pass): the run may fail, but the outputs say pushed=true
    with the branch, and the log names branch and commit."""

    def spoil_after_push(workspace: Path, step) -> None:
        hook = http_repo.bare / "hooks" / "post-receive"
        hook.parent.mkdir(exist_ok=True)
        target = workspace / ".swiftpm-guard"
        hook.write_text(f"#!/bin/sh\nrm -rf '{target}'\necho spoiled > '{target}'\n")
        hook.chmod(0o755)

    result, step = _publish(tmp_path, http_repo, fake_github, spoil_after_push)
    heads = http_repo.heads()
    assert len(heads) == 1, result.stdout + result.stderr
    ((branch, commit),) = heads.items()
    assert (tmp_path / "workspace" / ".swiftpm-guard").is_file(), "the hook did not run"
    outputs = step.outputs()
    assert outputs.get("pushed") == "true" and outputs.get("branch") == branch, (
        result.stdout + result.stderr
    )
    assert f"pushed {branch} at {commit}" in result.stdout
