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
    remote = repository_remote(server_url=settings.server_url,
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


@pytest.mark.parametrize("origin", [
    "https://github.com/o/r",  # as actions/checkout writes it
    "https://x-access-token:s3cret@github.com/o/r",
    "git@github.com:o/r.git",
    "https://mirror.example/o/r.git",
    "/tmp/elsewhere.git",
])
def test_the_clones_origin_is_never_read(tmp_path, origin):
    """Whatever an earlier step wrote as the clone's origin: the server URL, with the token."""
    remote, log = _resolve(_settings(tmp_path / "w", origin))
    assert (remote.url, remote.where, remote.token) == (
        "https://github.com/o/r.git", "GITHUB_SERVER_URL", TOKEN)
    assert "s3cret" not in log and "mirror" not in log


def test_plain_http_to_a_real_host_is_refused(tmp_path):
    with pytest.raises(UsageError, match="refusing to send input github-token over plain http"):
        _resolve(_settings(tmp_path / "w", None, server="http://ghe.example"))
    remote, _log = _resolve(_settings(tmp_path / "v", None, server="http://ghe.example", token=""))
    assert remote.url == "http://ghe.example/o/r.git" and remote.token is None
