"""The action in-process (so waits can be injected) against the fake API and real git remotes.

The verdict and exit code must not depend on whether the check run could be written; the
template must be found through git or, failing that, through the contents API.
"""

from __future__ import annotations

import json
import shutil
import time

import pytest

from support.actions_env import (
    FRAMEWORKS_FROM,
    REPOSITORY,
    WORKFLOW,
    Origin,
    clone,
    commit_all,
    git,
    line_of,
    make_origin,
    pull_request_payload,
    push_payload,
)
from support.fake_github import READ, FakeGitHub
from support.markdown import rendered_text
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, workflow_text
from support.runner_job import Job
from swiftpm_guard.action import main as action
from swiftpm_guard.infra.github import RetryPolicy

TOKEN = "ghs_inProcessToken"
ALL_KEYS = [*PRODUCT_KEYS, *BINARY_ONLY_KEYS]


class Clock:
    def __init__(self) -> None:
        self.slept: list[float] = []
        self.offset = 0.0

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.offset += seconds

    def monotonic(self) -> float:
        return time.monotonic() + self.offset


def _policy(clock: Clock, attempts: int = 3) -> RetryPolicy:
    return RetryPolicy(
        attempts=attempts,
        sleep=clock.sleep,
        monotonic=clock.monotonic,
        request_timeout=1,
        seconds_between_writes=None,
        log=lambda line: None,
    )


@pytest.fixture
def origin(tmp_path, fake_github: FakeGitHub) -> Origin:
    made = make_origin(tmp_path / "remote")
    fake_github.add_repo(REPOSITORY, git_dir=made.bare)
    fake_github.add_token(TOKEN)
    fake_github.add_token("ghs_readOnlyInProcess", READ)
    return made


def _push_dropping(tmp_path, origin, fake, dropped="kernels_llm", token=TOKEN, workspace=None):
    """A push to main whose workflow stops building `dropped` and starts building
    `kernels_new`: two unfilled placeholders on the template (not in main's tree, so listed,
    not annotated) and two unclaimed names on workflow lines (annotated)."""
    workspace = workspace or clone(origin, "main", tmp_path / "workspace")
    (workspace / WORKFLOW).write_text(
        workflow_text([*(k for k in ALL_KEYS if k != dropped), "kernels_new"]))
    after = commit_all(workspace, "drop") if (workspace / ".git").exists() else "b" * 40
    payload = push_payload(ref="refs/heads/main", before=origin.main, after=after)
    return Job(tmp_path, fake.url).step(
        workspace, "push", payload, sha=after,
        inputs={"frameworks-from": FRAMEWORKS_FROM, "github-token": token})


@pytest.mark.parametrize(
    "fault",
    [
        None,
        ("checks/create", "500", 100),
        ("checks/create", "502", 100),
        ("checks/create", "not-accessible", 1),
        ("checks/create", "422", 1),
        ("checks/create", "secondary", 100),
        ("checks/create", "hang", 100),
    ],
    ids=["healthy", "500", "502", "403-not-accessible", "422", "secondary-limit", "hang"],
)
def test_verdict_and_exit_code_never_depend_on_the_check_run(
    tmp_path, origin, fake_github, capsys, fault
):
    if fault is not None:
        operation, kind, times = fault
        fake_github.inject(operation, kind, times=times)
    step = _push_dropping(tmp_path, origin, fake_github)
    code = action.main(step.env, policy=_policy(Clock()))
    out = capsys.readouterr().out
    assert code == 1
    assert step.outputs()["consistent"] == "false"
    assert "kernels_llm" in step.summary()
    commands = [line for line in out.splitlines() if line.startswith("::error file=")]
    shown = rendered_text(step.summary())
    if fault is None:
        run = fake_github.only_check_run()
        assert run["conclusion"] == "failure" and commands == []
        # One table in one job's view: the check run has the folded sound rows, the job
        # summary only the problem rows and a link to the check run.
        assert "<details>" in run["output"]["summary"] and "<details>" not in step.summary()
        assert "The whole report is in the check run SwiftPM manifest." in shown
        assert "(their rows are in the check run)" in shown
        return
    # No check run: the job summary is the only place left, so it is the whole report.
    assert "<details>" in step.summary() and "whole report is in the check run" not in shown
    assert fake_github.check_runs == {}
    assert len(commands) == 1  # the name and its debug twin on one line: one annotation
    assert all(c.startswith(f"::error file={WORKFLOW},line=") for c in commands)
    assert "swiftpm:Package.swift.template:" in shown  # the template side, listed
    level = "::notice" if fault[1] == "not-accessible" else "::warning"
    assert any(line.startswith(level + " title=swiftpm-guard::") for line in out.splitlines())


