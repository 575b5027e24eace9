"""Every ExecuTorch-shaped example, run as documented on ExecuTorch's release lines (issue 33, 2).

The inputs are the examples' own `with:` (support/executorch_examples.py reads them), the
history is ExecuTorch's shape: `main` and `release/1.0` carry the example workflow itself, with
`VERSION="${{ needs.set-version.outputs.version }}"` in the reusable build job's script;
`release/0.7` builds its own list and `release/0.6` cannot be read exactly, and neither
publishes any more. `entrypoint.py` in a fresh process, the fake GitHub API on loopback, the
origin by path, the binary targets' zips served over loopback HTTP (verify-urls).
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.actions_env import (
    REPOSITORY,
    Origin,
    clone,
    commit_all,
    dispatch_payload,
    git,
    pull_request_payload,
    push_payload,
)
from support.executorch_examples import (
    EXAMPLES,
    FRAMEWORKS,
    UPLOAD,
    Lines,
    guard_steps,
    make_lines,
)
from support.fake_github import FakeGitHub
from support.release import all_names, write_zip
from support.zip_server import Route, ZipServer, serve_zips

API_TOKEN = "ghs_examplesApiToken0123456789ab"
TOKENS = {"github-token": API_TOKEN}
PUSH_TOKEN = "github_pat_examplesPushToken01234"
NIGHTLY = "1.2.0.20250101"
SECRETS = {"secrets.GH_PYTORCHBOT_CHERRY_PICK_TOKEN": PUSH_TOKEN}


@pytest.fixture
def zips() -> Iterator[ZipServer]:
    with serve_zips() as server:
        yield server


@pytest.fixture
def lines(tmp_path: Path, fake_github: FakeGitHub, zips: ZipServer) -> Lines:
    made = make_lines(tmp_path / "remote", zips.url("frameworks/"))
    fake_github.add_repo(REPOSITORY, git_dir=made.bare)
    fake_github.add_token(API_TOKEN)
    return made


def _checkout(lines: Lines, branch: str, dest: Path) -> Path:
    return clone(Origin(lines.bare, lines.main, lines.swiftpm), branch, dest)


def _build(folder: Path, version: str, zips: ZipServer, names=FRAMEWORKS) -> Path:
    """The build job's zips, and the same bytes at their URLs (as after the upload)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in all_names(names):
        path = folder / f"{name}-{version}.zip"
        write_zip(path, name)
        zips.routes[f"/frameworks/{path.name}"] = Route(path.read_bytes())
    return folder


def _conclusions(fake: FakeGitHub) -> dict[str, str]:
    return {run["name"]: run["conclusion"] for run in fake.check_runs.values()}


def test_every_executorch_example_reads_the_release_lines_version_line(lines):
    """The examples that read FRAMEWORKS vouch for ExecuTorch's expression (the reader refuses
    it otherwise, exit 2); the generic example passes the version through env: instead."""
    for path in sorted(EXAMPLES.glob("*.yml")):
        for inputs in guard_steps(path, {k: "x" for k in _ALL_VALUES}):
            if "frameworks-from" in inputs and "build-frameworks-ios" in inputs[
                    "frameworks-from"]:
                assert inputs.get("plain-expressions") == \
                    "needs.set-version.outputs.version", path.name


_ALL_VALUES = ("env.VERSION", "needs.set-version.outputs.release-branch", "inputs.version",
               "inputs.run-id", "inputs.update", "inputs.dry-run", *SECRETS)


def test_the_upload_job_checks_preflights_and_publishes_the_nightly(tmp_path, lines, zips,
                                                                    fake_github, runner):
    workspace = _checkout(lines, "main", tmp_path / "workspace")
    _build(workspace / "frameworks-ios", NIGHTLY, zips)
    steps = guard_steps(UPLOAD, {"env.VERSION": NIGHTLY,
                                 "needs.set-version.outputs.release-branch":
                                     "refs/heads/release/1.2", **SECRETS})
    assert [s["mode"] for s in steps] == ["check", "preflight", "publish"]
    for inputs in steps:
        step, result = runner.using(inputs=TOKENS).run(workspace, sha=lines.main, inputs=inputs)
        assert result.returncode == 0, (inputs["mode"], result.stdout + result.stderr)
        assert step.outputs()["consistent"] == "true", inputs["mode"]
    assert step.outputs()["pushed"] == "true"
    assert f"swiftpm-{NIGHTLY}" in git(lines.bare, "branch", "--list", "swiftpm-*")
    assert set(_conclusions(fake_github).values()) == {"success"}
    assert len(zips.hits) >= len(all_names(FRAMEWORKS))  # verify-urls fetched them


def test_the_upload_job_on_a_release_line_checks_the_release(tmp_path, lines, zips,
                                                             fake_github, runner):
    """A push to release/1.0: the check step only (PUBLISHING is false on a push)."""
    workspace = _checkout(lines, "release/1.0", tmp_path / "workspace")
    _build(workspace / "frameworks-ios", "1.0.1", zips)
    check = guard_steps(UPLOAD, {"env.VERSION": "1.0.1",
                                 "needs.set-version.outputs.release-branch":
                                     "refs/heads/release/1.0", **SECRETS})[0]
    payload = push_payload(ref="refs/heads/release/1.0", before=lines.release_10,
                           after=lines.release_10)
    _step, result = runner.using(inputs=TOKENS).run(
        workspace, "push", payload, sha=lines.release_10, ref="refs/heads/release/1.0",
        inputs=check)
    assert result.returncode == 0, result.stdout + result.stderr
    assert _conclusions(fake_github) == {"swiftpm-guard (before upload)": "success"}


