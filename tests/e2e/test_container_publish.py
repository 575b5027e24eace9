"""The action publishing from its image, run the way the runner runs it, to a real git remote.

Every run is a `RunnerJob`: the workspace (an actions/checkout-like clone of `main`, plus the
built zips) owned by uid 1001, the job's hostile `PATH=/nonsense`, `INPUT_*` with hyphens,
`GITHUB_*` pointing at the `/github/*` mounts. The repository published to is either

- `path`: a bare repository on the host (the workspace clone's `origin`, not mounted: the
  action never uses it), served over smart HTTP by the fake GitHub at GITHUB_SERVER_URL as a
  public repository; or
- `http`: the same bare served by `git http-backend` on 127.0.0.1 (the container shares the
  host network), answering 401 to any request without the token's Authorization header, with
  GITHUB_SERVER_URL pointing at it.

Either way the action's git talks to `{GITHUB_SERVER_URL}/{GITHUB_REPOSITORY}.git` only.

The check run goes to the fake GitHub API on loopback, which validates every request against
GitHub's OpenAPI subset (the fixture fails the test on any violation). After every run the token
must be nowhere but in the `::add-mask::` line.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.container import REPO_ROOT, RunnerJob, action_inputs
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, all_names, workflow_text, write_zip

if not (REPO_ROOT / "entrypoint.py").exists():
    pytest.skip("entrypoint.py (issue 3) is not in the repository yet", allow_module_level=True)
actions_env = pytest.importorskip("support.actions_env", reason="issue 3's test support")
action_repo = pytest.importorskip("support.action_repo", reason="the publish tests' remotes")
fake_fixture = pytest.importorskip("support.fake_fixture", reason="issue 3's fake API")

pytestmark = pytest.mark.container

TOKEN = "ghs_containerPublishToken0123456789"
AUTHOR = "Release Bot <release-bot@example.org>"
NIGHTLY = "1.2.3.20250101"
ALL_KEYS = [*PRODUCT_KEYS, *BINARY_ONLY_KEYS]
git = actions_env.git


@pytest.fixture
def fake() -> Iterator:
    yield from fake_fixture.fake_github_fixture()


def _served(kind: str, tmp_path: Path, fake) -> Iterator:
    origin = actions_env.make_origin(tmp_path / "remote")
    with action_repo.served(kind, origin, tmp_path / "srv", TOKEN) as made:
        fake.add_repo(actions_env.REPOSITORY, git_dir=made.bare)
        fake.add_token(TOKEN)
        yield made


@pytest.fixture
def repo(request, tmp_path, fake) -> Iterator:
    """The remote published to: `http` unless a test parametrizes it (indirect)."""
    yield from _served(getattr(request, "param", "http"), tmp_path, fake)


def _job(
    tmp_path: Path, repo, fake, *, event_name: str, event: dict, given: dict[str, str]
) -> RunnerJob:
    """A release job's publish step: the workspace cloned from `repo`, zips under `out/`."""
    job = RunnerJob(
        tmp_path / "job",
        event_name=event_name,
        event=event,
        repository=actions_env.REPOSITORY,
        sha=repo.origin.main,
        api_url=fake.url,
        server_url=repo.server_url or fake.url,  # `path`: the fake GitHub serves the bare
    )
    repo.clone("main", job.workspace)
    job.inputs = action_inputs(REPO_ROOT / "action.yml", given, token=TOKEN)
    return job


def _write_zips(folder: Path, version: str, keys=ALL_KEYS) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in all_names(keys):
        write_zip(folder / f"{name}-{version}.zip", name)


def _refs(bare: Path) -> dict[str, str]:
    out = git(bare, "for-each-ref", "--format=%(refname) %(objectname)")
    return dict(line.split(" ", 1) for line in out.splitlines())