def test_120_findings_reach_the_check_run_in_three_batches(tmp_path, fake_github, capsys, runner):
    # Built, the template has no product; each with its twin on one line: one annotation.
    extra = [f"kernels_extra{i:03d}" for i in range(110)]
    origin = make_origin(tmp_path / "remote", frameworks=[*ALL_KEYS, *extra])
    fake_github.add_repo(REPOSITORY, git_dir=origin.bare)
    fake_github.add_token(TOKEN)
    workspace = clone(origin, "main", tmp_path / "workspace")
    step = runner.step(workspace, "push",
                       push_payload(ref="refs/heads/main", before=origin.main, after=origin.main),
                       sha=origin.main,
                       inputs={"frameworks-from": FRAMEWORKS_FROM, "github-token": TOKEN})
    assert action.main(step.env, policy=_policy(Clock())) == 1
    run = fake_github.only_check_run()
    sizes = [
        len(r.body["output"]["annotations"])
        for r in fake_github.calls("checks/create") + fake_github.calls("checks/update")
    ]
    assert sizes == [50, 50, 10]
    annotations = fake_github.annotations[run["id"]]
    assert len(annotations) == 110 == len(extra)
    assert all(a["path"] == WORKFLOW for a in annotations)


def test_fallback_shows_ten_errors_and_aggregates_the_rest(tmp_path, fake_github, capsys, runner):
    extra = [f"kernels_extra{i:02d}" for i in range(20)]  # each twin pair: one annotation
    origin = make_origin(tmp_path / "remote", frameworks=[*ALL_KEYS, *extra])
    fake_github.add_repo(REPOSITORY, git_dir=origin.bare)
    workspace = clone(origin, "main", tmp_path / "workspace")
    step = runner.step(workspace, "push",
                       push_payload(ref="refs/heads/main", before=origin.main, after=origin.main),
                       sha=origin.main, inputs={"frameworks-from": FRAMEWORKS_FROM})
    assert action.main(step.env, policy=_policy(Clock())) == 1
    errors = [line for line in capsys.readouterr().out.splitlines() if line.startswith("::error")]
    assert len(errors) == 10  # the runner would drop anything past ten
    assert errors[-1].startswith("::error title=swiftpm-guard%3A 11 more errors")
    # 11 findings, one line each and one for what to fix
    assert errors[-1].count("%0A") == 21 and errors[-1].count("%0AFix: add ") == 11


def test_template_through_the_contents_api_without_a_clone(tmp_path, origin, fake_github):
    workspace = tmp_path / "workspace"
    workspace.mkdir()  # e.g. a job that downloaded the workflow without actions/checkout
    (workspace / WORKFLOW).parent.mkdir(parents=True)
    step = _push_dropping(tmp_path, origin, fake_github, workspace=workspace)
    assert action.main(step.env, policy=_policy(Clock())) == 1
    calls = fake_github.calls("repos/get-content")
    # First the configuration file, at the default branch (absent: a 404, no settings).
    config, *calls = calls
    assert config.path.endswith("/contents/.github/swiftpm-guard.yml")
    assert config.query == {"ref": ["main"]} and config.status == 404
    paths = [r.path.split("/contents/", 1)[1] for r in calls]
    assert paths[:3] == ["", "Package.swift.template", ".Package.swift"]
    # The root's listing (version-specific manifests beside the template), the template, the
    # stub root, one listing per stub folder.
    assert len(paths) == 3 + 18
    assert all(r.query == {"ref": ["swiftpm"]} for r in calls)
    template = tmp_path / "template.swift"
    template.write_text(git(origin.bare, "show", "swiftpm:Package.swift.template"))
    # Not in the workspace's tree: listed with its ref, not annotated.
    text = fake_github.only_check_run()["output"]["text"]
    for needle in ("__SHA256_kernels_llm__", "__SHA256_kernels_llm_debug__"):
        assert f"swiftpm:Package.swift.template:{line_of(template, needle)}" in text
    assert "from 'swiftpm' (contents API)" in step.summary()


