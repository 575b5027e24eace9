"""`entrypoint.py` in publish mode, as the runner runs it, against a real origin.

The origin is a bare repository by path and the same repository served over loopback smart
HTTP (token required, sent as the Authorization header); the workspace is a clone of it; the
GitHub API is the fake, which validates every request against GitHub's schema.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.action_repo import Served, header, served
from support.actions_env import (
    FRAMEWORKS_FROM,
    REPOSITORY,
    WORKFLOW,
    commit_all,
    dispatch_payload,
    git,
    line_of,
    make_origin,
    pull_request_payload,
    push_payload,
    run_entrypoint,
)
from support.fake_github import FakeGitHub
from support.git_http import git_http_server
from support.git_remote import update_template
from support.release import (
    BINARY_ONLY_KEYS,
    PRODUCT_KEYS,
    all_names,
    workflow_text,
    write_zip,
)

TOKEN = "ghs_e2ePublishToken0123456789"
TOKENS = {"github-token": TOKEN}
ALL_KEYS = [*PRODUCT_KEYS, *BINARY_ONLY_KEYS]
AUTHOR = "Release Bot <release-bot@example.org>"
NIGHTLY = "1.2.3.20250101"


@pytest.fixture(params=["path", "http"])
def repo(request, tmp_path: Path, fake_github: FakeGitHub) -> Iterator[Served]:
    origin = make_origin(tmp_path / "remote")
    with served(request.param, origin, tmp_path / "srv", TOKEN) as made:
        fake_github.add_repo(REPOSITORY, git_dir=made.bare)
        fake_github.add_token(TOKEN)
        yield made


@pytest.fixture
def path_repo(tmp_path: Path, fake_github: FakeGitHub) -> Iterator[Served]:
    with served("path", make_origin(tmp_path / "remote"), tmp_path / "srv", TOKEN) as made:
        fake_github.add_repo(REPOSITORY, git_dir=made.bare)
        fake_github.add_token(TOKEN)
        yield made


def write_zips(folder: Path, version: str, keys=ALL_KEYS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in all_names(keys):
        write_zip(folder / f"{name}-{version}.zip", name)
    return folder


def assert_token_nowhere(result, step, workspace: Path, token: str = TOKEN) -> None:
    """Not in the log (but the mask), the summary, the outputs, our files or the clone's config."""
    for line in (result.stdout + result.stderr).splitlines():
        assert token not in line or line == f"::add-mask::{token}", line
    assert token not in step.summary()
    assert token not in step.output_file.read_text()
    # Every byte left in the workspace: our reports, the clone's objects, refs and config.
    for path in workspace.rglob("*"):
        if path.is_file() and not path.is_symlink():
            assert token.encode() not in path.read_bytes(), path
    config = (workspace / ".git" / "config").read_text()
    assert token not in config and header(token) not in config
    assert "extraheader" not in config.lower()


def _files(bare: Path, commit: str) -> dict[str, str]:
    names = git(bare, "ls-tree", "-r", "--name-only", commit).splitlines()
    return {name: git(bare, "show", f"{commit}:{name}") for name in names}


