"""A stub root or stub folder that links out of the template's folder is never followed.

A pull request can commit `.Package.swift` (or `.Package.swift/<name>`) as a symbolic link to
`/etc` or anywhere on the runner: following it turned the runner's `/etc` entries into stub
names, findings, annotations and report lines. The link is reported as `stub-symlink`, naming
it, and nothing behind it appears anywhere: not in the log, the JSON or Markdown report, the
check run, its annotations or the job summary.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.actions_env import (
    FRAMEWORKS_FROM,
    REPOSITORY,
    clone,
    commit_all,
    git,
    make_origin,
    pull_request_payload,
)
from support.fake_fixture import fake_github_fixture
from support.fake_github import FakeGitHub
from support.release import Release
from support.runner_job import Job

TOKEN = "ghs_stubSymlinkToken0123456"
#: What lies behind the link: names that must never be shown.
SECRET_NAMES = ("secret_folder_behind_link", "private_file_behind_link")


def _outside(root: Path) -> Path:
    """A folder outside the template tree, standing in for the runner's /etc."""
    target = root / "runner-etc"
    (target / SECRET_NAMES[0]).mkdir(parents=True)
    (target / SECRET_NAMES[0] / "dummy.swift").write_text("// not a stub\n")
    (target / SECRET_NAMES[1]).write_text("secret\n")
    return target


def run_cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "swiftpm_guard", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _check(release: Release, tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], str]:
    report, markdown = tmp_path / "report.json", tmp_path / "report.md"
    done = run_cli(
        release.root,
        "check",
        "--template",
        str(release.template),
        "--version",
        release.version,
        "--checksums",
        str(release.checksums),
        "--json",
        str(report),
        "--markdown",
        str(markdown),
    )
    everything = done.stdout + done.stderr + report.read_text() + markdown.read_text()
    return done, everything


@pytest.mark.parametrize("target", ["outside", "/etc"])
def test_a_stub_root_linking_out_of_the_tree_is_reported_not_followed(
    release: Release, tmp_path: Path, target: str
) -> None:
    outside = _outside(tmp_path) if target == "outside" else Path("/etc")
    stubs = release.stubs  # `.Package.swift` beside the template
    shutil.rmtree(stubs)
    stubs.symlink_to(outside, target_is_directory=True)
    done, everything = _check(release, tmp_path)
    assert done.returncode == 1, done.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    found = [f for f in report["findings"] if f["code"] == "stub-symlink"]
    assert [f["subject"] for f in found] == [".Package.swift"], report["findings"]
    behind = [e.name for e in outside.iterdir()]
    for name in [*SECRET_NAMES, *behind]:
        if len(name) > 4 and name not in release.template.read_text():
            assert name not in everything, name


def test_a_stub_folder_linking_out_of_the_tree_is_reported_not_followed(
    release: Release, tmp_path: Path
) -> None:
    outside = _outside(tmp_path)
    stub = release.stubs / "executorch"
    shutil.rmtree(stub)
    stub.symlink_to(outside, target_is_directory=True)
    done, everything = _check(release, tmp_path)
    assert done.returncode == 1
    report = json.loads((tmp_path / "report.json").read_text())
    codes = {(f["code"], f["subject"]) for f in report["findings"]}
    assert ("stub-symlink", "executorch") in codes, codes
    # A link is not the stub SwiftPM needs; without SwiftPM that it needs one is SwiftPM's
    # to say (needs-swiftpm), the link is refused all the same.
    for name in SECRET_NAMES:
        assert name not in everything


def test_a_link_inside_the_tree_is_not_a_stub_symlink(release: Release, tmp_path: Path) -> None:
    """Only links that leave the template's folder are refused."""
    inside = release.template.parent / "elsewhere-in-tree"
    inside.mkdir()
    (release.stubs / "extra").symlink_to(inside, target_is_directory=True)
    _done, _everything = _check(release, tmp_path)
    report = json.loads((tmp_path / "report.json").read_text())
    assert not [f for f in report["findings"] if f["code"] == "stub-symlink"]


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    yield from fake_github_fixture()


