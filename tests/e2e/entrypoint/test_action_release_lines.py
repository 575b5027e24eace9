"""Adopted on a history shaped like ExecuTorch's (issue 23): release lines, new versus
existing, annotations only on the checked commit's files, reports that name the problem.

`entrypoint.py` in a fresh process with the runner's environment, against the loopback fake
GitHub (every request validated) and an origin by path (`support/release_lines.py`).
"""

from __future__ import annotations

import json
import os
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
    line_of,
    pull_request_payload,
)
from support.fake_github import FakeGitHub
from support.markdown import rendered_text, table_rows
from support.release import all_names, write_template_branch, write_zip
from support.release_lines import (
    DROPPED,
    EXPRESSION,
    LIVE_KEYS,
    LIVE_PRODUCTS,
    OLD_DAY,
    OLD_PUBLISHED,
    TOPIC,
    History,
    executorch_workflow,
    make_history,
)
from support.runner_job import Job

TOKEN = "ghs_releaseLinesToken0123456789ab"
TOKENS = {"github-token": TOKEN}
LINES = {"frameworks-from": FRAMEWORKS_FROM, "frameworks-ref": "main release/*",
         "plain-expressions": EXPRESSION}


@pytest.fixture
def history(tmp_path: Path, fake_github: FakeGitHub) -> History:
    made = make_history(tmp_path / "remote")
    fake_github.add_repo(REPOSITORY, git_dir=made.bare)
    fake_github.add_token(TOKEN)
    return made


def _checkout(history: History, branch: str, dest: Path) -> Path:
    return clone(Origin(history.bare, history.main, history.swiftpm), branch, dest)


def _template_pr(tmp_path: Path, history: History, runner: Job, inputs=LINES):
    """The torchao pull request: the template asks for a product `main` does not build yet."""
    workspace = _checkout(history, "swiftpm", tmp_path / "workspace")
    git(workspace, "checkout", "-q", "-b", "torchao-swiftpm")
    write_template_branch(workspace, [*LIVE_PRODUCTS, "kernels_gguf"])
    head = commit_all(workspace, "Add GGUF kernels (#13401)")
    payload = pull_request_payload(number=13401, head_sha=head, head_ref="torchao-swiftpm",
                                   base_ref="swiftpm", base_sha=history.swiftpm)
    step, result = runner.using(inputs=TOKENS).run(
        workspace, "pull_request", payload, sha=head, ref="refs/pull/13401/merge", inputs=inputs)
    return workspace, head, step, result


def test_a_template_pr_against_every_release_line_names_the_problem(
        tmp_path, history, fake_github, runner):
    workspace, head, step, result = _template_pr(tmp_path, history, runner)
    assert result.returncode == 1, result.stdout + result.stderr
    run = fake_github.only_check_run()
    assert run["conclusion"] == "failure"  # the pull request brings the error
    # The title is the problem, debug twin folded, not a count.
    assert run["output"]["title"] == \
        "kernels_gguf: the template asks for it; main does not build it"

    summary = rendered_text(run["output"]["summary"])
    rows = {r[0]: r for r in table_rows(run["output"]["summary"]) if r and r[0] != "ref"}
    assert rows["main"][1:3] == ["✓", str(len(all_names(LIVE_KEYS)))]
    assert rows["release/1.4"][1] == "✓"  # the newest line still publishes
    assert rows["release/0.4"][1] == "✗"
    assert rows["release/0.4"][4] == f"{OLD_PUBLISHED} ({OLD_DAY})"
    assert rows["release/0.4"][3].startswith(f"be blocked: drop {DROPPED}")
    assert rows["main"][3].startswith("be blocked: miss kernels_gguf")
    # No exit 2 for a line from before the workflow, nor for a topic branch: a word each.
    assert "release/0.1: .github/workflows/apple.yml: workflow not found in origin/release/0.1" \
        in summary
    assert f"{TOPIC}: matched by 'release/*' but its name is no version" in summary

    # The old line's problem is a warning that says when it last published, one row of the
    # table and one line of the log, not a bullet per finding (issue 33); kernels_gguf is
    # missing from every line: one problem, not one per line.
    assert f"release/0.4: '{DROPPED}' was declared" not in summary
    assert "more on release lines that no longer publish: one row each" in summary
    assert (f"release/0.4: no longer publishes (last published {OLD_PUBLISHED} ({OLD_DAY})); "
            f"publishing from it would be blocked: drop {DROPPED}") in result.stderr
    document = json.loads((workspace / ".swiftpm-guard" / "report.json").read_text())
    errors = [f for f in document["findings"] if f["severity"] == "error"]
    assert {f["subject"] for f in errors} == {"kernels_gguf", "kernels_gguf_debug"}
    old = [f for f in document["findings"] if f["ref"] == "release/0.4"]
    assert old and {f["severity"] for f in old} == {"warning"}
    assert all(f"release/0.4 no longer publishes: it last published {OLD_PUBLISHED} "
               f"({OLD_DAY})" in f["message"] for f in old)

    # Each problem says what to change, and which commit brought the template line.
    torchao = next(f for f in errors if f["subject"] == "kernels_gguf")
    assert torchao["fix"].startswith("build kernels_gguf (add it to FRAMEWORKS in "
                                     f"{WORKFLOW} (job build-frameworks)")
    assert "“Add GGUF kernels (#13401)”, PR #13401" in torchao["fix"]
    assert head[:10] in torchao["fix"]
    assert "Fix: build kernels_gguf" in summary

    # Annotations only on files of the pull request's tree: the template is; release/0.4's
    # apple.yml is not (the template branch has no .github/), and release/0.4 no longer
    # publishes: its row says it all.
    annotations = fake_github.annotations[run["id"]]
    assert {a["path"] for a in annotations} == {"Package.swift.template"}
    template_line = line_of(workspace / "Package.swift.template", "__SHA256_kernels_gguf__")
    assert ("Package.swift.template", template_line, "failure") in {
        (a["path"], a["start_line"], a["annotation_level"]) for a in annotations}
    assert f"release/0.4:{WORKFLOW}:" not in (run["output"]["text"] or "")
    assert step.outputs()["check-run-id"] == str(run["id"])


