"""`entrypoint.py` in audit mode: the published branches of the workspace clone's origin.

The origin holds sound and broken `swiftpm-*` branches in the real shape (support.published),
by path and served over loopback smart HTTP with the token required.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.action_repo import Served, served
from support.actions_env import (
    REPOSITORY,
    Origin,
    git,
    run_entrypoint,
)
from support.fake_github import FakeGitHub
from support.markdown import rendered_text
from support.published import BranchSpec, build_repo, nightly_versions
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS
from support.runner_job import Job

TOKEN = "ghs_e2eAuditToken0123456789"
BROKEN = "swiftpm-1.2.3"


def _specs() -> list[BranchSpec]:
    everything = [*PRODUCT_KEYS, *BINARY_ONLY_KEYS]
    return [
        BranchSpec("1.2.2"),
        # The release branch built one framework fewer than the template asks for.
        BranchSpec("1.2.3", built=[k for k in everything if k != "kernels_llm"]),
        *(BranchSpec(v) for v in nightly_versions(3, start="20250601", base="1.2.4")),
    ]


@pytest.fixture(params=["path", "http"])
def repo(request, tmp_path: Path, fake_github: FakeGitHub) -> Iterator[Served]:
    bare = build_repo(tmp_path / "remote" / "origin.git", _specs())
    origin = Origin(bare, git(bare, "rev-parse", "main"), git(bare, "rev-parse", "swiftpm"))
    with served(request.param, origin, tmp_path / "srv", TOKEN) as made:
        fake_github.add_repo(REPOSITORY, git_dir=made.bare)
        fake_github.add_token(TOKEN)
        yield made


def _run(tmp_path: Path, repo: Served, fake: FakeGitHub, **inputs: str):
    workspace = repo.clone("main", tmp_path / "workspace")
    step = Job(tmp_path, fake.url, served=repo).step(
        workspace, sha=repo.origin.main, inputs={"mode": "audit", "github-token": TOKEN, **inputs})
    return step, workspace, run_entrypoint(step, workspace)


def test_audit_names_the_broken_published_branch(tmp_path, repo, fake_github):
    step, workspace, result = _run(tmp_path, repo, fake_github)
    assert result.returncode == 1, result.stdout + result.stderr

    run = fake_github.only_check_run()
    assert run["conclusion"] == "failure" and run["head_sha"] == repo.origin.main
    assert run["output"]["title"].startswith("audit: NOT consistent: 5 branches, 1 with errors")
    manifest = git(repo.bare, "show", f"{BROKEN}:Package.swift").splitlines()
    line = next(i for i, text in enumerate(manifest, 1) if "__SHA256_kernels_llm__" in text)
    # The published branch's Package.swift is not main's: listed, never annotated on main.
    assert fake_github.annotations[run["id"]] == []
    assert f"`{BROKEN}:Package.swift:{line}` **error** `placeholder-left`" in \
        run["output"]["text"]
    assert f"`{BROKEN}`" in run["output"]["summary"]

    summary = step.summary()
    assert "### SwiftPM audit of" in summary and f"`{BROKEN}`" in summary
    assert "2 placeholders left" in summary
    # How to repair it, in the check run, the job summary and the log (issue 33).
    for shown in (rendered_text(run["output"]["summary"]), rendered_text(summary)):
        assert "How to repair" in shown
        assert f"Republish each broken branch ({BROKEN}) with update (input update: true" \
            in shown
        assert "Never allow-overwrite" in shown
        assert "Tell consumers: apps that follow the branch get the fix with swift package " \
            "update" in shown
    assert f"repair: Republish each broken branch ({BROKEN}) with update" in result.stderr
    outputs = step.outputs()
    assert outputs["consistent"] == "false" and outputs["pushed"] == "false"
    assert outputs["report"] == ".swiftpm-guard/audit.json"
    report = json.loads((workspace / outputs["report"]).read_text())
    assert json.loads(outputs["json"]) == report and report["kind"] == "audit"
    broken = [b["branch"] for b in report["branches"] if b["findings"]]
    assert broken == [BROKEN]
    for line_text in (result.stdout + result.stderr).splitlines():
        assert TOKEN not in line_text or line_text == f"::add-mask::{TOKEN}"
    assert TOKEN not in summary and TOKEN not in (workspace / ".git" / "config").read_text()
    if repo.server is not None:
        assert set(repo.server.authorizations) == {repo.server.expected_authorization()}


def test_audit_of_the_sound_branches_only(tmp_path, repo, fake_github):
    step, _workspace, result = _run(tmp_path, repo, fake_github, branches="swiftpm-1.2.4.*")
    assert result.returncode == 0, result.stdout + result.stderr
    run = fake_github.only_check_run()
    assert run["conclusion"] == "success"
    assert fake_github.annotations[run["id"]] == []
    assert step.outputs()["consistent"] == "true"
    # The check run carries the whole timeline; the job summary beside it only counts the
    # sound branches and links to it (one table, not two, in one job's view).
    assert "- 3 nightlies" in run["output"]["summary"]
    assert "- 3 nightlies" not in step.summary()
    # The picture is the job summary's own (issue 35): every group, drawn, not listed.
    assert "        3 nightlies, 2025-06-01 … 06-03 : sound\n" in step.summary()
    assert "3 sound branches" in step.summary() and "The whole report is in the check run" \
        in step.summary()
    assert "How to repair" not in run["output"]["summary"] and "repair:" not in result.stderr


def test_audit_without_matching_branches_is_bad_input(tmp_path, repo, fake_github):
    _step, _workspace, result = _run(tmp_path, repo, fake_github, branches="release-*")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "no branch matches 'release-*'" in result.stdout
    assert fake_github.check_runs == {}


def test_audit_says_which_rulesets_keep_the_published_branches(tmp_path, repo, fake_github):
    """Issue 35: the event repository's rules for the oldest and newest published branch,
    asked with the action's token; the job summary draws the versions as a timeline."""
    from support.fake_github import Ruleset

    fake_github.repos[REPOSITORY].rulesets.append(
        Ruleset(31, ("refs/heads/swiftpm-*",), ("deletion", "non_fast_forward")))
    step, workspace, result = _run(tmp_path, repo, fake_github)
    assert result.returncode == 1, result.stdout + result.stderr
    asked = fake_github.calls("repos/get-branch-rules")
    assert [r.path.rsplit("/", 1)[-1] for r in asked] == ["swiftpm-1.2.2", "swiftpm-1.2.4.20250603"]
    assert {r.authorization for r in asked} == {f"token {TOKEN}"}
    report = json.loads((workspace / step.outputs()["report"]).read_text())
    assert report["protection"] == {
        "asked": ["swiftpm-1.2.2", "swiftpm-1.2.4.20250603"],
        "covered": ["deletion", "non_fast_forward"], "missing": ["creation"],
        "rulesets": [31], "unknown": None}
    notice = ("::notice title=swiftpm-guard%3A branch protection::the published branches "
              "(swiftpm-1.2.2, swiftpm-1.2.4.20250603) are open to creation: no active ruleset "
              "restricts it")
    assert notice in result.stdout.splitlines()
    run = fake_github.only_check_run()
    for shown in (rendered_text(run["output"]["summary"]), rendered_text(step.summary())):
        assert "The published branches are not fully protected" in shown
        assert "❌ creation (creation)" in shown and "✅ deletion (deletion)" in shown
    summary = step.summary()
    assert summary.count("```mermaid\n%%{init: ") == 1 and summary.count("\ntimeline\n") == 1
    assert "    section broken\n        release 1.2.3 : 2 placeholders left\n" in summary


