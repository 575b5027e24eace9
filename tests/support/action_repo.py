"""The repository an action run publishes to or audits, the way a runner meets it.

`path`: the bare `origin` on disk, the workspace cloned from it; the action reads and pushes it
at GITHUB_SERVER_URL, where the fake GitHub serves it without asking for a token (a public
repository). `http`: the same bare served by
`git http-backend` on loopback at `<server>/example/executorch.git`, like GitHub, answering 401
to any request without the token's Authorization header; the workspace is cloned with the header
given on the command line only (like `actions/checkout` with `persist-credentials: false`), so
nothing in the clone's config carries it. GITHUB_SERVER_URL is the loopback server, so the
action's fallback URL `{GITHUB_SERVER_URL}/{GITHUB_REPOSITORY}.git` is the same repository.
"""

from __future__ import annotations

import base64
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from support.actions_env import REPOSITORY, Origin, Step, git
from support.git_http import GitHttpServer, git_http_server


@dataclass
class Served:
    kind: str  # "path" or "http"
    origin: Origin
    url: str  # the workspace clone's origin
    server_url: str | None  # GITHUB_SERVER_URL for the step (None: the fake GitHub's)
    server: GitHttpServer | None = None
    token: str | None = None

    @property
    def bare(self) -> Path:
        return self.origin.bare

    def clone(self, branch: str, dest: Path) -> Path:
        """Like actions/checkout: one branch; over http the token is never persisted."""
        extra = [] if self.token is None else ["-c", f"http.extraHeader={header(self.token)}"]
        git(dest.parent, *extra, "clone", "-q", "--single-branch", "--branch", branch, self.url,
            str(dest))
        return dest

    def heads(self, pattern: str = "swiftpm-*") -> dict[str, str]:
        out = git(self.bare, "for-each-ref", "--format=%(refname:short) %(objectname)",
                  f"refs/heads/{pattern}")
        return dict(line.split(" ", 1) for line in out.splitlines())

    def point(self, step: Step) -> Step:
        if self.server_url is not None:
            step.env["GITHUB_SERVER_URL"] = self.server_url
        return step


def header(token: str) -> str:
    pair = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    return f"Authorization: Basic {pair}"


@contextmanager
def served(kind: str, origin: Origin, root: Path, token: str) -> Iterator[Served]:
    """`origin` as is (`path`), or moved under `root` and served over loopback HTTP."""
    if kind == "path":
        yield Served("path", origin, str(origin.bare), None)
        return
    home = root / REPOSITORY.replace("/", os.sep)
    bare = home.with_name(home.name + ".git")
    bare.parent.mkdir(parents=True)
    shutil.move(origin.bare, bare)
    moved = Origin(bare, origin.main, origin.swiftpm)
    with git_http_server(root, token=token) as server:
        base = server.url("").rstrip("/")
        yield Served("http", moved, f"{base}/{REPOSITORY}.git", base, server, token)