def test_old_lines_weigh_as_errors_when_named_active(tmp_path, history, fake_github, runner):
    _, _, _, result = _template_pr(tmp_path, history, runner,
                                   {**LINES, "active-refs": "main release/*"})
    assert result.returncode == 1
    document = json.loads((tmp_path / "workspace" / ".swiftpm-guard" / "report.json")
                          .read_text())
    old = [f for f in document["findings"] if f["ref"] == "release/0.4"]
    assert old and {f["severity"] for f in old} == {"error"}


def test_the_expression_is_refused_unless_vouched_for(tmp_path, history, fake_github, runner):
    inputs = {k: v for k, v in LINES.items() if k != "plain-expressions"}
    _, _, _step, result = _template_pr(tmp_path, history, runner, inputs)
    assert result.returncode == 2
    assert f"GitHub expression ${{{{ {EXPRESSION} }}}}" in result.stdout
    assert "input plain-expressions" in result.stdout and "(frameworks-ref main)" in result.stdout


def test_a_pull_request_into_the_template_branch_that_fixes_nothing_new_stays_neutral(
        tmp_path, history, fake_github, runner):
    """The old line's drift is on the base too: shown as already there, not failing."""
    workspace = _checkout(history, "swiftpm", tmp_path / "workspace")
    git(workspace, "checkout", "-q", "-b", "readme")
    (workspace / "README.md").write_text("the template branch\n")
    head = commit_all(workspace, "Document the template (#5000)")
    payload = pull_request_payload(number=5000, head_sha=head, head_ref="readme",
                                   base_ref="swiftpm", base_sha=history.swiftpm)
    _step, result = runner.using(inputs=TOKENS).run(
        workspace, "pull_request", payload, sha=head, ref="refs/pull/5000/merge",
        inputs={**LINES, "active-refs": "main release/*"})
    assert result.returncode == 0, result.stdout + result.stderr
    run = fake_github.only_check_run()
    assert run["conclusion"] == "neutral"
    assert run["output"]["title"].endswith("(already there before this change)")
    summary = rendered_text(run["output"]["summary"])
    assert "Already there before this change (swiftpm)" in summary


# -- pull requests into main: new versus existing -----------------------------------------------


