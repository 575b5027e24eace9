"""Which repository publish and audit talk to, and whether the token may go there."""

from __future__ import annotations

import pytest

from support.actions_env import git
from swiftpm_guard.action.settings import ActionSettings
from swiftpm_guard.errors import UsageError
from swiftpm_guard.jobs.remote import repository_remote

TOKEN = "ghs_remoteToken0123456789"


def _settings(workspace, origin: str | None, server="https://github.com", token=TOKEN):
    workspace.mkdir(exist_ok=True)
    if origin is not None:
        git(workspace, "init", "-q")
        git(workspace, "remote", "add", "origin", origin)
    env = {
        "GITHUB_EVENT_NAME": "schedule",
        "GITHUB_REPOSITORY": "o/r",
        "GITHUB_SHA": "1" * 40,
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_SERVER_URL": server,
        "INPUT_MODE": "audit",
    }
    if token:
        env["INPUT_GITHUB-TOKEN"] = token
    return ActionSettings.from_env(env)


def _resolve(settings):
    lines: list[str] = []
    remote = repository_remote(workspace=settings.workspace, server_url=settings.server_url,
                               repository=settings.event.repository, token=settings.token,
                               push_token=settings.push_token, log=lines.append)
    return remote, "\n".join(lines)


def test_without_a_clone_the_server_url(tmp_path):
    remote, log = _resolve(_settings(tmp_path / "w", None))
    assert (remote.url, remote.where, remote.token) == (
        "https://github.com/o/r.git", "GITHUB_SERVER_URL", TOKEN)
    assert remote.git_config() == [(
        "http.https://github.com/.extraHeader",
        "Authorization: Basic eC1hY2Nlc3MtdG9rZW46Z2hzX3JlbW90ZVRva2VuMDEyMzQ1Njc4OQ==",
    )]
    assert TOKEN not in log and "Basic" not in log


def test_the_clones_origin_as_actions_checkout_writes_it(tmp_path):
    remote, _log = _resolve(_settings(tmp_path / "w", "https://github.com/o/r"))
    assert (remote.url, remote.where, remote.token) == (
        "https://github.com/o/r", "the workspace clone's origin", TOKEN)


def test_credentials_in_the_origin_url_are_dropped_and_never_logged(tmp_path):
    remote, log = _resolve(_settings(tmp_path / "w", "https://x-access-token:s3cret@github.com/o/r"))
    assert remote.url == "https://github.com/o/r" and remote.token == TOKEN
    assert "s3cret" not in log and "carries credentials" in log


@pytest.mark.parametrize("origin", ["git@github.com:o/r.git", "ssh://git@github.com/o/r.git"])
def test_an_ssh_origin_falls_back_to_the_server_url(tmp_path, origin):
    remote, log = _resolve(_settings(tmp_path / "w", origin))
    assert remote.url == "https://github.com/o/r.git" and remote.token == TOKEN
    assert "using the server URL" in log


def test_an_origin_on_another_host_gets_no_token(tmp_path):
    remote, log = _resolve(_settings(tmp_path / "w", "https://mirror.example/o/r.git"))
    assert remote.url == "https://mirror.example/o/r.git" and remote.token is None
    assert remote.git_config() == []
    assert "not sending github-token to https://mirror.example/" in log


def test_a_path_origin_needs_no_token(tmp_path):
    bare = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    remote, _log = _resolve(_settings(tmp_path / "w", str(bare)))
    assert remote.url == str(bare) and remote.token is None


def test_plain_http_to_a_real_host_is_refused(tmp_path):
    with pytest.raises(UsageError, match="refusing to send input github-token over plain http"):
        _resolve(_settings(tmp_path / "w", None, server="http://ghe.example"))
    remote, _log = _resolve(_settings(tmp_path / "v", None, server="http://ghe.example", token=""))
    assert remote.url == "http://ghe.example/o/r.git" and remote.token is None
