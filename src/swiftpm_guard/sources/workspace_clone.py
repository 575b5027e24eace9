"""A ref of the workspace clone, read with git: the `RefReader` (sources.git_ref) used when
the job checked the repository out, with `origin/<ref>` fetched when the checkout did not;
and what else the action asks that clone (its origin, its remote's branches).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from swiftpm_guard.core.text_lines import split_lines
from swiftpm_guard.errors import InfrastructureError, InputError
from swiftpm_guard.infra.git import find_git, git_environment, run_git
from swiftpm_guard.redact import redact_userinfo
from swiftpm_guard.sources.git_ref import TREE_MAX_ENTRIES, TreeEntry
from swiftpm_guard.workflow_commands import neutralise

_GIT_TIMEOUT = 120.0


class GitRef:
    """A ref of the workspace clone. `open` fetches `origin/<ref>` when it is missing."""

    def __init__(self, workspace: Path, commit: str, where: str) -> None:
        self.workspace = workspace
        self.commit = commit
        self._where = where

    @property
    def where(self) -> str:
        return self._where

    @classmethod
    def open(cls, workspace: Path, ref: str, log: Callable[[str], None]) -> GitRef | None:
        """The clone's `origin/<ref>`, fetched if absent; None (and a log line) if unusable."""
        if not (workspace / ".git").exists():
            log(f"swiftpm-guard: {workspace} is not a git clone; reading '{ref}' through the API")
            return None
        tracking = f"refs/remotes/origin/{ref}"
        commit = _rev_parse(workspace, tracking)
        if commit is None:
            shallow = _git(workspace, "rev-parse", "--is-shallow-repository")
            depth = ["--depth=1"] if shallow.stdout.strip() == b"true" else []
            fetched = _git(
                workspace,
                "fetch",
                "--no-tags",
                "--quiet",
                *depth,
                "origin",
                f"+refs/heads/{ref}:{tracking}",
            )
            if fetched.returncode != 0:
                lines = split_lines(fetched.stderr.decode("utf-8", "replace").strip())
                # git's last line may quote the origin URL (with a checkout's credentials) or
                # the remote's own text (`remote: …`): no userinfo, no workflow command.
                reason = neutralise(redact_userinfo(lines[-1])) if lines else (
                    f"exit {fetched.returncode}"
                )
                log(
                    f"swiftpm-guard: git fetch of '{ref}' failed ({reason}); "
                    "reading it through the API"
                )
                return None
            commit = _rev_parse(workspace, tracking)
        if commit is None:
            return None
        return cls(workspace, commit, f"origin/{ref}")

    def read(self, path: str, *, max_bytes: int, what: str) -> bytes:
        listed = _git(self.workspace, "ls-tree", "-z", "-l", self.commit, "--", path)
        entry = listed.stdout.split(b"\0")[0]
        if listed.returncode != 0 or not entry:
            raise InputError(f"{what} not found in {self.where}", file=path)
        meta, _, _name = entry.decode("utf-8", "replace").partition("\t")
        _mode, kind, sha, size = meta.split()
        if kind != "blob":
            raise InputError(f"{what} is a {kind} in {self.where}, expected a file", file=path)
        if int(size) > max_bytes:
            raise InputError(
                f"{what} is larger than {max_bytes} bytes; refusing to read it", file=path
            )
        blob = _git(self.workspace, "cat-file", "blob", sha)
        if blob.returncode != 0:
            raise InputError(f"cannot read {what} from {self.where}", file=path)
        return blob.stdout

    def kind(self, path: str) -> str | None:
        listed = _git(self.workspace, "ls-tree", "-z", self.commit, "--", path.rstrip("/"))
        entry = listed.stdout.split(b"\0")[0]
        if listed.returncode != 0 or not entry:
            return None
        mode, kind, _rest = entry.decode("utf-8", "replace").split(" ", 2)
        return _kind(mode, kind)

    def tree(self, folder: str) -> list[TreeEntry] | None:
        listed = _git(
            self.workspace, "ls-tree", "-r", "-t", "-z", self.commit, "--", folder.rstrip("/") + "/"
        )
        if listed.returncode != 0:
            return None
        entries = []
        for raw in filter(None, listed.stdout.split(b"\0")):
            meta, _, path = raw.decode("utf-8", "replace").partition("\t")
            mode, kind, _sha = meta.split()
            entries.append(TreeEntry(path, _kind(mode, kind)))
            if len(entries) > TREE_MAX_ENTRIES:
                raise InputError(
                    f"more than {TREE_MAX_ENTRIES} entries under {folder} in "
                    f"{self.where}; not a stub folder",
                    file=folder,
                )
        return entries or None


def _kind(mode: str, kind: str) -> str:
    if kind == "tree":
        return "dir"
    if kind == "commit":
        return "submodule"
    return "symlink" if mode == "120000" else "file"


def _git(workspace: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    root = str(workspace.resolve())
    # The runner's workspace belongs to another user (uid 1001) than the container's root:
    # vouch for it in git's command-line scope, through the environment (see infra.git).
    # The clone's own config may hold a token (actions/checkout persists one as an
    # extraHeader by default): a redirect from origin must not carry it to another host.
    env = git_environment(
        {**os.environ, "LC_ALL": "C"},
        safe_directories=[root],
        config=[("http.followRedirects", "false")],
    )
    # The job's PATH may not lead to git in the container (the runner passes it through).
    try:
        git = find_git(env.get("PATH"))
    except InfrastructureError as error:
        return subprocess.CompletedProcess(["git", *args], 128, b"", str(error).encode())
    command = [git, "-C", root, *args]
    try:
        return run_git(command, env=env, timeout=_GIT_TIMEOUT)
    except InfrastructureError as error:  # a timeout or no git: judged like a git failure
        return subprocess.CompletedProcess(command, 128, b"", str(error).encode())


def workspace_origin(workspace: Path) -> str | None:
    """The URL (or path) of the workspace clone's `origin`, None without a clone or origin."""
    if not (workspace / ".git").exists():
        return None
    done = _git(workspace, "remote", "get-url", "origin")
    url = done.stdout.decode("utf-8", "replace").strip()
    return url if done.returncode == 0 and url else None


def _rev_parse(workspace: Path, ref: str) -> str | None:
    done = _git(workspace, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    sha = done.stdout.decode().strip()
    return sha if done.returncode == 0 and sha else None


def workspace_branches(workspace: Path) -> list[str] | None:
    """Branch names of the workspace clone's `origin` (`git ls-remote --heads`), None when
    there is no clone or git cannot ask (then the API lists them)."""
    if not (workspace / ".git").exists():
        return None
    listed = _git(workspace, "ls-remote", "--heads", "origin")
    if listed.returncode != 0:
        return None
    names = []
    for line in listed.stdout.decode("utf-8", "replace").splitlines():
        _sha, _tab, ref = line.partition("\t")
        if ref.startswith("refs/heads/"):
            names.append(ref.removeprefix("refs/heads/"))
    return sorted(names)