def _main_pr(tmp_path: Path, history: History, runner: Job, keys, number: int,
             template_products=LIVE_PRODUCTS):
    if template_products != LIVE_PRODUCTS:  # the template runs ahead of main
        seed = tmp_path / "template-change"
        git(tmp_path, "clone", "-q", "--branch", "swiftpm", str(history.bare), str(seed))
        write_template_branch(seed, template_products)
        commit_all(seed, "Add GGUF kernels (#13401)")
        git(seed, "push", "-q", "origin", "swiftpm")
    workspace = _checkout(history, "main", tmp_path / "workspace")
    git(workspace, "checkout", "-q", "-b", f"change-{number}")
    (workspace / WORKFLOW).write_text(executorch_workflow(tuple(keys)))
    (workspace / "README.md").write_text(f"change {number}\n")
    head = commit_all(workspace, f"Change {number}")
    payload = pull_request_payload(number=number, head_sha=head, head_ref=f"change-{number}",
                                   base_ref="main", base_sha=history.main)
    inputs = {"frameworks-from": FRAMEWORKS_FROM, "plain-expressions": EXPRESSION}
    return workspace, *runner.using(inputs=TOKENS).run(
        workspace, "pull_request", payload, sha=head, ref=f"refs/pull/{number}/merge",
        inputs=inputs)


def test_a_pull_request_into_main_that_introduces_drift_fails(tmp_path, history, fake_github,
                                                              runner):
    keys = [k for k in LIVE_KEYS if k != "kernels_llm"]
    _workspace, _step, result = _main_pr(tmp_path, history, runner, keys, 31)
    assert result.returncode == 1, result.stdout + result.stderr
    run = fake_github.only_check_run()
    assert run["conclusion"] == "failure"
    assert run["output"]["title"].startswith("kernels_llm: the template asks for it;")
    levels = {a["annotation_level"] for a in fake_github.annotations[run["id"]]}
    assert levels == {"failure"}
    # Annotated on the workflow line that dropped it (in the tree); the template side is
    # listed as swiftpm:path:line, the template not being in main's tree.
    assert {a["path"] for a in fake_github.annotations[run["id"]]} == {WORKFLOW}
    summary = rendered_text(run["output"]["summary"])
    assert "Template side (swiftpm, not in this pull request's tree)" in summary


def test_a_pull_request_into_main_with_only_existing_drift_is_neutral(
        tmp_path, history, fake_github, runner):
    _workspace, _step, result = _main_pr(tmp_path, history, runner, LIVE_KEYS, 32,
                                       template_products=[*LIVE_PRODUCTS, "kernels_gguf"])
    assert result.returncode == 0, result.stdout + result.stderr
    run = fake_github.only_check_run()
    assert run["conclusion"] == "neutral"
    annotations = fake_github.annotations[run["id"]]
    assert annotations and {a["annotation_level"] for a in annotations} == {"notice"}
    assert all(a["title"].startswith("already there: ") for a in annotations)
    summary = rendered_text(run["output"]["summary"])
    assert "Already there before this change (main)" in summary
    assert "These do not decide this check's conclusion." in summary


# -- the nightly: the template is not in main's tree ---------------------------------------------


def test_the_nightly_lists_template_findings_instead_of_annotating_main(
        tmp_path, history, fake_github, runner):
    workspace = _checkout(history, "main", tmp_path / "workspace")
    version = "1.5.0.20250819"
    out = workspace / "out"
    out.mkdir()
    for name in all_names([k for k in LIVE_KEYS if k != "kernels_llm"]):
        write_zip(out / f"{name}-{version}.zip", name)
    _step, result = runner.using(inputs=TOKENS).run(
        workspace, sha=history.main,
        inputs={"mode": "check", "version": version, "artifacts": "out"})
    assert result.returncode == 1, result.stdout + result.stderr
    run = fake_github.only_check_run()
    assert fake_github.annotations[run["id"]] == []  # main has no Package.swift.template
    text = rendered_text(run["output"]["text"])
    assert "swiftpm:Package.swift.template:" in text and "kernels_llm" in text
    assert run["output"]["title"].startswith("kernels_llm: the template asks for it;")


# -- one check run per job ------------------------------------------------------------------------


