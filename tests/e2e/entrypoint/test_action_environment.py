"""Issue 32: nothing security-relevant comes from the job's environment (proxies, CA bundles,
.netrc, TMPDIR).

An earlier step of the job sets environment variables through GITHUB_ENV and writes the
workspace and the home folder. Here it names a recording proxy in every proxy variable, a CA
of its own in every CA variable and credentials in `~/.netrc`; `entrypoint.py` runs as the
container runs it and talks to the fake GitHub API directly (check run, artifact list, the
artifact's download and its redirect), and the proxy records nothing. Input proxy is the only
way to a proxy, and a proxy value with credentials is refused without quoting them. With
`TMPDIR` naming a folder in the workspace, a watcher polling it sees nothing of a publish's.
"""

from __future__ import annotations

import io
import threading
import zipfile
from pathlib import Path

import pytest

from support.action_repo import served
from support.actions_env import (
    FRAMEWORKS_FROM,
    REPOSITORY,
    Origin,
    clone,
    make_origin,
    push_payload,
    run_entrypoint,
)
from support.fake_github import FakeGitHub
from support.recording_proxy import recording_proxy
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, all_names, write_zip
from support.runner_job import Job
from support.tls import make_test_ca

TOKEN = "ghs_e2eEnvironmentToken0123456789"
VERSION = "1.2.3"
PROXY_VARIABLES = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                   "ALL_PROXY")
CA_VARIABLES = ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE",
                "SWIFTPM_GUARD_CA_FILE")


@pytest.fixture
def origin(tmp_path: Path, fake_github: FakeGitHub) -> Origin:
    made = make_origin(tmp_path / "remote")
    fake_github.add_repo(REPOSITORY, git_dir=made.bare)
    fake_github.add_token(TOKEN)
    return made


def _artifact_zip(folder: Path) -> bytes:
    folder.mkdir()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in all_names([*PRODUCT_KEYS, *BINARY_ONLY_KEYS]):
            path = folder / f"{name}-{VERSION}.zip"
            write_zip(path, name)
            archive.write(path, path.name)
    return buffer.getvalue()


def _dispatch(tmp_path: Path, origin: Origin, fake: FakeGitHub, inputs: dict[str, str]):
    """A dispatch that checks run 4242's artifact: every kind of request the action makes."""
    fake.add_artifact(REPOSITORY, 4242, "frameworks", _artifact_zip(tmp_path / "built"))
    workspace = clone(origin, "main", tmp_path / "workspace")
    step = Job(tmp_path, fake.url).step(
        workspace, "workflow_dispatch", sha=origin.main,
        inputs={"mode": "check", "version": VERSION, "run-id": "4242",
                "artifact-name": "frameworks", "frameworks-from": FRAMEWORKS_FROM,
                "github-token": TOKEN, **inputs})
    return workspace, step


def _plant(step, workspace: Path, proxy_url: str) -> None:
    """What the earlier step left: proxy and CA variables, a CA and a .netrc of its own."""
    ca = make_test_ca(workspace / ".attacker")
    for name in PROXY_VARIABLES:
        step.env[name] = proxy_url
    for name in CA_VARIABLES:
        step.env[name] = str(ca.ca_pem)
    step.env["NO_PROXY"] = step.env["no_proxy"] = ""
    Path(step.env["HOME"], ".netrc").write_text(
        "machine 127.0.0.1 login attacker password netrc-secret\n")


def test_proxy_ca_and_netrc_of_the_job_reach_no_client(tmp_path, origin, fake_github):
    with recording_proxy() as proxy:
        workspace, step = _dispatch(tmp_path, origin, fake_github, {})
        _plant(step, workspace, proxy.url)
        result = run_entrypoint(step, workspace)
        seen = list(proxy.seen)
    assert result.returncode == 0, result.stdout + result.stderr
    assert seen == []  # not one request, with or without the token
    # ...and every call still went, directly, to the API: the check run, the artifact list,
    # the download (its 302 to the blob) with the token and no netrc credentials.
    assert fake_github.only_check_run()["conclusion"] == "success"
    assert [c.status for c in fake_github.calls("actions/list-workflow-run-artifacts")] == [200]
    assert [c.status for c in fake_github.calls("actions/download-artifact")] == [302]
    for call in fake_github.requests:  # the token to the API, nothing to the blob's host
        expected = None if call.path.startswith("/_blobs/") else (f"token {TOKEN}",
                                                                  f"Bearer {TOKEN}")
        assert call.authorization in (expected or (None,)), call
    assert "20 zips from artifact `frameworks` of run 4242" in step.summary()


