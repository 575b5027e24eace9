"""What a rehearsal needs to know of the local clone it runs on: its commit, its branch, the
repository its origin names and that repository's default branch. Read only."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from swiftpm_guard.errors import UsageError
from swiftpm_guard.infra.git import Git
from swiftpm_guard.sources.refs import clone_git, clone_origin

#: owner/name at the end of a GitHub URL (https://host/owner/name.git, git@host:owner/name).
_REPOSITORY_IN_URL = re.compile(r"[:/]([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+?)(?:\.git)?/?$")


@dataclass(frozen=True, slots=True)
class LocalClone:
    root: Path
    head: str  # the commit checked out
    branch: str | None  # the branch checked out (None: a detached HEAD)
    origin: str | None
    #: origin's default branch as the clone knows it (refs/remotes/origin/HEAD), if it does.
    default_branch: str | None

    def repository(self) -> str | None:
        """owner/name from origin's URL, when it is a GitHub-like one."""
        found = _REPOSITORY_IN_URL.search(self.origin or "")
        return f"{found.group(1)}/{found.group(2)}" if found else None



def local_clone(root: Path, git: Git) -> LocalClone:
    """The clone at `root`, read with the run's `git`; a folder that is none is bad usage."""
    root = root.resolve()
    head = clone_git(git, root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}") if (
        root / ".git").exists() else None
    if head is None:
        raise UsageError(f"{root} is not a git clone with a commit checked out: rehearse runs "
                         "on a local clone of the repository")
    branch = clone_git(git, root, "symbolic-ref", "--quiet", "--short", "HEAD")
    remote_head = clone_git(git, root, "symbolic-ref", "--quiet", "--short",
                            "refs/remotes/origin/HEAD")
    default = remote_head.removeprefix("origin/") if remote_head else None
    return LocalClone(root, head, branch, clone_origin(git, root), default)