def _files(bare: Path, commit: str) -> dict[str, str]:
    names = git(bare, "ls-tree", "-r", "--name-only", commit).splitlines()
    return {name: git(bare, "show", f"{commit}:{name}") for name in names}


def assert_token_nowhere(result, job: RunnerJob, bare: Path, *, reports: bool = True) -> None:
    """The token, or the Authorization header made of it, appears in none of what the run
    leaves behind: the container's log (but the mask command), the summary, the outputs, the
    env file, any file under the job's mounts (workspace reports, the clone's .git/config,
    the job's HOME), or the remote's config. `reports`: whether the run wrote report files
    (a run that fails on broken infrastructure, exit 3, writes none)."""
    pair = base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()
    for line in result.logs.splitlines():
        assert TOKEN not in line or line == f"::add-mask::{TOKEN}", line
        assert pair not in line, line
    for text in (result.summary, result.env_file, job.file_command("set_output").read_text()):
        assert TOKEN not in text and pair not in text
    config = (job.workspace / ".git" / "config").read_text()
    assert "extraheader" not in config.lower(), config
    written = [p for p in (job.workspace / ".swiftpm-guard").rglob("*") if p.is_file()]
    assert bool(written) == reports, f"report files in the workspace: {written}"
    leaked = [
        path
        for top in (job.workspace, job.file_commands, job.workflow, job.home)
        for path in [top, *top.rglob("*")]
        if path.is_file() and (TOKEN.encode() in (data := path.read_bytes()) or pair.encode() in data)
    ]
    assert leaked == [], f"token written to {leaked}"
    assert TOKEN not in (bare / "config").read_text()
    assert not (job.home / ".gitconfig").exists(), "a global git config was written"


def _assert_wire(repo, fake, *, pushed: bool) -> None:
    """git went to GITHUB_SERVER_URL (the loopback server, or the fake GitHub for `path`),
    every request with the token's header and none with the token in its URL."""
    expected = action_repo.header(TOKEN).removeprefix("Authorization: ")
    if repo.server is None:
        assert fake.git_requests, "git never reached GITHUB_SERVER_URL"
        assert {auth for _m, _p, auth in fake.git_requests} == {expected}, fake.git_requests
        assert not any(TOKEN in path for _m, path, _a in fake.git_requests)
        receive = [p for m, p, _a in fake.git_requests if "git-receive-pack" in p and m == "POST"]
        assert bool(receive) == pushed, fake.git_requests
        return
    assert set(repo.server.authorizations) == {expected}
    assert not any(TOKEN in r for r in repo.server.requests)
    receive = [r for r in repo.server.requests if "git-receive-pack" in r and r.startswith("POST")]
    if pushed:
        assert receive and all(r.endswith(" 200") for r in receive), repo.server.requests
    else:
        assert receive == [], repo.server.requests