def test_a_failing_git_fetch_falls_back_to_the_contents_api(tmp_path, origin, fake_github, capsys):
    workspace = clone(origin, "main", tmp_path / "workspace")
    fake_github.git_status = 503  # git at the server URL fails; the API still answers
    step = _push_dropping(tmp_path, origin, fake_github, workspace=workspace)
    assert action.main(step.env, policy=_policy(Clock())) == 1
    assert "git fetch of 'swiftpm' failed" in capsys.readouterr().err
    assert fake_github.calls("repos/get-content")
    assert fake_github.only_check_run()["conclusion"] == "failure"


def test_a_template_ref_that_exists_nowhere_is_bad_input(tmp_path, origin, fake_github, capsys):
    step = _push_dropping(tmp_path, origin, fake_github)
    step.env["INPUT_TEMPLATE-REF"] = "no-such-branch"
    assert action.main(step.env, policy=_policy(Clock())) == 2
    out = capsys.readouterr().out
    assert (
        "::error title=swiftpm-guard::Package.swift.template: template not found in "
        "'no-such-branch' (contents API)" in out
    )
    assert fake_github.check_runs == {} and step.outputs() == {}


def test_pr_into_the_template_branch_asks_the_api_for_the_default_branch(
    tmp_path, origin, fake_github, runner
):
    shutil.rmtree(tmp_path / "remote" / "seed")
    workspace = clone(origin, "swiftpm", tmp_path / "workspace")
    payload = pull_request_payload(
        number=3, head_sha=origin.swiftpm, head_ref="x", base_ref="swiftpm", base_sha=origin.swiftpm
    )
    del payload["repository"]  # then the default branch must come from GET /repos
    step = runner.step(workspace, "pull_request", payload, sha=origin.swiftpm,
                       ref="refs/pull/3/merge",
                       inputs={"frameworks-from": FRAMEWORKS_FROM, "github-token": TOKEN})
    assert action.main(step.env, policy=_policy(Clock())) == 0
    assert [r.status for r in fake_github.calls("repos/get")] == [200]
    assert fake_github.only_check_run()["conclusion"] == "success"
    assert "framework list `.github/workflows/apple.yml` from origin/main" in step.summary()


def test_dry_run_writes_nothing_remote(tmp_path, origin, fake_github, capsys):
    step = _push_dropping(tmp_path, origin, fake_github)
    step.env["INPUT_DRY-RUN"] = "true"
    assert action.main(step.env, policy=_policy(Clock())) == 1
    assert fake_github.requests == []
    out = capsys.readouterr().out
    assert "::notice title=swiftpm-guard::dry-run: no check run was created" in out
    assert len([line for line in out.splitlines() if line.startswith("::error file=")]) == 1


def test_explicit_publish_on_a_push_is_blocked_by_findings(tmp_path, origin, fake_github, capsys):
    """`mode: publish` on a push (tag-driven releases) publishes; here the check says no."""
    step = _push_dropping(tmp_path, origin, fake_github)
    step.env["INPUT_MODE"] = "publish"
    step.env["INPUT_VERSION"] = "1.2.3"
    assert action.main(step.env, policy=_policy(Clock())) == 1
    assert git(origin.bare, "branch", "--list", "swiftpm-*") == ""
    run = fake_github.only_check_run()
    assert run["conclusion"] == "failure"
    assert "not pushed" in run["output"]["summary"]
    assert step.outputs()["pushed"] == "false"
    assert "not pushed: error findings" in capsys.readouterr().out
    # A name the workflow only declares has no checksum: a published manifest needs every one.
    report = json.loads((tmp_path / "workspace" / ".swiftpm-guard" / "report.json").read_text())
    assert "missing-checksum" in {f["code"] for f in report["findings"]}


