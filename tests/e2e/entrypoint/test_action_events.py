
"""`entrypoint.py` run as the runner runs a Docker action (without the container: that is
issue 6's tier), once per kind of event.

Each test builds a real origin (bare repo) and a workspace cloned from it like actions/checkout,
writes a real-shaped event payload, sets GITHUB_* and INPUT_* (hyphens kept) and starts the
entry point in a fresh process against the fake GitHub API, which validates every request.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
import yaml

from support.actions_env import (
    FRAMEWORKS_FROM,
    REPOSITORY,
    ROOT,
    WORKFLOW,
    Origin,
    clone,
    commit_all,
    dispatch_payload,
    git,
    line_of,
    make_origin,
    pull_request_payload,
    push_payload,
    schedule_payload,
)
from support.fake_github import READ, FakeGitHub
from support.markdown import rendered_text
from support.release import (
    BINARY_ONLY_KEYS,
    PRODUCT_KEYS,
    all_names,
    workflow_text,
    write_template_branch,
    write_zip,
)
from support.report_schemas import validate

TOKEN = "ghs_e2eWriteToken0123456789"
READ_TOKEN = "ghs_e2eReadOnlyToken0123456789"
ALL_KEYS = [*PRODUCT_KEYS, *BINARY_ONLY_KEYS]


@pytest.fixture
def origin(tmp_path: Path, fake_github: FakeGitHub) -> Origin:
    made = make_origin(tmp_path / "remote")
    fake_github.add_repo(REPOSITORY, git_dir=made.bare)
    fake_github.add_token(TOKEN)
    fake_github.add_token(READ_TOKEN, READ)
    return made


def _pr_into_main(tmp_path: Path, origin: Origin, frameworks: list[str]) -> tuple[Path, str, str]:
    """A PR branch that edits the workflow, checked out as GitHub's merge commit."""
    workspace = clone(origin, "main", tmp_path / "workspace")
    git(workspace, "checkout", "-q", "-b", "change-frameworks")
    (workspace / WORKFLOW).write_text(workflow_text(frameworks))
    head = commit_all(workspace, "build kernels_new")
    git(workspace, "checkout", "-q", "--detach", origin.main)
    git(workspace, "merge", "-q", "--no-ff", "-m", "Merge head into base", head)
    merge = git(workspace, "rev-parse", "HEAD")
    return workspace, head, merge


def _stdout_lines(stdout: str, prefix: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith(prefix)]


def _assert_token_never_logged(result, token: str) -> None:
    for line in (result.stdout + result.stderr).splitlines():
        assert token not in line or line == f"::add-mask::{token}", line