@pytest.mark.parametrize(
    ("repo", "event_name", "mode"),
    [
        ("path", "schedule", "auto"),
        ("http", "schedule", "auto"),
        ("http", "workflow_dispatch", "publish"),
    ],
    indirect=["repo"],
)
def test_publish_pushes_the_branch(engine, image, tmp_path, fake, repo, event_name, mode):
    event = (
        actions_env.schedule_payload()
        if event_name == "schedule"
        else actions_env.dispatch_payload({"version": NIGHTLY})
    )
    given = {
        "version": NIGHTLY,
        "artifacts": "out",
        "frameworks-from": actions_env.FRAMEWORKS_FROM,
        "author": AUTHOR,
    }
    if mode != "auto":
        given["mode"] = mode
    job = _job(tmp_path, repo, fake, event_name=event_name, event=event, given=given)
    _write_zips(job.workspace / "out", NIGHTLY)
    before = _refs(repo.bare)

    result = job.run(engine, image)

    assert result.exit_code == 0, result
    branch = f"swiftpm-{NIGHTLY}"
    after = _refs(repo.bare)
    commit = after.pop(f"refs/heads/{branch}")
    assert after == before, "only the new branch was added"
    files = _files(repo.bare, commit)
    assert "Package.swift" in files and "Package.swift.template" not in files
    stubs = {name for name in files if name.startswith(".Package.swift/")}
    assert stubs == {f".Package.swift/{n}/dummy.swift" for n in all_names(PRODUCT_KEYS)}
    assert not any("__SHA256_" in text or "__VERSION__" in text for text in files.values())
    assert f'let version = "{NIGHTLY}"' in files["Package.swift"]
    assert git(repo.bare, "log", "-1", "--format=%B", commit).strip() == NIGHTLY
    identity = git(repo.bare, "log", "-1", "--format=%an <%ae>|%cn <%ce>", commit)
    assert identity == f"{AUTHOR}|{AUTHOR}"  # from the input: the container has no git config
    assert git(repo.bare, "rev-parse", f"{commit}^") == repo.origin.swiftpm

    assert result.outputs["pushed"] == "true" and result.outputs["branch"] == branch
    assert result.outputs["consistent"] == "true"
    assert result.outputs["manifest"] == ".swiftpm-guard/Package.swift"
    # The manifest left in the workspace is byte for byte the one pushed (compared by git).
    assert git(repo.bare, "rev-parse", f"{commit}:Package.swift") == git(
        tmp_path, "hash-object", str(job.workspace / result.outputs["manifest"])
    )
    run = fake.only_check_run()
    assert run["head_sha"] == repo.origin.main == job.sha
    assert run["status"] == "completed" and run["conclusion"] == "success"
    assert f"Pushed `{branch}` at `{commit}`" in run["output"]["summary"]
    # Pushed to, and the template read from, the repository at GITHUB_SERVER_URL.
    remote = f"{job.server_url}/{actions_env.REPOSITORY}.git"
    assert f"Pushed `{branch}` at `{commit}` to `{remote}`" in result.summary, result.summary
    assert "from `swiftpm` at" in result.summary and r"(GITHUB\_SERVER\_URL)" in result.summary
    # Proven by the image's own SwiftPM before the push: the checkout of the commit evaluated.
    assert "Proof: **swiftpm**: tree:" in result.summary, result.summary
    assert "dump-package" in result.summary, result.summary
    _assert_wire(repo, fake, pushed=True)
    assert_token_nowhere(result, job, repo.bare)


@pytest.mark.parametrize("repo", ["path", "http"], indirect=True)
def test_publish_is_blocked_when_the_template_asks_for_a_framework_not_built(
    engine, image, tmp_path, fake, repo
):
    built = [key for key in ALL_KEYS if key != "kernels_llm"]
    job = _job(
        tmp_path,
        repo,
        fake,
        event_name="schedule",
        event=actions_env.schedule_payload(),
        given={
            "version": "1.2.3",
            "artifacts": "out",
            "frameworks-from": actions_env.FRAMEWORKS_FROM,
            "author": AUTHOR,
        },
    )
    # This release's workflow no longer builds kernels_llm; the template still asks for it.
    (job.workspace / actions_env.WORKFLOW).write_text(workflow_text(built))
    _write_zips(job.workspace / "out", "1.2.3", built)
    before = _refs(repo.bare)

    result = job.run(engine, image)

    assert result.exit_code == 1, result
    assert _refs(repo.bare) == before, "something was pushed"
    _assert_wire(repo, fake, pushed=False)
    run = fake.only_check_run()
    assert run["head_sha"] == job.sha and run["conclusion"] == "failure"
    template = tmp_path / "Package.swift.template"
    template.write_text(git(repo.bare, "show", "swiftpm:Package.swift.template") + "\n")
    # The template is on swiftpm, not in the dispatched commit's tree: listed, not annotated.
    assert fake.annotations[run["id"]] == []
    line = actions_env.line_of(template, "__SHA256_kernels_llm__")
    assert f"swiftpm:Package.swift.template:{line}" in run["output"]["text"]
    assert result.outputs["pushed"] == "false" and result.outputs["consistent"] == "false"
    assert result.outputs["branch"] == "swiftpm-1.2.3" and result.outputs["manifest"] == ""
    assert "**not pushed**: error findings" in result.summary
    assert_token_nowhere(result, job, repo.bare)