def test_the_action_never_shows_what_a_stub_root_link_points_at(
    tmp_path: Path, fake_github: FakeGitHub, capsys: pytest.CaptureFixture[str], runner
) -> None:
    """A template PR whose `.Package.swift` links to the runner's files (the workspace)."""
    from swiftpm_guard.action import main as action
    from swiftpm_guard.infra.github import RetryPolicy

    origin = make_origin(tmp_path / "remote")
    fake_github.add_repo(REPOSITORY, git_dir=origin.bare)
    fake_github.add_token(TOKEN)
    outside = _outside(tmp_path)
    workspace = clone(origin, "swiftpm", tmp_path / "workspace")
    git(workspace, "checkout", "-q", "-b", "link-stubs")
    shutil.rmtree(workspace / ".Package.swift")
    os.symlink(outside, workspace / ".Package.swift")
    head = commit_all(workspace, "stubs are a link")
    payload = pull_request_payload(
        number=21, head_sha=head, head_ref="link-stubs", base_ref="swiftpm",
        base_sha=origin.swiftpm,
    )
    step = runner.step(
        workspace, "pull_request", payload, sha=head, ref="refs/pull/21/merge",
        inputs={"frameworks-from": FRAMEWORKS_FROM, "github-token": TOKEN})
    action.main(step.env, policy=RetryPolicy(attempts=1, request_timeout=5,
                                             seconds_between_writes=None))
    out, err = capsys.readouterr()
    run = fake_github.only_check_run()
    annotations = json.dumps(fake_github.annotations[run["id"]])
    report = (workspace / ".swiftpm-guard" / "report.json").read_text()
    everything = out + err + json.dumps(run) + annotations + step.summary() + report
    assert "stub-symlink" in report
    for name in SECRET_NAMES:
        assert name not in everything


def _push_check_with_a_link(tmp_path: Path, fake_github: FakeGitHub,
                            capsys: pytest.CaptureFixture[str], linked: str
                            ) -> tuple[int, str, dict[str, object], str]:
    """The action's push check, with `linked` (below the template branch's root) committed
    as a link to /etc: exit code, console output, the JSON report, the job summary."""
    from support.actions_env import push_payload
    from swiftpm_guard.action import main as action
    from swiftpm_guard.infra.github import RetryPolicy

    origin = make_origin(tmp_path / "remote")
    fake_github.add_repo(REPOSITORY, git_dir=origin.bare)
    fake_github.add_token(TOKEN)
    branch = clone(origin, "swiftpm", tmp_path / "template-clone")
    shutil.rmtree(branch / linked)
    os.symlink("/etc", branch / linked)
    commit_all(branch, f"{linked} is a link")
    git(branch, "push", "-q", "origin", "swiftpm")
    workspace = clone(origin, "main", tmp_path / "workspace")
    step = Job(tmp_path / "job", fake_github.url).step(
        workspace, "push",
        push_payload(ref="refs/heads/main", before=origin.main, after=origin.main),
        sha=origin.main, inputs={"frameworks-from": FRAMEWORKS_FROM, "github-token": TOKEN})
    code = action.main(step.env, policy=RetryPolicy(attempts=1, request_timeout=5,
                                                    seconds_between_writes=None))
    out, err = capsys.readouterr()
    report = json.loads((workspace / ".swiftpm-guard" / "report.json").read_text())
    return code, out + err, report, step.summary()


def test_a_stub_folder_stored_as_a_link_in_the_template_ref_is_named(
    tmp_path: Path, fake_github: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    """Read from a git ref, a link is never followed either; it is reported by name."""
    code, output, report, summary = _push_check_with_a_link(
        tmp_path, fake_github, capsys, ".Package.swift/executorch")
    assert code == 1, output
    found = [f for f in report["findings"] if f["code"] == "stub-symlink"]
    assert [(f["subject"], f["file"]) for f in found] == [
        ("executorch", ".Package.swift/executorch")
    ]
    assert "passwd" not in output + json.dumps(report) + summary


def test_a_stub_root_stored_as_a_link_in_the_template_ref_is_named(
    tmp_path: Path, fake_github: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    code, output, report, _summary = _push_check_with_a_link(
        tmp_path, fake_github, capsys, ".Package.swift")
    assert code == 1, output
    found = [(f["subject"], f["file"]) for f in report["findings"] if f["code"] == "stub-symlink"]
    assert found == [(".Package.swift", ".Package.swift")]