@pytest.mark.parametrize(("pr_conclusion", "expected_exit"), [("neutral", 0), ("failure", 1)])
def test_pull_request_from_the_same_repo_changing_the_workflow(
    tmp_path, origin, fake_github, pr_conclusion, expected_exit, runner
):
    workspace, head, merge = _pr_into_main(tmp_path, origin, [*ALL_KEYS, "kernels_new"])
    assert git(workspace, "branch", "-r") == "origin/main"  # as actions/checkout leaves it
    payload = pull_request_payload(
        number=12,
        head_sha=head,
        head_ref="change-frameworks",
        base_ref="main",
        base_sha=origin.main,
    )
    step, result = runner.run(
        workspace,
        "pull_request",
        payload,
        sha=merge,
        ref="refs/pull/12/merge",
        inputs={
            "frameworks-from": FRAMEWORKS_FROM,
            "github-token": TOKEN,
            "pr-conclusion": pr_conclusion,
        },
    )
    assert result.returncode == expected_exit, result.stdout + result.stderr

    run = fake_github.only_check_run()
    assert run["head_sha"] == head != merge  # the PR's head, not the merge commit
    assert run["name"] == "SwiftPM manifest"
    assert run["status"] == "completed" and run["conclusion"] == pr_conclusion
    assert run["details_url"] == f"{fake_github.url}/{REPOSITORY}/actions/runs/777"
    assert run["output"]["title"] == "kernels_new: main builds it; no template has its product"
    assert "unclaimed" in run["output"]["summary"]
    workflow_line = line_of(workspace / WORKFLOW, '"kernels_new"')
    annotations = fake_github.annotations[run["id"]]
    assert sorted(
        (a["path"], a["start_line"], a["annotation_level"], a["title"]) for a in annotations
    ) == [  # the name and its debug twin on one line: one annotation
        (WORKFLOW, workflow_line, "failure", "unclaimed-artifact: kernels_new, kernels_new_debug"),
    ]
    # The template came from swiftpm, fetched by git from the server URL (the checkout had
    # only main), into a repository of the action's own: nothing was written into the clone.
    assert any("git-upload-pack" in path for _m, path, _a in fake_github.git_requests)
    assert git(workspace, "branch", "-r") == "origin/main"
    outputs = step.outputs()
    assert outputs["consistent"] == "false"
    # No swift here: which names are products only SwiftPM tells (issue 31).
    assert outputs["products"] == "" and outputs["binary-targets"] == "20"
    assert outputs["report"] == ".swiftpm-guard/report.json"
    assert (workspace / outputs["report"]).is_file()
    assert outputs["manifest"] == "" and outputs["branch"] == "" and outputs["pushed"] == "false"
    # The `json` output is the report itself, the same as the file, and meets its schema.
    inline = json.loads(outputs["json"])
    assert inline == json.loads((workspace / outputs["report"]).read_text())
    validate(inline, "the json output")
    assert inline["version"] is None and inline["declared"] and inline["checksums"] == {}
    assert inline["origins"]["kernels_new"] == {
        "kind": "workflow", "file": WORKFLOW, "line": workflow_line, "file_name": None}
    summary = step.summary()
    assert "kernels_new" in summary and "unclaimed: product would vanish" in summary
    # Nothing was built on a PR: the names are declared, and there is no version to show.
    shown = rendered_text(summary)
    assert "20 asked, 0 built, 22 declared (not built)." in shown
    assert "no version" not in shown and "no version" not in run["output"]["title"]
    assert not _stdout_lines(result.stdout, "::error")  # the check run carried them
    _assert_token_never_logged(result, TOKEN)


def test_pull_request_into_the_template_branch(tmp_path, origin, fake_github, runner):
    """The PR adds a product to the template: template from the PR, frameworks from main."""
    workspace = clone(origin, "swiftpm", tmp_path / "workspace")
    git(workspace, "checkout", "-q", "-b", "add-kernels-new")
    write_template_branch(workspace, [*PRODUCT_KEYS, "kernels_new"])
    head = commit_all(workspace, "add kernels_new")
    payload = pull_request_payload(
        number=13,
        head_sha=head,
        head_ref="add-kernels-new",
        base_ref="swiftpm",
        base_sha=origin.swiftpm,
    )
    step, result = runner.run(
        workspace,
        "pull_request",
        payload,
        sha=head,
        ref="refs/pull/13/merge",
        inputs={"frameworks-from": FRAMEWORKS_FROM, "github-token": TOKEN},
    )
    # pr-conclusion auto: a PR into the template branch changes the template, so it fails
    # (with `neutral` it merged green: how eight nightlies broke).
    assert result.returncode == 1, result.stdout + result.stderr

    run = fake_github.only_check_run()
    assert run["head_sha"] == head and run["conclusion"] == "failure"
    template = workspace / "Package.swift.template"
    found = {(a["path"], a["start_line"], a["title"]) for a in fake_github.annotations[run["id"]]}
    assert found == {
        (
            "Package.swift.template",
            line_of(template, "__SHA256_kernels_new__"),
            "unfilled-placeholder: kernels_new",
        ),
        (
            "Package.swift.template",
            line_of(template, "__SHA256_kernels_new_debug__"),
            "unfilled-placeholder: kernels_new_debug",
        ),
    }
    # The framework list came from main (the payload's default branch), fetched by git from
    # the server URL, not into the clone.
    assert any("git-upload-pack" in path for _m, path, _a in fake_github.git_requests)
    assert "origin/main" not in git(workspace, "branch", "-r")
    assert "from origin/main" in step.summary()