def test_the_template_pr_check_runs_on_every_release_line(tmp_path, lines, fake_github, runner):
    """A pull request into `swiftpm`: main and release/1.0 must be read (they publish);
    release/0.7's drift weighs as warnings; release/0.6, unreadable and no longer publishing,
    is a notice and the run goes on (not exit 2)."""
    (inputs,) = guard_steps(EXAMPLES / "swiftpm-pr-check.yml", {})
    workspace = _checkout(lines, "swiftpm", tmp_path / "workspace")
    git(workspace, "checkout", "-q", "-b", "docs")
    (workspace / "README.md").write_text("The template branch.\n")
    head = commit_all(workspace, "README")
    payload = pull_request_payload(number=7, head_sha=head, head_ref="docs", base_ref="swiftpm",
                                   base_sha=lines.swiftpm)
    step, result = runner.using(inputs=TOKENS).run(
        workspace, "pull_request", payload, sha=head, ref="refs/pull/7/merge", inputs=inputs)
    log = result.stdout + result.stderr
    assert result.returncode == 0, log
    (run,) = fake_github.check_runs.values()
    assert run["conclusion"] == "success", run["output"]["title"]
    notices = [line for line in log.splitlines()
               if line.startswith("::notice title=swiftpm-guard::frameworks-ref: release/0.6")]
    assert len(notices) == 1, log  # said once: not again for the base branch
    assert "skipped: its framework list cannot be read exactly" in notices[0]
    assert "${{ inputs.flavor }}" in notices[0] and "no longer publishes" in notices[0]
    summary = run["output"]["summary"]
    assert "release/0.6" in summary and "release/0.7" in summary
    assert step.outputs()["consistent"] == "true"


def test_the_pr_check_of_a_pull_request_into_main(tmp_path, lines, fake_github, runner):
    (inputs,) = guard_steps(EXAMPLES / "swiftpm-pr-check.yml", {})
    workspace = _checkout(lines, "main", tmp_path / "workspace")
    git(workspace, "checkout", "-q", "-b", "docs")
    (workspace / "README.md").write_text("# executorch\n\nmore\n")
    head = commit_all(workspace, "README")
    payload = pull_request_payload(number=8, head_sha=head, head_ref="docs", base_ref="main",
                                   base_sha=lines.main)
    _step, result = runner.using(inputs=TOKENS).run(
        workspace, "pull_request", payload, sha=head, ref="refs/pull/8/merge", inputs=inputs)
    assert result.returncode == 0, result.stdout + result.stderr
    assert set(_conclusions(fake_github).values()) == {"success"}


def test_the_line_template_pr_check(tmp_path, lines, fake_github, runner):
    (inputs,) = guard_steps(EXAMPLES / "swiftpm-line-pr-check.yml", {})
    workspace = _checkout(lines, "template/0.7", tmp_path / "workspace")
    git(workspace, "checkout", "-q", "-b", "docs")
    (workspace / "README.md").write_text("The 0.7 template.\n")
    head = commit_all(workspace, "README")
    payload = pull_request_payload(number=9, head_sha=head, head_ref="docs",
                                   base_ref="template/0.7", base_sha=lines.template_07)
    _step, result = runner.using(inputs=TOKENS).run(
        workspace, "pull_request", payload, sha=head, ref="refs/pull/9/merge", inputs=inputs)
    assert result.returncode == 0, result.stdout + result.stderr
    assert set(_conclusions(fake_github).values()) == {"success"}


def test_the_republish_dry_run_from_a_runs_artifact(tmp_path, lines, zips, fake_github, runner):
    built = _build(tmp_path / "built", "1.0.1", zips)
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as stored:
        for path in sorted(built.iterdir()):
            stored.write(path, path.name)
    fake_github.add_artifact(REPOSITORY, 4242, "executorch-frameworks-ios", archive.getvalue())
    dispatched = {"version": "1.0.1", "run-id": "4242", "update": "false", "dry-run": "true"}
    (inputs,) = guard_steps(EXAMPLES / "swiftpm-republish.yml",
                            {f"inputs.{k}": v for k, v in dispatched.items()} | SECRETS)
    workspace = _checkout(lines, "main", tmp_path / "workspace")
    step, result = runner.using(inputs=TOKENS).run(
        workspace, "workflow_dispatch", dispatch_payload(dispatched), sha=lines.main,
        inputs=inputs)
    assert result.returncode == 0, result.stdout + result.stderr
    assert step.outputs()["pushed"] == "false"
    assert step.outputs()["consistent"] == "true"
    assert step.outputs()["not-pushed-reason"] == "dry run"
    assert "swiftpm-1.0.1" not in git(lines.bare, "branch", "--list", "swiftpm-*")
    assert fake_github.check_runs == {}  # a dry run writes no check run (docs/adopting.md)


def test_without_plain_expressions_the_line_that_publishes_is_refused(tmp_path, lines, zips,
                                                                      fake_github, runner):
    """What the examples' plain-expressions is for: main publishes, so its list must be read
    exactly, and without the vouched expression it cannot be (exit 2, naming the input)."""
    workspace = _checkout(lines, "main", tmp_path / "workspace")
    _build(workspace / "frameworks-ios", NIGHTLY, zips)
    check = guard_steps(UPLOAD, {"env.VERSION": NIGHTLY,
                                 "needs.set-version.outputs.release-branch":
                                     "refs/heads/release/1.2", **SECRETS})[0]
    del check["plain-expressions"]
    _step, result = runner.using(inputs=TOKENS).run(workspace, sha=lines.main, inputs=check)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "${{ needs.set-version.outputs.version }}" in result.stdout
    assert "name it in input plain-expressions" in result.stdout