def test_input_proxy_is_the_one_proxy_the_api_calls_take(tmp_path, origin, fake_github):
    with recording_proxy(forward=True) as wanted, recording_proxy() as planted:
        workspace, step = _dispatch(tmp_path, origin, fake_github, {"proxy": "PLACEHOLDER"})
        step.env["INPUT_PROXY"] = wanted.url
        _plant(step, workspace, planted.url)
        result = run_entrypoint(step, workspace)
        through, stray = list(wanted.seen), list(planted.seen)
    assert result.returncode == 0, result.stdout + result.stderr
    assert stray == []
    targets = [f"{s.method} {s.target}" for s in through]
    api = fake_github.url
    assert f"POST {api}/repos/{REPOSITORY}/check-runs" in targets
    assert any(t.startswith(f"GET {api}/repos/{REPOSITORY}/actions/runs/4242/artifacts")
               for t in targets)
    assert any("/actions/artifacts/" in t and t.endswith("/zip") for t in targets)
    # git too: it reads the repository's other refs through the same proxy.
    assert any(t.startswith(f"GET {api}/{REPOSITORY}.git/info/refs") for t in targets), targets
    assert fake_github.only_check_run()["conclusion"] == "success"


@pytest.mark.parametrize("value", [
    "http://user:s3cr3t-pass@127.0.0.1:3128",
    "socks5://127.0.0.1:1080",
    "http://127.0.0.1",
    "http://127.0.0.1:3128/path",
    "http://127.0.0.1:99999",
    "127.0.0.1:3128",
])
def test_a_proxy_that_is_not_host_and_port_is_exit_2(tmp_path, origin, fake_github, value):
    workspace, step = _dispatch(tmp_path, origin, fake_github, {"proxy": value})
    result = run_entrypoint(step, workspace)
    assert result.returncode == 2, result.stdout + result.stderr
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and "input proxy" in errors[0], result.stdout
    assert "is not http(s)://host:port" in errors[0]
    assert "s3cr3t" not in result.stdout + result.stderr
    assert fake_github.requests == []  # refused before any request


# -- TMPDIR: the job's folder holds nothing of ours ---------------------------------------------


def _watch(folder: Path, stop: threading.Event, seen: set[str]) -> None:
    """The racing writer's eyes: every name that appears under `folder`, polled without pause."""
    while not stop.is_set():
        try:
            for path in folder.rglob("*"):
                seen.add(str(path.relative_to(folder)))
        except OSError:
            continue  # a folder went while being listed: it was seen


def test_a_publish_creates_nothing_under_the_jobs_tmpdir(tmp_path, fake_github, runner):
    with served("path", make_origin(tmp_path / "remote"), tmp_path / "srv", TOKEN) as repo:
        fake_github.add_repo(REPOSITORY, git_dir=repo.bare)
        fake_github.add_token(TOKEN)
        workspace = repo.clone("main", tmp_path / "workspace")
        (workspace / "out").mkdir()
        for name in all_names([*PRODUCT_KEYS, *BINARY_ONLY_KEYS]):
            write_zip(workspace / "out" / f"{name}-{VERSION}.zip", name)
        step = runner.using(repo).step(
            workspace, inputs={"version": VERSION, "artifacts": "out", "github-token": TOKEN})
        job_tmp = workspace / "tmp"  # a folder an earlier step's process can watch and write
        job_tmp.mkdir()
        step.env["TMPDIR"] = str(job_tmp)
        seen: set[str] = set()
        stop = threading.Event()
        watcher = threading.Thread(target=_watch, args=(job_tmp, stop, seen), daemon=True)
        watcher.start()
        try:
            result = run_entrypoint(step, workspace)
        finally:
            stop.set()
            watcher.join(timeout=10)
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"swiftpm-{VERSION}" in repo.heads()  # the publish did all its work
    made = sorted({name.split("/")[0] for name in seen}) + sorted(
        name for name in seen if name.count("/") == 1)
    assert made == [], f"{len(seen)} paths of ours appeared under the job's TMPDIR"
    assert list(job_tmp.iterdir()) == []


def test_what_the_action_starts_gets_neither_the_jobs_ca_hook_nor_its_tmpdir(tmp_path,
                                                                            fake_github, runner):
    """A stand-in `swift` (input swift; the action runs it where it runs SwiftPM) records its
    environment: the job's SWIFTPM_GUARD_CA_FILE and TMPDIR are not in it."""
    origin = make_origin(tmp_path / "remote")
    fake_github.add_repo(REPOSITORY, git_dir=origin.bare)
    fake_github.add_token(TOKEN)
    workspace = clone(origin, "main", tmp_path / "workspace")
    log = tmp_path / "swift-env.txt"
    swift = tmp_path / "swift"
    swift.write_text(f'#!/bin/sh\nenv >> "{log}"\n'
                     """echo '{"name": "p", "products": [], "targets": []}'\n""")
    swift.chmod(0o755)
    step = runner.step(
        workspace,
        "push",
        push_payload(ref="refs/heads/main", before="0" * 40,
                     after=origin.main),
        sha=origin.main,
        inputs={"frameworks-from": FRAMEWORKS_FROM, "github-token": TOKEN,
                "swift": str(swift)},
    )
    planted = workspace / "ca.pem"
    planted.write_text("not a CA\n")
    step.env["SWIFTPM_GUARD_CA_FILE"] = str(planted)
    step.env["TMPDIR"] = str(workspace)
    result = run_entrypoint(step, workspace)
    assert result.returncode in (0, 1), result.stdout + result.stderr
    recorded = log.read_text()
    assert "PATH=" in recorded  # the stand-in really ran
    assert "SWIFTPM_GUARD_CA_FILE" not in recorded
    assert f"TMPDIR={workspace}" not in recorded