def test_audit_that_may_not_read_the_rules_says_it_could_not_tell(tmp_path, repo, fake_github):
    fake_github.inject("repos/get-branch-rules", "not-accessible")
    step, workspace, result = _run(tmp_path, repo, fake_github, branches="swiftpm-1.2.4.*")
    assert result.returncode == 0, result.stdout + result.stderr  # not an error exit
    report = json.loads((workspace / step.outputs()["report"]).read_text())
    assert report["protection"]["unknown"] == ("read the rules for branch swiftpm-1.2.4.20250601: "
                                               "HTTP 403: Resource not accessible by integration")
    assert ("::notice title=swiftpm-guard%3A branch protection::could not tell whether a ruleset "
            "protects the published branches") in result.stdout
    assert "Could not tell whether a ruleset protects the published branches" in \
        rendered_text(fake_github.only_check_run()["output"]["summary"])


def test_a_subject_that_looks_like_a_flag_is_printed_as_it_is(tmp_path, repo, fake_github):
    """The tip's subject is someone else's text: a commit called `--allow-overwrite` stays
    that, while the finding's advice names the option as the action's input."""
    branch = "swiftpm-1.2.2"
    tree = git(repo.bare, "rev-parse", f"{branch}^{{tree}}")
    edit = git(repo.bare, "commit-tree", tree, "-p", git(repo.bare, "rev-parse", branch),
               "-m", "--allow-overwrite")
    git(repo.bare, "update-ref", f"refs/heads/{branch}", edit)
    assert git(repo.bare, "log", "-1", "--format=%s", branch) == "--allow-overwrite"

    step, workspace, result = _run(tmp_path, repo, fake_github)
    assert result.returncode == 1, result.stdout + result.stderr
    advice = ("Review the edit; to republish on top of it use input update, never "
              "input allow-overwrite")
    [line] = [text for text in result.stderr.splitlines()
              if "edited-after-publish" in text and branch in text]
    assert '("--allow-overwrite", ' in line and line.endswith(advice)
    report = json.loads((workspace / ".swiftpm-guard/audit.json").read_text())
    [edited] = [f["message"] for b in report["branches"] for f in b["findings"]
                if f["code"] == "edited-after-publish"]
    assert '("--allow-overwrite", ' in edited and edited.endswith(advice)
    assert "\ufdd0" not in step.summary() and "input allow-overwrite" in step.summary()