def test_a_later_step_updates_the_earlier_steps_check_run(tmp_path, history, fake_github, runner):
    workspace, head, first, result = _template_pr(tmp_path, history, runner)
    assert result.returncode == 1
    run_id = first.outputs()["check-run-id"]
    shown = len(fake_github.annotations[int(run_id)])
    assert shown > 0
    payload = json.loads(Path(first.env["GITHUB_EVENT_PATH"]).read_text())
    second, result = runner.using(inputs=TOKENS).run(
        workspace, "pull_request", payload, sha=head, ref="refs/pull/13401/merge",
        inputs={**LINES, "check-run": run_id})
    assert result.returncode == 1
    run = fake_github.only_check_run()  # one run, updated
    assert str(run["id"]) == run_id == second.outputs()["check-run-id"]
    assert run["updates"] >= 1
    assert len(fake_github.annotations[run["id"]]) == shown  # nothing sent twice

    third, result = runner.using(inputs=TOKENS).run(
        workspace, "pull_request", payload, sha=head, ref="refs/pull/13401/merge",
        inputs={**LINES, "check-run": "none"})
    assert len(fake_github.check_runs) == 1 and result.returncode == 1
    assert third.outputs()["check-run-id"] == ""
    assert "input check-run is none" in third.summary()


def test_output_files_belong_to_the_workspace_owner(tmp_path, history, fake_github, runner):
    if os.geteuid() != 0:
        pytest.skip("needs root to run as the action's container does")
    workspace, head, step, result = _template_pr(tmp_path, history, runner)
    assert result.returncode == 1
    os.chown(workspace, 1001, 1001)
    _, result = runner.using(inputs=TOKENS).run(
        workspace, "pull_request", json.loads(Path(step.env["GITHUB_EVENT_PATH"]).read_text()),
        sha=head, ref="refs/pull/13401/merge", inputs=LINES)
    folder = workspace / ".swiftpm-guard"
    for path in (folder, *folder.iterdir()):
        assert (path.stat().st_uid, path.stat().st_gid) == (1001, 1001), path


@pytest.mark.parametrize("refs", ["main relese/*", "relese/*", "main release/9.9"])
def test_a_frameworks_ref_that_matches_nothing_is_exit_2_naming_it(
        tmp_path, history, fake_github, refs, runner):
    _, _, _step, result = _template_pr(tmp_path, history, runner,
                                      {**LINES, "frameworks-ref": refs})
    assert result.returncode == 2, result.stdout + result.stderr
    wrong = refs.split()[-1]
    assert f"::error title=swiftpm-guard::frameworks-ref '{wrong}'" in result.stdout
    assert fake_github.check_runs == {}


# -- what publishes is read from what was published, not from branch names ----------------------


def test_a_decoy_release_branch_does_not_demote_the_line_that_published(
        tmp_path, history, fake_github, runner):
    """Issue 32: an empty `release/99.0` (anyone who can push a branch) made itself "the newest
    line" and demoted release/1.4, which published swiftpm-1.4.0, to warnings: a template pull
    request that breaks release/1.4 passed. What was published decides now."""
    seed = tmp_path / "seed"
    git(tmp_path, "clone", "-q", str(history.bare), str(seed))
    git(seed, "checkout", "-q", "main")  # main builds kernels_gguf; release/1.4 does not
    (seed / WORKFLOW).write_text(executorch_workflow((*LIVE_KEYS, "kernels_gguf")))
    commit_all(seed, "Build GGUF kernels (#13400)")
    git(seed, "checkout", "-q", "--orphan", "release/99.0")
    git(seed, "rm", "-rqf", ".")
    (seed / "README.md").write_text("decoy\n")
    commit_all(seed, "decoy")
    git(seed, "push", "-q", "origin", "main", "release/99.0")
    history = History(history.bare, git(seed, "rev-parse", "main"), history.swiftpm)

    _workspace, _head, _step, result = _template_pr(tmp_path, history, runner)
    assert result.returncode == 1, result.stdout + result.stderr  # release/1.4 breaks
    run = fake_github.only_check_run()
    assert run["conclusion"] == "failure"
    rows = {r[0]: r for r in table_rows(run["output"]["summary"]) if r and r[0] != "ref"}
    assert rows["release/1.4"][1] == "✓"  # still publishes: it published swiftpm-1.4.0
    assert rows["main"][1] == "✓"
    assert "release/99.0" not in rows or rows["release/99.0"][1] != "✓"
    document = json.loads((tmp_path / "workspace" / ".swiftpm-guard" / "report.json")
                          .read_text())
    errors = [f for f in document["findings"] if f["severity"] == "error"]
    assert {f["subject"] for f in errors} == {"kernels_gguf", "kernels_gguf_debug"}
    assert {f["ref"] for f in errors} == {"release/1.4"}