def test_frameworks_ref_names_where_a_template_pr_reads_the_framework_list(
    tmp_path, origin, fake_github, runner
):
    # A release branch that still builds everything but kernels_llm.
    release = clone(origin, "main", tmp_path / "release")
    git(release, "checkout", "-q", "-b", "release/1.2")
    (release / WORKFLOW).write_text(workflow_text([k for k in ALL_KEYS if k != "kernels_llm"]))
    commit_all(release, "release branch")
    git(release, "push", "-q", "origin", "release/1.2")
    workspace = clone(origin, "swiftpm", tmp_path / "workspace")
    payload = pull_request_payload(
        number=4, head_sha=origin.swiftpm, head_ref="x", base_ref="swiftpm", base_sha=origin.swiftpm
    )
    step = runner.step(
        workspace,
        "pull_request",
        payload,
        sha=origin.swiftpm,
        ref="refs/pull/4/merge",
        inputs={
            "frameworks-from": FRAMEWORKS_FROM,
            "frameworks-ref": "release/1.2",
            "github-token": TOKEN,
            "pr-conclusion": "failure",
        },
    )
    assert action.main(step.env, policy=_policy(Clock())) == 1
    run = fake_github.only_check_run()
    assert run["conclusion"] == "failure"
    titles = sorted(a["title"] for a in fake_github.annotations[run["id"]])
    # The pull request's head is its base: what it shows was there before it.
    assert titles == [
        "already there: unfilled-placeholder: kernels_llm",
        "already there: unfilled-placeholder: kernels_llm_debug",
    ]
    assert "from origin/release/1.2" in step.summary()


def test_zips_and_checksums_from_the_workspace_render_the_manifest(tmp_path, origin, fake_github,
                                                                   runner):
    from support.release import write_release

    workspace = clone(origin, "main", tmp_path / "workspace")
    built = write_release(workspace / "build", version="1.2.3")
    step = runner.step(
        workspace,
        "push",
        push_payload(ref="refs/heads/main", before=origin.main, after=origin.main),
        sha=origin.main,
        inputs={
            "version": "1.2.3",
            "artifacts": "build/artifacts",
            "checksums": "build/checksums.txt",
            "github-token": TOKEN,
        },
    )
    assert action.main(step.env, policy=_policy(Clock())) == 0
    outputs = step.outputs()
    manifest = (workspace / outputs["manifest"]).read_text()
    for checksum in built.checksum_of.values():
        assert f'"{checksum}"' in manifest
    assert fake_github.only_check_run()["conclusion"] == "success"


def test_an_input_path_leaving_the_workspace_through_a_symlink_is_refused(
    tmp_path, origin, fake_github, capsys, runner
):
    workspace = clone(origin, "main", tmp_path / "workspace")
    outside = tmp_path / "outside"
    outside.mkdir()
    (workspace / "zips").symlink_to(outside)
    step = runner.step(workspace, "push",
                       push_payload(ref="refs/heads/main", before=origin.main, after=origin.main),
                       sha=origin.main,
                       inputs={"version": "1.2.3", "artifacts": "zips", "github-token": TOKEN})
    assert action.main(step.env, policy=_policy(Clock())) == 2
    assert "zips: resolves outside the workspace" in capsys.readouterr().out


def test_a_missing_run_artifact_is_bad_input_naming_what_exists(
    tmp_path, origin, fake_github, capsys, runner
):
    fake_github.add_artifact(REPOSITORY, 9, "logs", b"x")
    workspace = clone(origin, "main", tmp_path / "workspace")
    step = runner.step(
        workspace,
        "push",
        push_payload(ref="refs/heads/main", before=origin.main, after=origin.main),
        sha=origin.main,
        inputs={
            "version": "1.2.3",
            "run-id": "9",
            "artifact-name": "frameworks",
            "github-token": TOKEN,
        },
    )
    assert action.main(step.env, policy=_policy(Clock())) == 2
    assert "run 9 has no artifact named 'frameworks' (found: none)" in capsys.readouterr().out


def test_a_committed_output_folder_link_is_refused(tmp_path, origin, fake_github, capsys):
    workspace = clone(origin, "main", tmp_path / "workspace")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (workspace / ".swiftpm-guard").symlink_to(elsewhere)
    step = _push_dropping(tmp_path, origin, fake_github, workspace=workspace)
    assert action.main(step.env, policy=_policy(Clock())) == 2
    assert (
        ".swiftpm-guard: exists in the workspace and is not a plain folder"
        in capsys.readouterr().out
    )
    assert list(elsewhere.iterdir()) == []
