"""The action's defaults and shapes on a release repository shaped like ExecuTorch's (issue 14).

`entrypoint.py` in a fresh process with the runner's environment, against the loopback fake
GitHub (every request validated) and the origin by path or served over loopback smart HTTP
(token required). The repository (`support/executorch.py`): `main` dropped `backend_mps`,
`release/1.0` still builds it, the template branch `swiftpm` carries its own `.github/`
workflow, `swiftpm-1.0.0` was fixed by hand after publishing, `swiftpm-1.1.0` was not.

Two tokens, as ExecuTorch has them: `push-token` (a PAT, the only token the git server
accepts) and `github-token` (the only token the fake API accepts).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.action_repo import Served, served
from support.actions_env import (
    FRAMEWORKS_FROM,
    REPOSITORY,
    WORKFLOW,
    Origin,
    commit_all,
    dispatch_payload,
    git,
    line_of,
    pull_request_payload,
    run_entrypoint,
)
from support.executorch import (
    FIXED_CHECKSUM,
    LIVE_KEYS,
    LIVE_PRODUCTS,
    MAINTAINER,
    REMOVED,
    TEMPLATE_WORKFLOW,
    ExecuTorchOrigin,
    make_executorch,
)
from support.fake_github import FakeGitHub
from support.markdown import rendered_text, table_rows
from support.release import all_names, workflow_text, write_template_branch, write_zip
from support.zip_server import Route, serve_zips

API_TOKEN = "ghs_e2eApiToken0123456789abcdef"
PUSH_TOKEN = "github_pat_e2ePushToken0123456789"
TOKENS = {"github-token": API_TOKEN, "push-token": PUSH_TOKEN}
NIGHTLY = "1.2.0.20250101"


class Repo:
    """The ExecuTorch-shaped origin as served, and its commits."""

    def __init__(self, made: Served, et: ExecuTorchOrigin) -> None:
        self.served = made
        self.et = et

    @property
    def bare(self) -> Path:
        return self.served.bare

    def heads(self) -> dict[str, str]:
        return self.served.heads()

    def requests(self) -> list[str]:
        return self.served.server.requests if self.served.server else []


def _serve(request, tmp_path: Path, fake: FakeGitHub, kind: str) -> Iterator[Repo]:
    et = make_executorch(tmp_path / "remote")
    origin = Origin(et.bare, et.main, et.swiftpm)
    with served(kind, origin, tmp_path / "srv", PUSH_TOKEN) as made:
        fake.add_repo(REPOSITORY, git_dir=made.bare)
        fake.add_token(API_TOKEN)
        yield Repo(made, et)


@pytest.fixture(params=["path", "http"])
def repo(request, tmp_path: Path, fake_github: FakeGitHub) -> Iterator[Repo]:
    yield from _serve(request, tmp_path, fake_github, request.param)


@pytest.fixture
def http_repo(request, tmp_path: Path, fake_github: FakeGitHub) -> Iterator[Repo]:
    yield from _serve(request, tmp_path, fake_github, "http")


@pytest.fixture
def path_repo(request, tmp_path: Path, fake_github: FakeGitHub) -> Iterator[Repo]:
    yield from _serve(request, tmp_path, fake_github, "path")


def _zips(folder: Path, version: str, keys=LIVE_KEYS) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in all_names(keys):
        write_zip(folder / f"{name}-{version}.zip", name)


def _files(bare: Path, commit: str) -> list[str]:
    return git(bare, "ls-tree", "-r", "--name-only", commit).splitlines()


def _assert_tokens_kept_apart(repo: Repo, fake: FakeGitHub, result) -> None:
    """git got only push-token, the API only github-token; neither in the log but its mask."""
    assert fake.requests
    for recorded in fake.requests:
        assert recorded.authorization in (None, f"token {API_TOKEN}", f"Bearer {API_TOKEN}")
    assert any(r.authorization and API_TOKEN in r.authorization for r in fake.requests)
    server = repo.served.server
    if server is not None:
        assert server.authorizations
        assert set(server.authorizations) == {server.expected_authorization()}
        assert not any(API_TOKEN in (a or "") for a in server.authorizations)
    for line in (result.stdout + result.stderr).splitlines():
        for token in (API_TOKEN, PUSH_TOKEN):
            assert token not in line or line == f"::add-mask::{token}", line
    assert f"::add-mask::{API_TOKEN}" in result.stdout
    assert f"::add-mask::{PUSH_TOKEN}" in result.stdout


# -- PRs into the template branch ----------------------------------------------------------------


def test_a_template_pr_fails_by_default_against_every_release_line(tmp_path, repo, fake_github,
                                                                   runner):
    """A PR into `swiftpm` that adds a placeholder `main` does not build: failure, not neutral;
    and `release/1.0` (still building backend_mps) is named in the same check run."""
    workspace = repo.served.clone("swiftpm", tmp_path / "workspace")
    git(workspace, "checkout", "-q", "-b", "add-kernels-new")
    write_template_branch(workspace, [*LIVE_PRODUCTS, "kernels_new"])
    head = commit_all(workspace, "add kernels_new")
    payload = pull_request_payload(number=21, head_sha=head, head_ref="add-kernels-new",
                                   base_ref="swiftpm", base_sha=repo.et.swiftpm)
    step = runner.using(repo.served, TOKENS).step(
        workspace, "pull_request", payload, sha=head, ref="refs/pull/21/merge",
        inputs={"frameworks-from": FRAMEWORKS_FROM, "frameworks-ref": "main release/*"})
    step.env.pop("INPUT_PUSH-TOKEN")
    result = run_entrypoint(step, workspace)
    assert result.returncode == 1, result.stdout + result.stderr

    run = fake_github.only_check_run()
    assert run["head_sha"] == head and run["conclusion"] == "failure"
    summary = rendered_text(run["output"]["summary"])  # as the page shows it
    assert "Release lines" in summary
    assert "main | " in summary and "release/1.0 | " in summary
    rows = {r[0]: r for r in table_rows(run["output"]["summary"])}
    assert rows["release/1.0"][3] == (
        f"be blocked: drop {REMOVED} (built here, no product in the template); miss "
        "kernels_new (the template asks, not built here)")
    assert rows["main"][3] == \
        "be blocked: miss kernels_new (the template asks, not built here)"
    # Nothing was built on a PR: the workflow's names are declared.
    assert f"release/1.0: '{REMOVED}' was declared but no template asks" in summary
    titles = sorted(a["title"] for a in fake_github.annotations[run["id"]])
    # kernels_new is missing from both lines' lists: one finding each, not one per line.
    assert titles.count("unfilled-placeholder: kernels_new") == 1
    # release/1.0's apple.yml is not in the template branch's tree: listed, not annotated.
    assert f"unclaimed-artifact: {REMOVED}" not in titles
    assert f"`release/1.0:{WORKFLOW}:" in run["output"]["text"]
    assert "#### Release lines" in step.summary()
    assert step.outputs()["consistent"] == "false"
    # release/* listed from the clone's origin by git; over http the clone holds no
    # credentials, so through the git refs API instead.
    listed = fake_github.calls("git/list-matching-refs")
    assert bool(listed) == (repo.served.kind == "http")


def test_a_template_pr_with_an_explicit_neutral_stays_green(tmp_path, path_repo, fake_github,
                                                            runner):
    repo = path_repo
    workspace = repo.served.clone("swiftpm", tmp_path / "workspace")
    git(workspace, "checkout", "-q", "-b", "x")
    write_template_branch(workspace, [*LIVE_PRODUCTS, "kernels_new"])
    head = commit_all(workspace, "add kernels_new")
    payload = pull_request_payload(number=22, head_sha=head, head_ref="x", base_ref="swiftpm",
                                   base_sha=repo.et.swiftpm)
    _step, result = runner.using(repo.served, TOKENS).run(
        workspace, "pull_request", payload, sha=head, ref="refs/pull/22/merge",
        inputs={"frameworks-from": FRAMEWORKS_FROM, "pr-conclusion": "neutral"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert fake_github.only_check_run()["conclusion"] == "neutral"


# -- PRs into main: annotations on lines the PR shows -------------------------------------------


def test_a_pr_into_main_is_annotated_on_the_workflow_line_that_dropped_the_name(
    tmp_path, path_repo, fake_github, runner
):
    repo = path_repo
    workspace = repo.served.clone("main", tmp_path / "workspace")
    git(workspace, "checkout", "-q", "-b", "drop-llm")
    (workspace / WORKFLOW).write_text(workflow_text([k for k in LIVE_KEYS if k != "kernels_llm"]))
    head = commit_all(workspace, "drop kernels_llm")
    payload = pull_request_payload(number=23, head_sha=head, head_ref="drop-llm",
                                   base_ref="main", base_sha=repo.et.main)
    step, result = runner.using(repo.served, TOKENS).run(
        workspace, "pull_request", payload, sha=head, ref="refs/pull/23/merge",
        inputs={"frameworks-from": FRAMEWORKS_FROM})
    assert result.returncode == 1, result.stdout + result.stderr  # auto: it brings the error

    run = fake_github.only_check_run()
    assert run["conclusion"] == "failure"
    # kernels_llm stood just before kernels_optimized in main's list: that line now.
    dropped_at = line_of(workspace / WORKFLOW, '"kernels_optimized"')
    found = {(a["path"], a["start_line"], a["title"]) for a in fake_github.annotations[run["id"]]}
    # The name and its debug twin, one problem on one line: one annotation (issue 33).
    assert found == {
        (WORKFLOW, dropped_at, "unfilled-placeholder: kernels_llm, kernels_llm_debug"),
    }
    template = tmp_path / "template.swift"
    template.write_text(git(repo.bare, "show", "swiftpm:Package.swift.template") + "\n")
    side = f"Package.swift.template:{line_of(template, '__SHA256_kernels_llm__')}"
    summary = run["output"]["summary"]
    assert "#### Template side (`swiftpm`, not in this pull request's tree)" in summary
    assert f"{side} unfilled-placeholder kernels_llm" in rendered_text(summary)
    assert side in step.summary()


# -- where publishing may happen ------------------------------------------------------------------


def test_a_feature_branch_dispatch_checks_and_pushes_nothing(tmp_path, http_repo, fake_github,
                                                             runner):
    repo = http_repo
    workspace = repo.served.clone("feature/faster-build", tmp_path / "workspace")
    _zips(workspace / "out", NIGHTLY)
    before = repo.heads()
    ref = "refs/heads/feature/faster-build"
    step, result = runner.using(repo.served, TOKENS).run(
        workspace, "workflow_dispatch", dispatch_payload({"version": NIGHTLY}, ref=ref),
        sha=repo.et.feature, ref=ref,
        inputs={"version": NIGHTLY, "artifacts": "out", "frameworks-from": FRAMEWORKS_FROM})
    assert result.returncode == 0, result.stdout + result.stderr
    assert repo.heads() == before  # swiftpm-1.2.0.20250101 stays free for the real nightly
    assert not any("git-receive-pack" in r for r in repo.requests())
    outputs = step.outputs()
    assert outputs["pushed"] == "false" and outputs["consistent"] == "true"
    reason = outputs["not-pushed-reason"]
    assert f"`{ref}` is not a ref publish-refs allows" in reason
    assert "the repository's default branch and release/*" in reason
    assert f"::notice title=swiftpm-guard::{reason}" in result.stdout
    assert reason in step.summary()
    assert reason in fake_github.only_check_run()["output"]["summary"]


def test_publish_refs_lets_a_named_ref_publish(tmp_path, path_repo, fake_github, runner):
    repo = path_repo
    workspace = repo.served.clone("feature/faster-build", tmp_path / "workspace")
    _zips(workspace / "out", NIGHTLY)
    ref = "refs/heads/feature/faster-build"
    step, result = runner.using(repo.served, TOKENS).run(
        workspace, "workflow_dispatch", dispatch_payload({}, ref=ref), sha=repo.et.feature,
        ref=ref, inputs={"version": NIGHTLY, "artifacts": "out", "publish-refs": "main feature/*"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"swiftpm-{NIGHTLY}" in repo.heads()
    assert step.outputs()["pushed"] == "true" and step.outputs()["not-pushed-reason"] == ""


# -- the published tree, the two tokens -----------------------------------------------------------


def test_the_nightly_pushes_with_push_token_and_leaves_github_out(tmp_path, repo, fake_github,
                                                                  runner):
    workspace = repo.served.clone("main", tmp_path / "workspace")
    _zips(workspace / "out", NIGHTLY)
    inputs = {"version": NIGHTLY, "artifacts": "out", "frameworks-from": FRAMEWORKS_FROM}
    dry, result = runner.using(repo.served, TOKENS).run(
        workspace, sha=repo.et.main, inputs={**inputs, "dry-run": "true"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"swiftpm-{NIGHTLY}" not in repo.heads()
    assert ("Left out of the published tree (input `exclude-paths`): "
            f"`{TEMPLATE_WORKFLOW}`") in dry.summary()

    step, result = runner.using(repo.served, TOKENS).run(
        workspace, sha=repo.et.main, inputs=inputs)
    assert result.returncode == 0, result.stdout + result.stderr
    commit = repo.heads()[f"swiftpm-{NIGHTLY}"]
    files = _files(repo.bare, commit)
    assert "Package.swift" in files and not any(f.startswith(".github/") for f in files)
    assert git(repo.bare, "rev-parse", f"{commit}^") == repo.et.swiftpm
    report = json.loads((workspace / step.outputs()["report"]).read_text())
    assert report["publish"]["excluded"] == [TEMPLATE_WORKFLOW]
    assert step.outputs()["pushed"] == "true"
    # The check run went through the API with github-token. A schedule runs on the default
    # branch by GitHub's rule, so publish-refs' default needs no API call to know it.
    assert fake_github.calls("checks/create") and not fake_github.calls("repos/get")
    if repo.served.server is not None:
        assert any(r.startswith("POST /example/executorch.git/git-receive-pack") and
                   r.endswith(" 200") for r in repo.requests())
    _assert_tokens_kept_apart(repo, fake_github, result)


def test_exclude_paths_none_publishes_the_template_branch_whole(tmp_path, path_repo, fake_github,
                                                                runner):
    repo = path_repo
    workspace = repo.served.clone("main", tmp_path / "workspace")
    _zips(workspace / "out", NIGHTLY)
    _step, result = runner.using(repo.served, TOKENS).run(
        workspace, sha=repo.et.main,
        inputs={"version": NIGHTLY, "artifacts": "out", "exclude-paths": "none"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert TEMPLATE_WORKFLOW in _files(repo.bare, repo.heads()[f"swiftpm-{NIGHTLY}"])


# -- a published branch fixed by hand -------------------------------------------------------------


def test_update_builds_on_the_hand_fixed_commit(tmp_path, repo, fake_github, runner):
    workspace = repo.served.clone("main", tmp_path / "workspace")
    _zips(workspace / "out", "1.0.0")
    inputs = {"mode": "publish", "version": "1.0.0", "artifacts": "out",
              "frameworks-from": FRAMEWORKS_FROM}
    _plain, result = runner.using(repo.served, TOKENS).run(
        workspace, "workflow_dispatch", sha=repo.et.main, inputs=inputs)
    assert result.returncode == 1, result.stdout + result.stderr  # branch-exists
    assert repo.heads()["swiftpm-1.0.0"] == repo.et.hand_fix

    step, result = runner.using(repo.served, TOKENS).run(
        workspace, "workflow_dispatch", sha=repo.et.main, inputs={**inputs, "update": "true"})
    assert result.returncode == 0, result.stdout + result.stderr
    tip = repo.heads()["swiftpm-1.0.0"]
    assert git(repo.bare, "rev-parse", f"{tip}^@") == repo.et.hand_fix  # one parent: the fix
    assert git(repo.bare, "log", "--format=%H", tip).splitlines()[1:3] == [
        repo.et.hand_fix, repo.et.publish_100]
    assert git(repo.bare, "log", "-1", "--format=%s", tip) == "1.0.0"
    manifest = git(repo.bare, "show", f"{tip}:Package.swift")
    assert FIXED_CHECKSUM not in manifest and "__SHA256_" not in manifest
    assert not any(f.startswith(".github/") for f in _files(repo.bare, tip))
    assert not any(f"/{REMOVED}" in f for f in _files(repo.bare, tip))
    report = json.loads((workspace / step.outputs()["report"]).read_text())
    assert report["publish"]["updated_from"] == repo.et.hand_fix
    assert f"It is a new commit on top of `{repo.et.hand_fix}` (update)." in step.summary()
    assert step.outputs()["pushed"] == "true"
    _assert_tokens_kept_apart(repo, fake_github, result)

    again, result = runner.using(repo.served, TOKENS).run(
        workspace, "workflow_dispatch", sha=repo.et.main, inputs={**inputs, "update": "true"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert repo.heads()["swiftpm-1.0.0"] == tip
    assert again.outputs()["not-pushed-reason"] == "already up to date"


def test_a_republish_dry_run_shows_what_would_change(tmp_path, path_repo, fake_github, runner):
    """Dispatch 1.0.0 with `update` and `dry-run` (issue 23): compared with swiftpm-1.0.0
    itself, every checksum changes, backend_mps is gone, and both template commits are named,
    in the log, the job summary and `publish.diff`."""
    repo = path_repo
    workspace = repo.served.clone("main", tmp_path / "workspace")
    _zips(workspace / "out", "1.0.0")
    step, result = runner.using(repo.served, TOKENS).run(
        workspace, "workflow_dispatch", sha=repo.et.main,
        inputs={"mode": "publish", "version": "1.0.0", "artifacts": "out", "update": "true",
                "dry-run": "true", "frameworks-from": FRAMEWORKS_FROM})
    assert result.returncode == 0, result.stdout + result.stderr
    assert repo.heads()["swiftpm-1.0.0"] == repo.et.hand_fix
    changed = (f"  {len(all_names(LIVE_KEYS))} checksums change (each with its _debug twin): "
               + ", ".join(sorted(LIVE_KEYS)))
    lines = [f"compared with swiftpm-1.0.0 ({repo.et.hand_fix[:12]}), this version's own branch:",
             f"  products: -{REMOVED}, -{REMOVED}_debug", changed,
             f'  template now: {repo.et.swiftpm[:12]} "Remove backend_mps"',
             f'  swiftpm-1.0.0 was built from: {repo.et.old_template[:12]} "template"']
    for line in lines:
        assert line in result.stderr.splitlines()
        assert line in rendered_text(step.summary())
    diff = json.loads((workspace / step.outputs()["report"]).read_text())["publish"]["diff"]
    assert diff["relation"] == "this-branch"
    assert diff["checksums"]["changed"] == sorted(all_names(LIVE_KEYS))
    assert diff["template_commits"]["base"] == {"commit": repo.et.old_template,
                                                "subject": "template"}


def test_update_and_allow_overwrite_are_refused_together(tmp_path, path_repo, fake_github, runner):
    repo = path_repo
    workspace = repo.served.clone("main", tmp_path / "workspace")
    step, result = runner.using(repo.served, TOKENS).run(
        workspace, "workflow_dispatch", sha=repo.et.main,
        inputs={"mode": "publish", "version": "1.0.0", "frameworks-from": FRAMEWORKS_FROM,
                "update": "true", "allow-overwrite": "true"})
    assert result.returncode == 2, result.stdout + result.stderr
    assert "inputs update and allow-overwrite exclude each other" in result.stdout
    assert repo.heads()["swiftpm-1.0.0"] == repo.et.hand_fix
    assert step.output_file.read_text() == ""


def test_the_audit_reports_tips_and_flags_the_hand_fixed_branch(tmp_path, repo, fake_github,
                                                                runner):
    workspace = repo.served.clone("main", tmp_path / "workspace")
    step, result = runner.using(repo.served, TOKENS).run(
        workspace, sha=repo.et.main, inputs={"mode": "audit"})
    assert result.returncode == 0, result.stdout + result.stderr  # a warning, not an error
    data = json.loads((workspace / ".swiftpm-guard/audit.json").read_text())
    branches = {b["branch"]: b for b in data["branches"]}
    fixed, clean = branches["swiftpm-1.0.0"], branches["swiftpm-1.1.0"]
    assert fixed["tip"]["commit"] == repo.et.hand_fix
    assert fixed["tip"]["author"] == MAINTAINER
    assert fixed["tip"]["subject"] == "Update checksums"
    assert fixed["tip"]["date"][:4].isdigit() and "T" in fixed["tip"]["date"]
    assert [(f["code"], f["severity"]) for f in fixed["findings"]] == [
        ("edited-after-publish", "warning")]
    assert clean["tip"]["commit"] == repo.et.publish_110 and clean["findings"] == []
    summary = step.summary()
    assert "tip edited after publishing" in summary
    # Every tip is in the JSON and the log; the check run says where (a row per branch once
    # got ExecuTorch's summary cut, issue 23), and the counts are the verdict's.
    checked = fake_github.only_check_run()["output"]["summary"]
    assert "| branch | tip |" not in checked and "`branches[].tip`" in checked
    assert "2 branches, 0 with errors, 1 with warnings only." in checked
    assert f"swiftpm-1.0.0: tip {repo.et.hand_fix[:12]} by {MAINTAINER}" in result.stderr
    assert fake_github.only_check_run()["conclusion"] == "success"
    _assert_tokens_kept_apart(repo, fake_github, result)


# -- preflight as an action mode ------------------------------------------------------------------


def test_preflight_mode_says_whether_the_version_is_free(tmp_path, repo, fake_github, runner):
    workspace = repo.served.clone("main", tmp_path / "workspace")
    taken, result = runner.using(repo.served, TOKENS).run(
        workspace, "workflow_dispatch", sha=repo.et.main,
        inputs={"mode": "preflight", "version": "1.1.0"})
    assert result.returncode == 1, result.stdout + result.stderr
    assert taken.outputs()["consistent"] == "false"
    assert taken.outputs()["report"] == ".swiftpm-guard/preflight.json"
    document = json.loads((workspace / ".swiftpm-guard/preflight.json").read_text())
    assert document["free"] is False and document["remote_commit"] == repo.et.publish_110
    assert "`swiftpm-1.1.0` is **not** free" in taken.summary()

    free, result = runner.using(repo.served, TOKENS).run(
        workspace, "workflow_dispatch", sha=repo.et.main,
        inputs={"mode": "preflight", "version": "1.2.0"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert free.outputs()["consistent"] == "true" and free.outputs()["branch"] == "swiftpm-1.2.0"
    assert "`swiftpm-1.2.0` is free" in free.summary()
    assert repo.heads().keys() == {"swiftpm-1.0.0", "swiftpm-1.1.0"}
    _assert_tokens_kept_apart(repo, fake_github, result)


def test_preflight_verify_absent_against_a_bucket_that_answers_403(
    tmp_path, path_repo, fake_github, runner
):
    """S3, public-read without list rights: a missing key is 403. Only absent-on-403 says so."""
    repo = path_repo
    workspace = repo.served.clone("main", tmp_path / "workspace")
    with serve_zips() as zips:
        for name in all_names(LIVE_KEYS):
            zips.routes[f"/frameworks/{name}-1.2.0.zip"] = Route(b"<Error/>", 403,
                                                                 "application/xml")
        inputs = {"mode": "preflight", "version": "1.2.0", "verify-absent": "true",
                  "base-url": zips.url("frameworks/")}
        _strict, result = runner.using(repo.served, TOKENS).run(
            workspace, "workflow_dispatch", sha=repo.et.main, inputs=inputs)
        assert result.returncode == 1, result.stdout + result.stderr
        assert "cannot tell whether" in result.stderr and "403" in result.stderr

        s3, result = runner.using(repo.served, TOKENS).run(
            workspace, "workflow_dispatch", sha=repo.et.main,
            inputs={**inputs, "absent-on-403": "true"})
        assert result.returncode == 0, result.stdout + result.stderr
        assert s3.outputs()["consistent"] == "true"
        # A key that does exist is still found.
        name = all_names(LIVE_KEYS)[0]
        zips.routes[f"/frameworks/{name}-1.2.0.zip"] = Route(b"PK\x03\x04")
        taken, result = runner.using(repo.served, TOKENS).run(
            workspace, "workflow_dispatch", sha=repo.et.main,
            inputs={**inputs, "absent-on-403": "true"})
        assert result.returncode == 1, result.stdout + result.stderr
        assert "url-exists" in result.stderr
        # swiftpm-1.2.0 is absent: the finding says an earlier run uploaded and how to finish.
        assert "swiftpm-1.2.0 does not exist, so an earlier run uploaded" in result.stderr
        assert "Finish it by publishing those zips" in rendered_text(taken.summary())


# -- files the container cannot see ---------------------------------------------------------------


def test_checksums_under_runner_temp_are_refused_with_what_to_do(tmp_path, path_repo, fake_github,
                                                                 runner):
    repo = path_repo
    workspace = repo.served.clone("main", tmp_path / "workspace")
    step = runner.using(repo.served, TOKENS).step(
        workspace, sha=repo.et.main, inputs={"version": NIGHTLY})
    outside = f"{step.env['RUNNER_TEMP']}/checksums.txt"
    Path(outside).write_text("")
    step.env["INPUT_CHECKSUMS"] = outside
    result = run_entrypoint(step, workspace)
    assert result.returncode == 2, result.stdout + result.stderr
    [error] = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert f"input checksums '{outside}' is outside the workspace" in error
    assert "$RUNNER_TEMP" in error and "/github/workspace" in error
    assert "run-id and artifact-name" in error
    assert "Traceback" not in result.stderr
    assert step.output_file.read_text() == "" and fake_github.requests == []
    assert f"swiftpm-{NIGHTLY}" not in repo.heads()


def test_push_token_goes_only_to_the_server_url(tmp_path, http_repo, fake_github, runner):
    """git sends push-token, as a header, to GITHUB_SERVER_URL's repository only (whatever the
    clone's origin says); the API gets github-token."""
    repo = http_repo
    workspace = repo.served.clone("main", tmp_path / "workspace")
    git(workspace, "remote", "set-url", "origin", "https://mirror.example/et.git")
    _zips(workspace / "out", NIGHTLY)
    step = runner.using(repo.served, TOKENS).step(
        workspace, sha=repo.et.main, inputs={"version": NIGHTLY, "artifacts": "out"})
    seen = len(repo.served.server.authorizations)  # the test's own clone sent the header
    result = run_entrypoint(step, workspace)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"git sends input push-token (as a header, to {repo.served.server_url}/ only)" \
        in result.stderr
    sent = repo.served.server.authorizations[seen:]
    assert sent and set(sent) == {repo.served.server.expected_authorization()}
    assert f"swiftpm-{NIGHTLY}" in repo.heads()
    assert fake_github.requests
    assert all(PUSH_TOKEN not in (r.authorization or "") for r in fake_github.requests)
    for line in (result.stdout + result.stderr).splitlines():
        assert PUSH_TOKEN not in line or line == f"::add-mask::{PUSH_TOKEN}", line


def test_the_default_branch_comes_from_the_api_when_the_payload_omits_it(
    tmp_path, path_repo, fake_github, runner
):
    repo = path_repo
    workspace = repo.served.clone("main", tmp_path / "workspace")
    _zips(workspace / "out", NIGHTLY)
    payload = dispatch_payload({})
    del payload["repository"]
    step, result = runner.using(repo.served, TOKENS).run(
        workspace, "workflow_dispatch", payload, sha=repo.et.main,
        inputs={"version": NIGHTLY, "artifacts": "out", "dry-run": "true"})
    assert result.returncode == 0, result.stdout + result.stderr
    [asked] = fake_github.calls("repos/get")
    assert asked.authorization == f"token {API_TOKEN}"
    assert step.outputs()["not-pushed-reason"] == "dry run"  # past the gate: main may publish
