"""Fixtures for publishing against real git remotes: a bare repo by path, and over HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.git_http import GitHttpServer, serve_git
from support.git_remote import Spy, make_spy, make_template_remote

TOKEN = "ghs_TestToken0123456789abcdefXYZ"


@dataclass
class GitRemote:
    kind: str  # "path" or "http"
    url: str  # what --repo gets
    bare: Path  # the repository itself, for inspection
    server: GitHttpServer | None = None
    token: str | None = None


@contextmanager
def _remote(kind: str, root: Path) -> Iterator[GitRemote]:
    bare = make_template_remote(root)
    if kind == "path":
        yield GitRemote("path", str(bare), bare)
        return
    with serve_git(bare.parent, token=TOKEN) as server:
        yield GitRemote("http", server.url(bare.name), bare, server, TOKEN)


@pytest.fixture(params=["path", "http"])
def remote(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GitRemote]:
    """The template remote by path, then the same over loopback smart HTTP with a token."""
    with _remote(request.param, tmp_path / "remotes") as made:
        yield made


@pytest.fixture
def http_remote(tmp_path: Path) -> Iterator[GitRemote]:
    with _remote("http", tmp_path / "remotes") as made:
        yield made


@pytest.fixture(autouse=True)
def _publish_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # A CI run on a pull request must not turn every publish here into a no-push run.
    monkeypatch.delenv("GITHUB_EVENT_NAME", raising=False)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)


@pytest.fixture
def spy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Spy:
    return make_spy(tmp_path, monkeypatch)