def test_pull_request_from_a_fork_falls_back_to_workflow_commands(tmp_path, origin, fake_github,
                                                                  runner):
    workspace, head, merge = _pr_into_main(tmp_path, origin, [*ALL_KEYS, "kernels_new"])
    payload = pull_request_payload(
        number=14,
        head_sha=head,
        head_ref="main",
        base_ref="main",
        base_sha=origin.main,
        head_repo="forker/executorch",
    )
    step, result = runner.run(
        workspace,
        "pull_request",
        payload,
        sha=merge,
        ref="refs/pull/14/merge",
        inputs={"frameworks-from": FRAMEWORKS_FROM, "github-token": READ_TOKEN},
    )
    assert result.returncode == 1, result.stdout + result.stderr  # it brings the error

    assert fake_github.check_runs == {}
    assert [c.status for c in fake_github.calls("checks/create")] == [403]  # tried once
    notices = _stdout_lines(result.stdout, "::notice")
    assert len(notices) == 1 and "read-only token" in notices[0]
    line = line_of(workspace / WORKFLOW, '"kernels_new"')
    errors = _stdout_lines(result.stdout, "::error")
    assert len(errors) == 1  # the name and its debug twin on one line
    assert errors[0].startswith(
        f"::error file={WORKFLOW},line={line},title=unclaimed-artifact%3A kernels_new%2C "
        "kernels_new_debug::"
    )
    # Each finding once: as the workflow command, not also as a plain log line.
    plain = [x for x in (result.stdout + result.stderr).splitlines()
             if "unclaimed-artifact" in x and not x.startswith("::")]
    assert plain == []
    summary = step.summary()
    assert "read-only token" in summary and "kernels_new" in summary
    assert step.outputs()["consistent"] == "false"
    _assert_token_never_logged(result, READ_TOKEN)


def test_without_a_token_nothing_is_asked_of_the_api(tmp_path, origin, fake_github, runner):
    workspace, head, merge = _pr_into_main(tmp_path, origin, [*ALL_KEYS, "kernels_new"])
    payload = pull_request_payload(
        number=15, head_sha=head, head_ref="x", base_ref="main", base_sha=origin.main
    )
    step, result = runner.run(
        workspace,
        "pull_request",
        payload,
        sha=merge,
        ref="refs/pull/15/merge",
        inputs={"frameworks-from": FRAMEWORKS_FROM},
    )
    assert result.returncode == 1, result.stderr  # the pull request brings the error
    assert fake_github.requests == []  # git fetched the template; nothing else was needed
    assert len(_stdout_lines(result.stdout, "::error file=")) == 1  # twins on one line
    assert "no github-token" in step.summary()


def test_schedule_check_of_a_consistent_release(tmp_path, origin, fake_github, runner):
    workspace = clone(origin, "main", tmp_path / "workspace")
    step, result = runner.run(
        workspace,
        sha=origin.main,
        inputs={
            "mode": "check",
            "version": "1.2.3.20250101",
            "frameworks-from": FRAMEWORKS_FROM,
            "github-token": TOKEN,
        },
    )
    assert result.returncode == 0, result.stdout + result.stderr
    run = fake_github.only_check_run()
    assert run["head_sha"] == origin.main and run["conclusion"] == "success"
    assert fake_github.annotations[run["id"]] == []
    assert run["output"]["title"].startswith("consistent for 1.2.3.20250101")
    outputs = step.outputs()
    declared = yaml.safe_load((ROOT / "action.yml").read_text())["outputs"]
    assert set(outputs) == set(declared)  # every declared output, and only those, written
    assert outputs["consistent"] == "true"
    assert outputs["branch"] == "swiftpm-1.2.3.20250101"
    assert outputs["manifest"] == ""  # names only: no checksums to render with
    assert "consistent" in step.summary()


