"""Token containment: a remote that redirects elsewhere never gets our header followed there.

The named remote (127.0.0.1:P1) answers every request with a redirect to the real smart-HTTP
server on another origin (`localhost:P2`). git's default (`http.followRedirects=initial`)
follows the first request and then keeps sending the `http.<origin>.extraHeader` to the new
host — and pushes there while we log the first. Every authenticated git call must refuse
redirects: the second origin sees no request at all, nothing lands there, and the command fails
with exit 3 and one line.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.git_http import GitHttpServer, RedirectServer, git_http_server, redirect_server
from support.git_remote import make_template_remote, refs
from support.published import read_published_branches
from support.release import Release
from swiftpm_guard.cli.main import main
from swiftpm_guard.core.names import authorization_header
from swiftpm_guard.infra.git import Git

TOKEN = "ghs_RedirectedToken0123456789abcdef"
BRANCH = "refs/heads/swiftpm-1.2.3"


@dataclass
class Redirected:
    bare: Path
    elsewhere: GitHttpServer  # the origin the redirect points at
    named: RedirectServer  # the origin we name and trust

    def url(self) -> str:
        return self.named.url(self.bare.name)


@pytest.fixture(params=[301, 302, 307])
def redirected(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Redirected]:
    monkeypatch.delenv("GITHUB_EVENT_NAME", raising=False)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    bare = make_template_remote(tmp_path / "remotes")
    # The server behind the redirect does not ask for a token: it must see none anyway.
    with git_http_server(bare.parent) as elsewhere:
        port = elsewhere.server_address[1]
        with redirect_server(f"http://localhost:{port}", request.param) as named:
            yield Redirected(bare, elsewhere, named)


def _one_line_exit_3(code: int, out: str, err: str) -> None:
    assert code == 3, (out, err)
    assert err.startswith("swiftpm-guard: error:") and err.count("\n") == 1, err
    assert TOKEN not in out + err


def test_publish_does_not_follow_a_redirect_with_the_token(
    redirected: Redirected, release: Release, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "publish",
            "--accept-static",  # no SwiftPM in this tier: a static proof
            "--artifacts",
            str(release.artifacts),
            "--version",
            release.version,
            "--repo",
            redirected.url(),
        ]
    )
    out, err = capsys.readouterr()
    _one_line_exit_3(code, out, err)
    assert "answered with a redirect" in err
    assert redirected.named.requests, "git never asked the named remote"
    assert redirected.elsewhere.authorizations == [], "git followed the redirect"
    assert BRANCH not in refs(redirected.bare)
    assert "pushed" not in out


def test_preflight_does_not_follow_a_redirect_with_the_token(
    redirected: Redirected, release: Release, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "preflight",
            "--version",
            release.version,
            "--repo",
            redirected.url(),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 3, (out, err)
    assert redirected.elsewhere.authorizations == []


@pytest.mark.parametrize("inherited", [False, True], ids=["clean", "job-env-re-enables"])
def test_audit_reading_with_a_token_header_does_not_follow_a_redirect(
    redirected: Redirected, monkeypatch: pytest.MonkeyPatch, inherited: bool
) -> None:
    named = redirected.url()
    origin = named.split("/", 3)
    if inherited:  # an earlier step put this in the job's environment
        monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
        monkeypatch.setenv("GIT_CONFIG_KEY_0", f"http.{named}.followRedirects")
        monkeypatch.setenv("GIT_CONFIG_VALUE_0", "true")
    header = [(f"{origin[0]}//{origin[2]}/", authorization_header(TOKEN))]
    config = [(f"http.{key}.extraHeader", value) for key, value in header]
    with pytest.raises(Exception) as raised:
        read_published_branches(named, "swiftpm-*", git=Git(), timeout=60, config=config)
    assert getattr(raised.value, "exit_code", None) == 3
    assert TOKEN not in str(raised.value)
    assert redirected.elsewhere.authorizations == []


def test_git_itself_would_follow_without_the_setting(redirected: Redirected) -> None:
    """The scenario is real: plain git with the header follows the redirect and sends it on."""
    named = redirected.url()
    origin = "/".join(named.split("/", 3)[:3]) + "/"
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(redirected.bare.parent),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": f"http.{origin}.extraHeader",
        "GIT_CONFIG_VALUE_0": authorization_header(TOKEN),
    }
    subprocess.run(
        ["git", "ls-remote", named], env=env, capture_output=True, timeout=60, check=False
    )
    assert redirected.elsewhere.authorizations, "git did not follow: the fixture proves nothing"
    # curl drops the header on the redirected request itself; git then sends it on its own.
    sent = authorization_header(TOKEN).split(": ", 1)[1]
    assert sent in redirected.elsewhere.authorizations


def test_the_workspace_fetch_does_not_follow_a_redirect_with_a_persisted_header(
    redirected: Redirected, tmp_path: Path
) -> None:
    """The action reads the template ref from the server URL with its token as a header (in
    a repository of its own: the clone's persisted header plays no part): a redirect from
    there must not carry it on."""
    from support.actions_env import git
    from swiftpm_guard.sources.refs import Checkout, Upstream

    workspace = tmp_path / "workspace"
    git(tmp_path, "clone", "-q", str(redirected.bare), str(workspace))
    named = redirected.url()
    origin = "/".join(named.split("/", 3)[:3]) + "/"
    git(workspace, "remote", "set-url", "origin", named)
    git(workspace, "config", f"http.{origin}.extraheader", authorization_header(TOKEN))
    git(workspace, "update-ref", "-d", "refs/remotes/origin/swiftpm")
    upstream = Upstream(named, ((f"http.{origin}.extraHeader", authorization_header(TOKEN)),))
    logged: list[str] = []
    checkout = Checkout(workspace, git=Git(), upstream=upstream)
    assert checkout.git_ref("swiftpm", logged.append) is None
    assert redirected.named.requests, "git never asked the named remote"
    assert redirected.elsewhere.authorizations == [], "git followed the redirect"
    assert len(logged) == 1 and TOKEN not in logged[0]


@pytest.mark.parametrize("key", ["http.https://x/.extraHeader", "HTTP.EXTRAHEADER"])
def test_every_environment_that_carries_a_header_forbids_redirects_last(key: str) -> None:
    """The one builder of git's environment: an inherited entry (plain or at the header's
    very URL) is dropped, and ours forbid redirects last."""
    from swiftpm_guard.infra.git import git_environment

    inherited = {
        "GIT_CONFIG_COUNT": "2",
        "GIT_CONFIG_KEY_0": "http.followRedirects",
        "GIT_CONFIG_VALUE_0": "true",
        "GIT_CONFIG_KEY_1": "http.https://x/.followRedirects",
        "GIT_CONFIG_VALUE_1": "true",
    }
    scope = key[: -len(".extraHeader")]
    for env in (
        git_environment(inherited, config=[(key, "Authorization: Basic x")],
                        credentials_file="/private/config"),
        git_environment(inherited, config=[(key, "Authorization: Basic x")], user_config=True,
                        credentials_file="/private/config"),
    ):
        assert "Authorization: Basic x" not in env.values()
        count = int(env["GIT_CONFIG_COUNT"])
        entries = [(env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"]) for i in range(count)]
        wanted = {"http.followRedirects"} | (
            {f"{scope}.followRedirects"} if scope.lower() != "http" else set()
        )
        for name in wanted:
            values = [v for k, v in entries if k.lower() == name.lower()]
            assert values and values[-1] == "false", (name, entries)
        assert ("http.https://x/.followRedirects", "true") not in entries
