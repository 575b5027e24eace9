"""`swiftpm-guard rehearse` on a real local clone writes what the action posts: for the same
inputs, its check run, job summary and outputs are those `entrypoint.py` gives the fake GitHub
API and the runner's files; nothing is posted and the origin does not change."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.actions_env import (
    FRAMEWORKS_FROM,
    REPOSITORY,
    ROOT,
    WORKFLOW,
    Origin,
    clone,
    commit_all,
    git,
    make_origin,
    push_payload,
)
from support.fake_github import FakeGitHub
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, all_names, workflow_text, write_zip

TOKEN = "ghs_e2eRehearseToken0123456789"
ALL_KEYS = [*PRODUCT_KEYS, *BINARY_ONLY_KEYS]
VERSION = "1.2.3"


@pytest.fixture
def origin(tmp_path: Path, fake_github: FakeGitHub) -> Origin:
    made = make_origin(tmp_path / "remote")
    fake_github.add_repo(REPOSITORY, git_dir=made.bare)
    fake_github.add_token(TOKEN)
    return made


def _zips(workspace: Path, keys=ALL_KEYS) -> None:
    folder = workspace / "out"
    folder.mkdir()
    for name in all_names(keys):
        write_zip(folder / f"{name}-{VERSION}.zip", name)


def _refs(bare: Path) -> str:
    return git(bare, "for-each-ref", "--format=%(refname) %(objectname)")


def _rehearse(workspace: Path, out: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it in their clone: no runner, no token, no GITHUB_*."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    env["PYTHONPATH"] = str(ROOT / "src")
    return subprocess.run(
        [sys.executable, "-m", "swiftpm_guard", "rehearse", "--clone", str(workspace),
         "--repository", REPOSITORY, "--out", str(out), *options],
        cwd=workspace, env=env, capture_output=True, text=True, timeout=120, check=False)


def _inputs(prefix: str = "") -> list[str]:
    return [f"--input=artifacts={prefix}out", f"--input=frameworks-from={FRAMEWORKS_FROM}",
            "--input=accept-static=true", "--version", VERSION]


def _without_run_address(summary: str) -> str:
    # Only GitHub assigns the check run's id: its address is the one thing that differs.
    return re.sub(r"\(<[^>]*/runs/[^>]*>\)", "(<the check run>)", summary)


def test_rehearsing_a_check_writes_what_the_action_posts(tmp_path, origin, fake_github, runner):
    workspace = clone(origin, "main", tmp_path / "workspace")
    # The workflow declares a framework no template asks for: annotated on the workflow line.
    (workspace / WORKFLOW).write_text(workflow_text([*ALL_KEYS, "kernels_new"]))
    head = commit_all(workspace, "build kernels_new")
    _zips(workspace)
    step, acted = runner.run(
        workspace,
        "push",
        push_payload(ref="refs/heads/main", before=origin.main,
                     after=head),
        sha=head,
        inputs={"github-token": TOKEN, "version": VERSION, "artifacts": "out",
                "frameworks-from": FRAMEWORKS_FROM, "mode": "check"},
    )
    assert acted.returncode == 1, acted.stdout + acted.stderr
    posted = fake_github.only_check_run()
    annotations = fake_github.annotations[posted["id"]]
    assert annotations  # the workflow's lines are annotated: there is something to compare
    reports = {p.name: p.read_bytes() for p in (workspace / ".swiftpm-guard").iterdir()}
    shutil.rmtree(workspace / ".swiftpm-guard")
    before, calls = _refs(origin.bare), len(fake_github.requests)

    out = tmp_path / "rehearsal"
    rehearsed = _rehearse(workspace, out, "--event", "push", "--mode", "check", *_inputs())
    assert rehearsed.returncode == 1, rehearsed.stdout + rehearsed.stderr
    recorded = json.loads((out / "check-run.json").read_text())
    assert recorded["created"] is True and recorded["name"] == posted["name"]
    assert recorded["head_sha"] == posted["head_sha"] == head
    assert recorded["conclusion"] == posted["conclusion"] == "failure"
    for key in ("title", "summary", "text"):
        assert recorded["output"][key] == posted["output"][key], key
    assert recorded["annotations"] == annotations
    assert _without_run_address((out / "summary.md").read_text()) == _without_run_address(
        step.summary())
    outputs = json.loads((out / "outputs.json").read_text())
    assert outputs == {"exit_code": 1, "outputs": {**step.outputs(), "check-run-id": ""}}
    # The reports the action leaves in the workspace are the same bytes.
    assert {p.name: p.read_bytes() for p in (workspace / ".swiftpm-guard").iterdir()} == reports
    # Nothing posted (not one request), nothing pushed.
    assert len(fake_github.requests) == calls and _refs(origin.bare) == before
    assert "nothing posted, nothing pushed" in rehearsed.stdout


def test_rehearsing_publish_is_the_action_s_dry_run_and_pushes_nothing(tmp_path, origin,
                                                                      fake_github, runner):
    workspace = clone(origin, "main", tmp_path / "workspace")
    _zips(workspace)
    before = _refs(origin.bare)
    step, acted = runner.run(
        workspace,
        "workflow_dispatch",
        sha=origin.main,
        inputs={"github-token": TOKEN, "version": VERSION, "artifacts": "out",
                "frameworks-from": FRAMEWORKS_FROM, "mode": "publish",
                "dry-run": "true"},
    )
    assert acted.returncode == 0, acted.stdout + acted.stderr
    assert fake_github.calls("checks/create") == []  # a dry run creates none
    reports = {p.name: p.read_bytes() for p in (workspace / ".swiftpm-guard").iterdir()}
    assert "Package.swift" in reports
    shutil.rmtree(workspace / ".swiftpm-guard")

    out = tmp_path / "rehearsal"
    rehearsed = _rehearse(workspace, out, "--event", "workflow_dispatch", "--mode", "publish",
                          "--server-url", fake_github.url, *_inputs())
    assert rehearsed.returncode == 0, rehearsed.stdout + rehearsed.stderr
    # The same summary, but for where the dry run would have pushed: the action's git goes
    # to the server URL, a rehearsal to the developer's clone's own origin.
    served = f"{fake_github.url}/example/executorch.git"
    pushed_to = f"nothing was pushed to `{served}`"
    assert pushed_to in step.summary()
    assert (out / "summary.md").read_text() == step.summary().replace(
        pushed_to, f"nothing was pushed to `{origin.bare}`").replace(
        "(GITHUB\\_SERVER\\_URL)", "(the clone's origin)")
    outputs = json.loads((out / "outputs.json").read_text())
    assert outputs == {"exit_code": 0, "outputs": step.outputs()}
    assert outputs["outputs"]["pushed"] == "false" and outputs["outputs"]["manifest"]
    assert {p.name: p.read_bytes() for p in (workspace / ".swiftpm-guard").iterdir()} == reports
    # What the check run of the real publish would hold, marked as not created by a dry run.
    recorded = json.loads((out / "check-run.json").read_text())
    assert recorded["created"] is False and "dry-run" in recorded["not_created_because"]
    assert recorded["conclusion"] == "success" and recorded["head_sha"] == origin.main
    assert "Dry run" in recorded["output"]["summary"] or "dry run" in recorded["output"]["summary"]
    assert _refs(origin.bare) == before and not git(origin.bare, "branch", "--list",
                                                       "swiftpm-*")
    assert fake_github.calls("checks/create") == []


def test_a_rehearsal_takes_no_token(tmp_path, origin):
    workspace = clone(origin, "main", tmp_path / "workspace")
    done = _rehearse(workspace, tmp_path / "o", "--event", "push",
                     "--input", "github-token=ghs_x")
    assert done.returncode == 2 and "takes no token" in done.stderr
    assert "ghs_x" not in done.stderr


def test_rehearsing_a_pull_request_reads_the_settings_of_the_default_branch(tmp_path, origin):
    seed = clone(origin, "main", tmp_path / "seed")
    (seed / ".github" / "swiftpm-guard.yml").write_text(
        f"frameworks-from: {FRAMEWORKS_FROM}\ncheck-name: Guard (from main)\n")
    commit_all(seed, "guard settings")
    git(seed, "push", "-q", "origin", "HEAD:main")
    workspace = clone(origin, "main", tmp_path / "workspace")
    git(workspace, "checkout", "-q", "-b", "topic")
    (workspace / ".github" / "swiftpm-guard.yml").write_text("check-name: Guard (from the PR)\n")
    head = commit_all(workspace, "my settings")
    out = tmp_path / "pr"
    done = _rehearse(workspace, out, "--event", "pull_request", "--base", "main",
                     "--input=accept-static=true")
    assert done.returncode == 0, done.stdout + done.stderr
    recorded = json.loads((out / "check-run.json").read_text())
    assert recorded["name"] == "Guard (from main)" and recorded["head_sha"] == head
    event = json.loads((out / "event.json").read_text())
    assert event["pull_request"]["head"]["ref"] == "topic"
    assert event["pull_request"]["base"]["ref"] == "main"


def test_preflight_rehearses_and_a_bad_input_is_the_action_s_exit_2(tmp_path, origin):
    workspace = clone(origin, "main", tmp_path / "workspace")
    before = _refs(origin.bare)
    out = tmp_path / "preflight"
    done = _rehearse(workspace, out, "--event", "workflow_dispatch", "--mode", "preflight",
                     "--version", VERSION)
    assert done.returncode == 0, done.stdout + done.stderr
    # A free version posts no check run of its own (the job's run keeps its title).
    assert not (out / "check-run.json").exists()
    outputs = json.loads((out / "outputs.json").read_text())
    assert outputs["exit_code"] == 0 and outputs["outputs"]["branch"] == "swiftpm-1.2.3"
    # An audit of a repository with no published branch is bad input, for the action too:
    # exit 2, one line, no check run and no outputs.
    out = tmp_path / "audit"
    done = _rehearse(workspace, out, "--event", "workflow_dispatch", "--mode", "audit")
    assert done.returncode == 2 and "no branch matches 'swiftpm-*'" in done.stdout
    assert not (out / "check-run.json").exists()
    assert json.loads((out / "outputs.json").read_text()) == {"exit_code": 2, "outputs": {}}
    assert _refs(origin.bare) == before


def test_rehearsing_a_pull_request_with_pr_comment_writes_the_comment_it_would_post(
        tmp_path, origin):
    workspace = clone(origin, "main", tmp_path / "workspace")
    git(workspace, "checkout", "-q", "-b", "topic")
    (workspace / WORKFLOW).write_text(workflow_text([*ALL_KEYS, "kernels_new"]))
    commit_all(workspace, "build kernels_new")
    out = tmp_path / "pr"
    done = _rehearse(workspace, out, "--event", "pull_request", "--base", "main",
                     f"--input=frameworks-from={FRAMEWORKS_FROM}", "--input=accept-static=true",
                     "--input=pr-comment=true")
    assert done.returncode == 1, done.stdout + done.stderr
    body = (out / "pr-comment.md").read_text()
    lines = body.split("\n")
    assert re.fullmatch(r"<!-- swiftpm-guard pr-comment key=[0-9a-f]{16} findings=[0-9a-f]{16} -->",
                        lines[0])
    assert lines[1] == ("### ❌ SwiftPM manifest: kernels\\_new: main builds it; no template has "
                        "its product")
    assert lines[3] == ("Conclusion **failure** for `Package.swift.template` · [the check run]"
                        f"(<https://github.com/{REPOSITORY}/runs/rehearsal>)")
    assert "`unclaimed-artifact`" in body
    assert "wrote check-run.json, pr-comment.md, summary.md and outputs.json" in done.stdout
    assert "::notice" not in done.stdout  # nothing was refused: it was kept, not posted
    # Without the input (or on a push) no comment file is left from an earlier rehearsal.
    again = _rehearse(workspace, out, "--event", "pull_request", "--base", "main",
                      f"--input=frameworks-from={FRAMEWORKS_FROM}", "--input=accept-static=true")
    assert again.returncode == 1 and not (out / "pr-comment.md").exists()
