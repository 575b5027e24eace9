"""Reports that rank what matters and anchor where the fix is (issue 33, items 4, 5 and 9).

`entrypoint.py` in a fresh process with the runner's environment, against the loopback fake
GitHub (every request validated) and an origin by path in ExecuTorch's shape after the MPS
removal, with many old release lines (`support/release_lines.make_drift_history`).
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from support.actions_env import (
    FRAMEWORKS_FROM,
    REPOSITORY,
    WORKFLOW,
    Origin,
    clone,
    commit_all,
    dispatch_payload,
    git,
    line_of,
    pull_request_payload,
)
from support.executorch import RELEASE_KEYS, REMOVED, make_executorch
from support.fake_github import FakeGitHub
from support.markdown import rendered_text, table_rows
from support.release import all_names, write_template_branch, write_zip
from support.release_lines import (
    EXPRESSION,
    LIVE_PRODUCTS,
    OLD_LINES,
    History,
    make_drift_history,
)
from support.runner_job import Job

TOKEN = "ghs_reportsToken0123456789abcdefgh"
TOKENS = {"github-token": TOKEN}
LINES = {"frameworks-from": FRAMEWORKS_FROM, "frameworks-ref": "main release/*",
         "plain-expressions": EXPRESSION}


@pytest.fixture
def drift(tmp_path: Path, fake_github: FakeGitHub) -> History:
    made = make_drift_history(tmp_path / "remote")
    fake_github.add_repo(REPOSITORY, git_dir=made.bare)
    fake_github.add_token(TOKEN)
    return made


def _torchao_pr(tmp_path: Path, history: History, runner: Job):
    workspace = clone(Origin(history.bare, history.main, history.swiftpm), "swiftpm",
                      tmp_path / "workspace")
    git(workspace, "checkout", "-q", "-b", "torchao-swiftpm")
    write_template_branch(workspace, [*LIVE_PRODUCTS, "kernels_gguf"])
    head = commit_all(workspace, "Add GGUF kernels (#13401)")
    payload = pull_request_payload(number=13401, head_sha=head, head_ref="torchao-swiftpm",
                                   base_ref="swiftpm", base_sha=history.swiftpm)
    step, result = runner.using(inputs=TOKENS).run(
        workspace, "pull_request", payload, sha=head, ref="refs/pull/13401/merge", inputs=LINES)
    return workspace, step, result


def test_lines_that_no_longer_publish_are_one_row_each_and_errors_lead(
        tmp_path, drift, fake_github, runner):
    """The torchao PR against main, release/1.4 and six old lines that still build MPS: the
    check run was 22 KB of per-finding warnings on release/0.2 to 0.7 (58 KB on ExecuTorch),
    with 30 warnings in the log before the two errors."""
    workspace, step, result = _torchao_pr(tmp_path, drift, runner)
    assert result.returncode == 1, result.stdout + result.stderr
    run = fake_github.only_check_run()
    output = run["output"]
    size = len(output["summary"].encode()) + len((output["text"] or "").encode())
    assert size < 6000, size
    assert output["title"] == "kernels_gguf: the template asks for it; main does not build it"

    # The log: the errors first, then warnings, then one line per old line.
    log = [line for line in result.stderr.splitlines() if ": error: " in line
           or ": warning: " in line or "no longer publishes" in line]
    assert [": error: " in line for line in log[:2]] == [True, True]
    old = [line for line in log if line.startswith("release/0.")]
    assert len(old) == len(OLD_LINES)
    assert old[0].startswith("release/0.2: no longer publishes (last published swiftpm-0.2.0 "
                             "(2024-01-05)); publishing from it would be blocked: drop "
                             "backend_mps")
    assert "(6 warnings, each in the JSON report)" in old[0]

    # The check run and the job summary: one row per old line, no bullet, no annotation.
    summary = rendered_text(output["summary"])
    rows = {r[0]: r for r in table_rows(output["summary"]) if r and r[0].startswith("release/")}
    assert set(rows) == {*OLD_LINES, "release/1.4"}
    assert rows["release/0.5"][1] == "✗" and rows["release/0.5"][3].startswith(
        "be blocked: drop backend_mps")
    assert "release/0.5:" not in summary and "release/0.5:" not in (output["text"] or "")
    assert "36 more on release lines that no longer publish: one row each under Release " \
        "lines" in summary
    assert {a["path"] for a in fake_github.annotations[run["id"]]} == {"Package.swift.template"}
    assert {a["annotation_level"] for a in fake_github.annotations[run["id"]]} == {"failure"}
    job = rendered_text(step.summary())
    assert "release/0.5:" not in job and "36 more on release lines" in job
    assert job.index("error") < job.index("warning")
    # Nothing is lost: the JSON report keeps every finding.
    document = json.loads((workspace / ".swiftpm-guard" / "report.json").read_text())
    assert sum(f["ref"] in OLD_LINES for f in document["findings"]) == 36


# -- item 4: findings stand on the line that declares the name -----------------------------------


@pytest.fixture
def executorch(tmp_path: Path, fake_github: FakeGitHub):
    made = make_executorch(tmp_path / "remote")
    fake_github.add_repo(REPOSITORY, git_dir=made.bare)
    fake_github.add_token(TOKEN)
    return made


def _release_build(tmp_path: Path, et, folder: str = "frameworks-ios") -> Path:
    """release/1.0 checked out, its build's zips downloaded into the workspace."""
    workspace = clone(Origin(et.bare, et.main, et.swiftpm), "release/1.0", tmp_path / "workspace")
    git(workspace, "fetch", "-q", "origin", "swiftpm:refs/remotes/origin/swiftpm")
    (workspace / folder).mkdir()
    for name in all_names(RELEASE_KEYS):
        write_zip(workspace / folder / f"{name}-1.0.1.zip", name)
    return workspace


