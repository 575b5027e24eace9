"""Git readers in a repository owned by another user, as a runner's workspace is (uid 1001)
to a Docker action running as root. Nothing is written to any git config to allow it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from support.actions_env import clone, git, make_origin
from support.published import BranchSpec, build_repo, read_published_branches
from swiftpm_guard.infra.git import Git
from swiftpm_guard.sources.refs import Checkout

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to chown to uid 1001")


def _give_away(root: Path) -> None:
    for path in [root, *root.rglob("*")]:
        os.chown(path, 1001, 1001, follow_symlinks=False)


def _refused(repo: Path) -> bool:
    done = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--git-dir"], capture_output=True, text=True,
        env={"PATH": os.environ["PATH"], "HOME": str(repo.parent), "GIT_CONFIG_NOSYSTEM": "1"},
        timeout=30, check=False,
    )
    return "dubious ownership" in done.stderr


def test_the_workspace_clone_readers(tmp_path):
    """The CLI in a developer's clone owned by another user: read through the one Git
    adapter (safe.directory for exactly that folder), fetched into our own repository."""
    origin = make_origin(tmp_path / "remote")
    workspace = clone(origin, "main", tmp_path / "workspace")
    git(workspace, "update-ref", "-d", "refs/remotes/origin/swiftpm")
    _give_away(workspace)
    assert _refused(workspace)
    ref = Checkout(workspace, git=Git()).git_ref("swiftpm", lambda line: pytest.fail(line))
    assert ref is not None and ref.commit == origin.swiftpm
    assert b"__SHA256_executorch__" in ref.read("Package.swift.template", max_bytes=10**6,
                                                 what="template")
    assert "safe" not in (workspace / ".git" / "config").read_text()
    assert not (workspace / ".git" / "refs" / "remotes" / "origin" / "swiftpm").exists()


def test_audit_reads_a_local_repository_owned_by_another_user(tmp_path):
    bare = build_repo(tmp_path / "published.git", [BranchSpec("1.0.0"), BranchSpec("1.0.1")])
    workspace = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--mirror", str(bare), str(workspace / ".git"))
    git(workspace, "config", "--bool", "core.bare", "false")
    _give_away(workspace)
    assert _refused(workspace)
    branches = read_published_branches(str(workspace), git=Git())
    assert [b.name for b in branches] == ["swiftpm-1.0.0", "swiftpm-1.0.1"]