@pytest.mark.parametrize(
    ("event", "payload"),
    [
        ("schedule", schedule_payload()),
        ("workflow_dispatch", dispatch_payload({"version": "1.2.3"})),
    ],
)
def test_auto_mode_publishes_on_schedule_and_dispatch(
    tmp_path, origin, fake_github, event, payload, runner
):
    workspace = clone(origin, "main", tmp_path / "workspace")
    (workspace / "out").mkdir()
    for name in all_names(ALL_KEYS):
        write_zip(workspace / "out" / f"{name}-1.2.3.zip", name)
    step, result = runner.run(
        workspace,
        event,
        payload,
        sha=origin.main,
        inputs={
            "version": "1.2.3",
            "artifacts": "out",
            "frameworks-from": FRAMEWORKS_FROM,
            "github-token": TOKEN,
        },
    )
    assert result.returncode == 0, result.stdout + result.stderr
    pushed = git(origin.bare, "rev-parse", "refs/heads/swiftpm-1.2.3")
    assert git(origin.bare, "rev-parse", f"{pushed}^") == origin.swiftpm
    run = fake_github.only_check_run()
    assert run["conclusion"] == "success" and run["head_sha"] == origin.main
    outputs = step.outputs()
    assert outputs["pushed"] == "true" and outputs["branch"] == "swiftpm-1.2.3"
    assert f"Pushed `swiftpm-1.2.3` at `{pushed}`" in step.summary()
    _assert_token_never_logged(result, TOKEN)


def test_push_that_drops_a_framework_fails_the_check(tmp_path, origin, fake_github, runner):
    workspace = clone(origin, "main", tmp_path / "workspace")
    kept = [k for k in ALL_KEYS if k != "kernels_llm"]
    (workspace / WORKFLOW).write_text(workflow_text(kept))
    after = commit_all(workspace, "stop building kernels_llm")
    step, result = runner.run(
        workspace,
        "push",
        push_payload(ref="refs/heads/main", before=origin.main, after=after),
        sha=after,
        inputs={"frameworks-from": FRAMEWORKS_FROM, "github-token": TOKEN},
    )
    assert result.returncode == 1, result.stdout + result.stderr  # auto on push = check
    run = fake_github.only_check_run()
    assert run["head_sha"] == after and run["conclusion"] == "failure"
    template = tmp_path / "template.swift"
    template.write_text(git(origin.bare, "show", "swiftpm:Package.swift.template"))
    # main's tree has no Package.swift.template: the findings are listed with their branch.
    assert fake_github.annotations[run["id"]] == []
    text = run["output"]["text"]
    for needle in ("__SHA256_kernels_llm__", "__SHA256_kernels_llm_debug__"):
        assert f"swiftpm:Package.swift.template:{line_of(template, needle)}" in text
    assert step.outputs()["consistent"] == "false"


def _artifact_zip(tmp_path: Path, version: str) -> bytes:
    """What actions/upload-artifact stores: one zip holding the release zips."""
    zips = tmp_path / "built"
    zips.mkdir()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in all_names(ALL_KEYS):
            path = zips / f"{name}-{version}.zip"
            write_zip(path, name)
            archive.write(path, path.name)
    return buffer.getvalue()


def test_workflow_dispatch_with_inputs_checks_a_runs_artifact(tmp_path, origin, fake_github,
                                                              runner):
    version = "1.2.3"
    fake_github.add_artifact(REPOSITORY, 4242, "frameworks", _artifact_zip(tmp_path, version))
    fake_github.add_artifact(REPOSITORY, 4242, "logs", b"not this one")
    workspace = clone(origin, "main", tmp_path / "workspace")
    inputs = {"version": version, "run-id": "4242"}
    step, result = runner.run(
        workspace,
        "workflow_dispatch",
        dispatch_payload(inputs),
        sha=origin.main,
        inputs={
            "mode": "check",
            **inputs,
            "artifact-name": "frameworks",
            "frameworks-from": FRAMEWORKS_FROM,
            "github-token": TOKEN,
        },
    )
    assert result.returncode == 0, result.stdout + result.stderr
    run = fake_github.only_check_run()
    assert run["conclusion"] == "success" and run["head_sha"] == origin.main
    assert [c.status for c in fake_github.calls("actions/list-workflow-run-artifacts")] == [200]
    assert [c.status for c in fake_github.calls("actions/download-artifact")] == [302]
    outputs = step.outputs()
    assert outputs["consistent"] == "true" and outputs["branch"] == "swiftpm-1.2.3"
    manifest = (workspace / outputs["manifest"]).read_text()
    assert outputs["manifest"] == ".swiftpm-guard/Package.swift"
    assert "__SHA256_" not in manifest and "__VERSION__" not in manifest
    assert "20 zips from artifact `frameworks` of run 4242" in step.summary()