def test_a_dropped_name_is_annotated_on_the_frameworks_line_with_the_commit_that_dropped_it(
        tmp_path, executorch, fake_github, runner):
    workspace = _release_build(tmp_path, executorch)
    ref = "refs/heads/release/1.0"
    _step, result = runner.using(inputs=TOKENS).run(
        workspace, "workflow_dispatch", dispatch_payload({}, ref=ref), sha=executorch.release,
        ref=ref,
        inputs={"version": "1.0.1", "artifacts": "frameworks-ios",
                "frameworks-from": FRAMEWORKS_FROM})
    assert result.returncode == 1, result.stdout + result.stderr
    run = fake_github.only_check_run()
    declared = line_of(workspace / WORKFLOW, f'"{REMOVED}"')
    found = {(a["path"], a["start_line"], a["title"]) for a in fake_github.annotations[run["id"]]}
    # The name and its twin, one problem on one line: one annotation.
    assert found == {(WORKFLOW, declared, f"unclaimed-artifact: {REMOVED}, {REMOVED}_debug")}
    assert not any(".zip" in a["path"] for a in fake_github.annotations[run["id"]])
    assert run["output"]["title"] == \
        f"{REMOVED}: release/1.0 builds it; no template has its product"
    message = fake_github.annotations[run["id"]][0]["message"]
    fix = message.split("\nFix: ", 1)[1]
    assert f"stop building it at {WORKFLOW}:{declared}" in fix
    assert (f"the template dropped it with {executorch.swiftpm[:10]} “Remove {REMOVED}”"
            in fix)
    assert "frameworks-ios/" not in fix
    summary = rendered_text(run["output"]["summary"])
    assert f"{WORKFLOW}:{declared}" in summary and "frameworks-ios/" not in summary


def _run_artifact(tmp_path: Path, fake: FakeGitHub) -> None:
    """What actions/upload-artifact stores: one zip holding release/1.0's zips."""
    built = tmp_path / "built"
    built.mkdir()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in all_names(RELEASE_KEYS):
            write_zip(built / f"{name}-1.0.1.zip", name)
            archive.write(built / f"{name}-1.0.1.zip", f"{name}-1.0.1.zip")
    fake.add_artifact(REPOSITORY, 4242, "frameworks-ios", buffer.getvalue())


@pytest.mark.parametrize("declared", [True, False])
def test_a_run_artifacts_dropped_name_names_the_line_or_stays_job_level(
        tmp_path, executorch, fake_github, declared, runner):
    """Zips from a run's artifact: annotated on FRAMEWORKS when the list is given, else on
    no file at all; the title says who built it and the summary how to fix it."""
    workspace = clone(Origin(executorch.bare, executorch.main, executorch.swiftpm),
                      "release/1.0", tmp_path / "workspace")
    _run_artifact(tmp_path, fake_github)
    ref = "refs/heads/release/1.0"
    inputs = {"version": "1.0.1", "run-id": "4242", "artifact-name": "frameworks-ios"}
    if declared:
        inputs["frameworks-from"] = FRAMEWORKS_FROM
    _step, result = runner.using(inputs=TOKENS).run(
        workspace, "workflow_dispatch", dispatch_payload({}, ref=ref), sha=executorch.release,
        ref=ref, inputs=inputs)
    assert result.returncode == 1, result.stdout + result.stderr
    run = fake_github.only_check_run()
    assert run["output"]["title"] == \
        f"{REMOVED}: release/1.0 builds it; no template has its product"
    paths = {(a["path"], a["start_line"]) for a in fake_github.annotations[run["id"]]}
    declared_at = line_of(workspace / WORKFLOW, f'"{REMOVED}"')
    assert paths == ({(WORKFLOW, declared_at)} if declared else set())
    summary = rendered_text(run["output"]["summary"])
    assert f"Fix: add {REMOVED}'s product and binary target to Package.swift.template" in summary
    if not declared:  # listed with where it came from, in the text beside the summary
        assert f"frameworks-ios@run-4242/{REMOVED}-1.0.1.zip" in rendered_text(
            run["output"]["text"])