def test_publish_on_schedule_pushes_the_branch(tmp_path, repo, fake_github, runner):
    workspace = repo.clone("main", tmp_path / "workspace")
    write_zips(workspace / "out", NIGHTLY)
    step, result = runner.using(repo, TOKENS).run(
        workspace,
        inputs={
            "version": NIGHTLY,
            "artifacts": "out",
            "frameworks-from": FRAMEWORKS_FROM,
            "author": AUTHOR,
        },
    )
    assert result.returncode == 0, result.stdout + result.stderr

    branch = f"swiftpm-{NIGHTLY}"
    commit = repo.heads()[branch]
    files = _files(repo.bare, commit)
    assert "Package.swift" in files and "Package.swift.template" not in files
    stubs = {n for n in files if n.startswith(".Package.swift/")}
    assert stubs == {f".Package.swift/{n}/dummy.swift" for n in all_names(PRODUCT_KEYS)}
    assert not any("__SHA256_" in text or "__VERSION__" in text for text in files.values())
    assert f'let version = "{NIGHTLY}"' in files["Package.swift"]
    assert git(repo.bare, "log", "-1", "--format=%B", commit).strip() == NIGHTLY
    identity = git(repo.bare, "log", "-1", "--format=%an <%ae>|%cn <%ce>", commit)
    assert identity == f"{AUTHOR}|{AUTHOR}"
    assert git(repo.bare, "rev-parse", f"{commit}^") == repo.origin.swiftpm

    outputs = step.outputs()
    assert outputs["pushed"] == "true" and outputs["branch"] == branch
    assert outputs["consistent"] == "true"
    assert outputs["manifest"] == ".swiftpm-guard/Package.swift"
    # `git show` drops the last newline; the bytes are compared through git itself.
    assert git(repo.bare, "rev-parse", f"{commit}:Package.swift") == git(
        workspace, "hash-object", outputs["manifest"]
    )
    report = json.loads((workspace / outputs["report"]).read_text())
    assert report["publish"]["pushed"] is True and report["publish"]["commit"] == commit

    run = fake_github.only_check_run()
    assert run["head_sha"] == repo.origin.main and run["conclusion"] == "success"
    assert f"Pushed `{branch}` at `{commit}`" in run["output"]["summary"]
    summary = step.summary()
    assert f"Pushed `{branch}`" in summary
    assert f'.package(url: "{step.env["GITHUB_SERVER_URL"]}/{REPOSITORY}.git", branch: "{branch}")' in summary
    assert "(GITHUB\\_SERVER\\_URL)" in summary
    assert_token_nowhere(result, step, workspace)
    if repo.server is not None:
        # Over the wire: every request carried the header, none the token in its URL.
        assert repo.server.authorizations
        expected = repo.server.expected_authorization()
        assert set(repo.server.authorizations) == {expected}
        assert any(r.startswith("POST /example/executorch.git/git-receive-pack") and
                   r.endswith(" 200") for r in repo.server.requests)
        assert not any(TOKEN in r for r in repo.server.requests)