@pytest.mark.parametrize("repo", ["path", "http"], indirect=True)
def test_publish_when_the_branch_exists_leaves_the_remote_alone(
    engine, image, tmp_path, fake, repo
):
    git(repo.bare, "update-ref", "refs/heads/swiftpm-1.2.3", repo.origin.swiftpm)
    before = _refs(repo.bare)
    job = _job(
        tmp_path,
        repo,
        fake,
        event_name="workflow_dispatch",
        event=actions_env.dispatch_payload({"version": "1.2.3"}),
        given={"mode": "publish", "version": "1.2.3", "artifacts": "out", "author": AUTHOR},
    )
    _write_zips(job.workspace / "out", "1.2.3")

    result = job.run(engine, image)

    assert result.exit_code == 1, result
    assert _refs(repo.bare) == before
    _assert_wire(repo, fake, pushed=False)
    run = fake.only_check_run()
    assert run["conclusion"] == "failure"
    assert fake.annotations[run["id"]] == []  # no file to point at: the title says it
    assert run["output"]["title"].startswith("swiftpm-1.2.3 is already published")
    assert "already exists" in result.summary
    assert result.outputs["pushed"] == "false" and result.outputs["branch"] == "swiftpm-1.2.3"
    assert_token_nowhere(result, job, repo.bare)



@pytest.mark.parametrize("refusal", ["wrong-token", "hook-rejects"])
def test_a_failed_push_does_not_echo_the_token(engine, image, tmp_path, fake, refusal):
    """The error paths, where tokens leak: git's own failure output reaches the log and the
    summary. `wrong-token`: the server wants another token (as if the job's could not read the
    repository), so the first git call fails; `hook-rejects`: the token is right but the
    server's pre-receive hook refuses the push (as a protected branch would)."""
    origin = actions_env.make_origin(tmp_path / "remote")
    wanted = TOKEN if refusal == "hook-rejects" else "ghs_theServerWantsAnotherOne"
    with action_repo.served("http", origin, tmp_path / "srv", wanted) as repo:
        fake.add_repo(actions_env.REPOSITORY, git_dir=repo.bare)
        fake.add_token(TOKEN)
        hook = repo.bare / "hooks" / "pre-receive"
        hook.write_text("#!/bin/sh\necho 'swiftpm-* branches are protected' >&2\nexit 1\n")
        hook.chmod(0o755)
        before = _refs(repo.bare)
        job = _job(
            tmp_path,
            repo,
            fake,
            event_name="schedule",
            event=actions_env.schedule_payload(),
            given={"version": "1.2.3", "artifacts": "out", "author": AUTHOR},
        )
        _write_zips(job.workspace / "out", "1.2.3")
        seen = len(repo.server.authorizations)  # the test's own clone

        result = job.run(engine, image)

        assert result.exit_code == 3, result
        assert _refs(repo.bare) == before
        # The action did send the token, as the header, on every request.
        sent = set(repo.server.authorizations[seen:])
        assert sent == {action_repo.header(TOKEN).removeprefix("Authorization: ")}, sent
        assert "Failed, nothing was pushed" in result.summary
        if refusal == "wrong-token":
            assert "the remote refused the token from input github-token" in result.logs
        else:
            assert "refused the push of swiftpm-1.2.3: [remote rejected]" in result.logs, result
            assert any("git-receive-pack" in r for r in repo.server.requests)
        assert result.outputs.get("pushed", "false") == "false"
        assert_token_nowhere(result, job, repo.bare, reports=False)