def test_without_a_check_run_an_error_on_no_line_is_a_job_level_annotation(
        tmp_path, executorch, fake_github, runner):
    """Workflow commands carry the annotations (a dry run makes no check run): the zip's
    error is an `::error` without a file, once, not also a plain log line."""
    workspace = clone(Origin(executorch.bare, executorch.main, executorch.swiftpm),
                      "release/1.0", tmp_path / "workspace")
    _run_artifact(tmp_path, fake_github)
    ref = "refs/heads/release/1.0"
    inputs = {"version": "1.0.1", "run-id": "4242", "artifact-name": "frameworks-ios",
              "dry-run": "true"}
    _step, result = runner.using(inputs=TOKENS).run(
        workspace, "workflow_dispatch", dispatch_payload({}, ref=ref), sha=executorch.release,
        ref=ref, inputs=inputs)
    assert result.returncode == 1, result.stdout + result.stderr
    assert fake_github.check_runs == {}
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert [e.split("::")[1] for e in errors] == [
        f"error title=unclaimed-artifact%3A {REMOVED}",
        f"error title=unclaimed-artifact%3A {REMOVED}_debug"]
    assert f"frameworks-ios@run-4242/{REMOVED}-1.0.1.zip: '{REMOVED}' was built" in errors[0]
    plain = [line for line in result.stderr.splitlines() if "unclaimed-artifact" in line]
    assert plain == []


# -- item 9: a free version leaves the job's check run alone --------------------------------------


@pytest.mark.parametrize("check_run", ["update", "create"])
def test_a_free_version_in_preflight_does_not_retitle_the_jobs_check_run(
        tmp_path, executorch, fake_github, check_run, runner):
    workspace = clone(Origin(executorch.bare, executorch.main, executorch.swiftpm), "main",
                      tmp_path / "workspace")
    (workspace / "out").mkdir()
    for name in all_names([k for k in RELEASE_KEYS if k != REMOVED]):
        write_zip(workspace / "out" / f"{name}-1.2.0.zip", name)
    ref = "refs/heads/main"
    first, result = runner.using(inputs=TOKENS).run(
        workspace, "workflow_dispatch", dispatch_payload({}, ref=ref), sha=executorch.main,
        ref=ref, inputs={"mode": "check", "version": "1.2.0", "artifacts": "out"})
    assert result.returncode == 0, result.stdout + result.stderr
    made = fake_github.only_check_run()
    title = made["output"]["title"]
    assert title.startswith("consistent for 1.2.0")
    inputs = {"mode": "preflight", "version": "1.2.0"}
    if check_run == "update":
        inputs["check-run"] = first.outputs()["check-run-id"]
    free, result = runner.using(inputs=TOKENS).run(
        workspace, "workflow_dispatch", dispatch_payload({}, ref=ref), sha=executorch.main,
        ref=ref, inputs=inputs)
    assert result.returncode == 0, result.stdout + result.stderr
    run = fake_github.only_check_run()  # none made, none updated
    assert run["output"]["title"] == title and run.get("updates", 0) == 0
    assert free.outputs()["check-run-id"] == ""
    assert "`swiftpm-1.2.0` is free" in free.summary()
    assert "No check run: the version is free" in free.summary()

    taken = {"mode": "preflight", "version": "1.1.0",
             "check-run": first.outputs()["check-run-id"]}
    _step, result = runner.using(inputs=TOKENS).run(
        workspace, "workflow_dispatch", dispatch_payload({}, ref=ref), sha=executorch.main,
        ref=ref, inputs=taken)
    assert result.returncode == 1  # a taken version decides the job: it is said there
    assert fake_github.only_check_run()["output"]["title"] == "swiftpm-1.1.0 is taken"


def test_a_run_that_does_not_publish_shows_the_draft_manifest_fenced(
        tmp_path, executorch, fake_github, runner):
    """A check with a version, one name not built: the job summary holds what would have
    been published, placeholder and all, in a swift fence."""
    workspace = clone(Origin(executorch.bare, executorch.main, executorch.swiftpm), "main",
                      tmp_path / "workspace")
    (workspace / "out").mkdir()
    for name in all_names([k for k in RELEASE_KEYS if k not in (REMOVED, "kernels_llm")]):
        write_zip(workspace / "out" / f"{name}-1.2.0.zip", name)
    ref = "refs/heads/main"
    step, result = runner.using(inputs=TOKENS).run(
        workspace, "workflow_dispatch", dispatch_payload({}, ref=ref), sha=executorch.main,
        ref=ref, inputs={"mode": "check", "version": "1.2.0", "artifacts": "out"})
    assert result.returncode == 1, result.stdout + result.stderr
    summary = step.summary()
    assert "#### Draft manifest (not published by this run)" in summary
    assert "<summary>Package.swift (draft)</summary>" in summary
    fenced = summary.split("```swift\n", 1)[1].split("\n```", 1)[0]
    assert 'let version = "1.2.0"' in fenced
    assert "__SHA256_kernels_llm__" in fenced and "__SHA256_executorch__" not in fenced