def test_publish_is_blocked_by_a_mismatch(tmp_path, repo, fake_github, runner):
    workspace = repo.clone("main", tmp_path / "workspace")
    kept = [k for k in ALL_KEYS if k != "kernels_llm"]
    (workspace / WORKFLOW).write_text(workflow_text(kept))
    write_zips(workspace / "out", "1.2.3", kept)
    step, result = runner.using(repo, TOKENS).run(
        workspace,
        inputs={"version": "1.2.3", "artifacts": "out", "frameworks-from": FRAMEWORKS_FROM},
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert repo.heads() == {}
    if repo.server is not None:
        assert not any("git-receive-pack" in r for r in repo.server.requests)
    run = fake_github.only_check_run()
    assert run["conclusion"] == "failure"
    template = tmp_path / "template.swift"
    template.write_text(git(repo.bare, "show", "swiftpm:Package.swift.template"))
    # The template is on swiftpm, not in main's tree: listed with its branch, not annotated.
    assert fake_github.annotations[run["id"]] == []
    where = f"swiftpm:Package.swift.template:{line_of(template, '__SHA256_kernels_llm__')}"
    assert where in run["output"]["text"]
    outputs = step.outputs()
    assert outputs["pushed"] == "false" and outputs["consistent"] == "false"
    assert outputs["manifest"] == ""
    assert "**not pushed**: error findings" in step.summary()
    assert_token_nowhere(result, step, workspace)


def test_publish_when_the_branch_exists_leaves_it_alone(tmp_path, repo, fake_github, runner):
    git(repo.bare, "update-ref", "refs/heads/swiftpm-1.2.3", repo.origin.swiftpm)
    before = repo.heads()
    workspace = repo.clone("main", tmp_path / "workspace")
    write_zips(workspace / "out", "1.2.3")
    step, result = runner.using(repo, TOKENS).run(
        workspace,
        "workflow_dispatch",
        dispatch_payload({"version": "1.2.3"}),
        inputs={"version": "1.2.3", "artifacts": "out"},
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert repo.heads() == before
    run = fake_github.only_check_run()
    assert run["conclusion"] == "failure"
    # No file to point at: the title says it, no annotation pretends a line.
    assert fake_github.annotations[run["id"]] == []
    assert run["output"]["title"] == (
        "swiftpm-1.2.3 is already published; the manifest itself is consistent (republish "
        "with input update)")
    assert "already exists" in step.summary()
    assert step.outputs()["pushed"] == "false"
    # What it would have published, folded and fenced (issue 33).
    draft = step.summary().split("<summary>Package.swift (draft, not pushed)</summary>", 1)[1]
    assert draft.lstrip().startswith("```swift\n") and 'let version = "1.2.3"' in draft


def test_allow_overwrite_replaces_only_the_commit_it_saw(tmp_path, path_repo, fake_github, runner):
    repo = path_repo
    git(repo.bare, "update-ref", "refs/heads/swiftpm-1.2.3", repo.origin.swiftpm)
    workspace = repo.clone("main", tmp_path / "workspace")
    write_zips(workspace / "out", "1.2.3")
    step, result = runner.using(repo, TOKENS).run(
        workspace,
        "workflow_dispatch",
        dispatch_payload({"version": "1.2.3"}),
        inputs={"version": "1.2.3", "artifacts": "out", "allow-overwrite": "true"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "::warning title=swiftpm-guard::allow-overwrite is on" in result.stdout
    assert f"replacing swiftpm-1.2.3 at {repo.origin.swiftpm[:12]}" in result.stderr
    now = repo.heads()["swiftpm-1.2.3"]
    assert now != repo.origin.swiftpm
    assert git(repo.bare, "rev-parse", f"{now}^") == repo.origin.swiftpm
    assert step.outputs()["pushed"] == "true"
    assert f"It replaced `{repo.origin.swiftpm}`" in step.summary()


def _artifact_zip(tmp_path: Path, version: str, keys) -> bytes:
    """What actions/upload-artifact stores: one zip holding the release zips."""
    built = write_zips(tmp_path / "built", version, keys)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(built.iterdir()):
            archive.write(path, path.name)
    return buffer.getvalue()


def test_workflow_dispatch_dry_run_from_a_runs_artifact(tmp_path, repo, fake_github, runner):
    """Inputs version, run-id and dry-run; the template dropped backend_mps since a nightly."""
    first = repo.clone("main", tmp_path / "first")
    write_zips(first / "out", NIGHTLY)
    nightly = runner.using(repo, TOKENS).step(
        first,
        inputs={"version": NIGHTLY, "artifacts": "out"},
    )
    assert run_entrypoint(nightly, first).returncode == 0
    published = repo.heads()
    assert list(published) == [f"swiftpm-{NIGHTLY}"]

    kept = [k for k in ALL_KEYS if k != "backend_mps"]
    update_template(repo.bare, products=[k for k in PRODUCT_KEYS if k != "backend_mps"])
    fake_github.add_artifact(REPOSITORY, 4242, "frameworks", _artifact_zip(tmp_path, "1.2.3", kept))
    inputs = {"version": "1.2.3", "run-id": "4242", "dry-run": "true"}
    workspace = repo.clone("main", tmp_path / "workspace")
    step = runner.using(repo, TOKENS).step(
        workspace,
        "workflow_dispatch",
        dispatch_payload(inputs),
        inputs={**inputs, "artifact-name": "frameworks"},
    )
    checks_before = len(fake_github.check_runs)
    result = run_entrypoint(step, workspace)
    assert result.returncode == 0, result.stdout + result.stderr
    assert repo.heads() == published  # nothing pushed
    assert len(fake_github.check_runs) == checks_before  # dry run: no check run either
    assert [c.status for c in fake_github.calls("actions/download-artifact")] == [302]
    summary = step.summary()
    assert "`swiftpm-1.2.3` was **not pushed**: dry run" in summary
    assert f"compared with swiftpm-{NIGHTLY}" in summary
    assert "products: -backend_mps, -backend_mps_debug" in summary
    assert "binary targets: -backend_mps, -backend_mps_debug" in summary
    snippet = f'.package(url: "{step.env["GITHUB_SERVER_URL"]}/{REPOSITORY}.git", branch: "swiftpm-1.2.3")'
    assert snippet in summary
    assert "<summary>Package.swift (dry run)</summary>" in summary
    assert "20 zips" not in summary and "18 zips from artifact `frameworks` of run 4242" in summary
    outputs = step.outputs()
    assert outputs["pushed"] == "false" and outputs["consistent"] == "true"
    assert outputs["manifest"] == ".swiftpm-guard/Package.swift"
    assert_token_nowhere(result, step, workspace)


@pytest.mark.parametrize("event", ["pull_request", "merge_group"])
def test_publish_mode_on_a_pull_request_only_checks(tmp_path, path_repo, fake_github, event,
                                                    runner):
    repo = path_repo
    workspace = repo.clone("main", tmp_path / "workspace")
    git(workspace, "checkout", "-q", "-b", "feature")
    (workspace / "README.md").write_text("# changed\n")
    head = commit_all(workspace, "change the readme")
    write_zips(workspace / "out", "1.2.3")
    payload = (
        pull_request_payload(
            number=3, head_sha=head, head_ref="feature", base_ref="main", base_sha=repo.origin.main
        )
        if event == "pull_request"
        else {"merge_group": {"head_sha": head, "head_ref": "gh-readonly-queue/main/pr-3"}}
    )
    step, result = runner.using(repo, TOKENS).run(
        workspace,
        event,
        payload,
        sha=head,
        ref="refs/pull/3/merge" if event == "pull_request" else "refs/heads/gh-readonly-queue/main/pr-3",
        inputs={"mode": "publish", "version": "1.2.3", "artifacts": "out"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert repo.heads() == {}  # consistent, and still never pushed
    notice = f"mode publish on a `{event}` event: checked only, nothing is pushed"
    assert f"::notice title=swiftpm-guard::{notice}" in result.stdout
    run = fake_github.only_check_run()
    assert run["conclusion"] == "success" and run["head_sha"] == head
    assert notice in run["output"]["summary"] and notice in step.summary()
    assert step.outputs()["pushed"] == "false"


def test_a_push_event_with_explicit_publish_mode_publishes(tmp_path, path_repo, fake_github,
                                                           runner):
    """Tag-driven releases set `mode: publish` and name their tags in `publish-refs`; a push
    event is then allowed to publish. Without the tags in publish-refs it only checks."""
    repo = path_repo
    workspace = repo.clone("main", tmp_path / "workspace")
    write_zips(workspace / "out", "1.2.3")
    inputs = {"mode": "publish", "version": "1.2.3", "artifacts": "out"}
    payload = push_payload(ref="refs/tags/v1.2.3", before="0" * 40, after=repo.origin.main)
    step, result = runner.using(repo, TOKENS).run(
        workspace,
        "push",
        payload,
        ref="refs/tags/v1.2.3",
        inputs=inputs,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert repo.heads() == {}
    assert step.outputs()["pushed"] == "false"
    assert "`refs/tags/v1.2.3` is not a ref publish-refs allows" in step.outputs()[
        "not-pushed-reason"]

    step, result = runner.using(repo, TOKENS).run(
        workspace,
        "push",
        payload,
        ref="refs/tags/v1.2.3",
        inputs={**inputs, "publish-refs": "main refs/tags/v*"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "swiftpm-1.2.3" in repo.heads()
    assert step.outputs()["pushed"] == "true"


def test_without_a_clone_publish_uses_the_server_url(tmp_path, fake_github, runner):
    """No checkout at all: `{GITHUB_SERVER_URL}/{GITHUB_REPOSITORY}.git`, token as a header."""
    origin = make_origin(tmp_path / "remote")
    with served("http", origin, tmp_path / "srv", TOKEN) as repo:
        fake_github.add_repo(REPOSITORY, git_dir=repo.bare)
        fake_github.add_token(TOKEN)
        workspace = tmp_path / "workspace"
        write_zips(workspace / "out", "1.2.3")
        _step, result = runner.using(repo, TOKENS).run(
            workspace,
            "workflow_dispatch",
            dispatch_payload({"version": "1.2.3"}),
            inputs={"version": "1.2.3", "artifacts": "out"},
        )
        assert result.returncode == 0, result.stdout + result.stderr
        assert "swiftpm-1.2.3" in repo.heads()
        assert f"repository {repo.url} (GITHUB_SERVER_URL)" in result.stderr
        assert set(repo.server.authorizations) == {repo.server.expected_authorization()}
        for line in (result.stdout + result.stderr).splitlines():
            assert TOKEN not in line or line == f"::add-mask::{TOKEN}"


def test_the_clones_origin_is_never_where_the_action_goes(tmp_path, fake_github, runner):
    """An earlier step pointed the clone's origin at another server: the action never asks
    it (nor reads the clone's config to find it) and publishes at GITHUB_SERVER_URL."""
    origin = make_origin(tmp_path / "remote")
    decoy_root = tmp_path / "decoy"
    decoy_root.mkdir()
    with served("http", origin, tmp_path / "srv", TOKEN) as repo, \
            git_http_server(decoy_root) as decoy:
        fake_github.add_repo(REPOSITORY, git_dir=repo.bare)
        fake_github.add_token(TOKEN)
        workspace = repo.clone("main", tmp_path / "workspace")
        git(workspace, "remote", "set-url", "origin", decoy.url(f"{REPOSITORY}.git"))
        write_zips(workspace / "out", "1.2.3")
        step, result = runner.using(repo, TOKENS).run(
            workspace,
            "workflow_dispatch",
            dispatch_payload({"version": "1.2.3"}),
            inputs={"version": "1.2.3", "artifacts": "out"},
        )
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"repository {repo.url} (GITHUB_SERVER_URL)" in result.stderr
        assert decoy.requests == [] and decoy.authorizations == []
        assert "swiftpm-1.2.3" in repo.heads()
        assert_token_nowhere(result, step, workspace)


def test_a_workspace_owned_by_another_user(tmp_path, path_repo, fake_github, runner):
    """The runner's checkout belongs to uid 1001; the action runs as root (as here)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to hand the workspace to uid 1001")
    repo = path_repo
    workspace = repo.clone("main", tmp_path / "workspace")
    write_zips(workspace / "out", "1.2.3")
    for path in [workspace, *workspace.rglob("*")]:
        os.chown(path, 1001, 1001, follow_symlinks=False)
    dubious = git_status(workspace)
    assert "dubious ownership" in dubious  # git really refuses this workspace by default

    check, result = runner.using(repo, TOKENS).run(
        workspace,
        "push",
        push_payload(ref="refs/heads/main", before="0" * 40, after=repo.origin.main),
        inputs={"frameworks-from": FRAMEWORKS_FROM},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # The template came through git from the clone (fetched), not through the API.
    assert fake_github.calls("repos/get-content") == []
    assert "template `Package.swift.template` from origin/swiftpm" in check.summary()

    publish, result = runner.using(repo, TOKENS).run(
        workspace,
        inputs={"version": "1.2.3", "artifacts": "out", "author": AUTHOR},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    server = publish.env["GITHUB_SERVER_URL"]
    assert f"repository {server}/{REPOSITORY}.git (GITHUB_SERVER_URL)" in result.stderr
    assert "swiftpm-1.2.3" in repo.heads()
    # Nothing was written to any config: not the clone's, not a global one.
    assert "safe" not in (workspace / ".git" / "config").read_text()
    assert not (Path(publish.env["HOME"]) / ".gitconfig").exists()


def git_status(workspace: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(workspace), "status"],
        capture_output=True,
        text=True,
        env={"PATH": os.environ["PATH"], "HOME": str(workspace.parent), "GIT_CONFIG_NOSYSTEM": "1"},
        timeout=30,
        check=False,
    )
    return done.stderr


def test_publish_and_audit_when_the_jobs_path_leads_nowhere(tmp_path, path_repo, fake_github,
                                                            runner):
    """The runner passes the job's env into the container: `PATH=/nonsense` is legal."""
    repo = path_repo
    workspace = repo.clone("main", tmp_path / "workspace")
    write_zips(workspace / "out", "1.2.3")
    publish = runner.using(repo, TOKENS).step(
        workspace,
        inputs={"version": "1.2.3", "artifacts": "out"},
    )
    publish.env["PATH"] = "/nonsense"
    result = run_entrypoint(publish, workspace)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "swiftpm-1.2.3" in repo.heads()
    audit = runner.using(repo, TOKENS).step(workspace, inputs={"mode": "audit"})
    audit.env["PATH"] = "/nonsense"
    result = run_entrypoint(audit, workspace)
    assert result.returncode == 0, result.stdout + result.stderr
    assert audit.outputs()["consistent"] == "true"
    assert "release 1.2.3: sound" in list(fake_github.check_runs.values())[-1]["output"]["summary"]
    assert "1 sound branches" in audit.summary()


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"template": "Package.swift"}, "input template 'Package.swift' must end with '.template'"),
        ({"template-ref": "nope"}, "template ref refs/heads/nope is not on the remote"),
        ({"version": "1.2.3;rm -rf /"}, "input version '1.2.3;rm -rf /' is not a safe version"),
        ({"author": "root"}, "input author 'root' must look like 'Name <email@host>'"),
        ({"publish-refs": "main --mirror"}, "input publish-refs '--mirror' is not a branch glob"),
        ({"exclude-paths": "../x"}, "input exclude-paths '../x' must be a relative path inside"),
        ({"update": "yes"}, "input update must be true or false"),
        ({"push-token": "bad\ntoken"}, "the token in input push-token must be printable ASCII"),
    ],
)
def test_bad_publish_inputs_are_exit_2_and_push_nothing(
    tmp_path, path_repo, fake_github, inputs, message, runner
):
    repo = path_repo
    workspace = repo.clone("main", tmp_path / "workspace")
    write_zips(workspace / "out", "1.2.3")
    _step, result = runner.using(repo, TOKENS).run(
        workspace,
        inputs={"version": "1.2.3", "artifacts": "out", **inputs},
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"::error title=swiftpm-guard::{message}" in result.stdout
    assert repo.heads() == {} and fake_github.check_runs == {}
