"""The push itself, against real remotes: create-only and leased updates are refused by the
remote when the branch appeared or moved, whichever moment that happened."""

from __future__ import annotations

from pathlib import Path

from support.git_remote import git, reflog, refs
from swiftpm_guard.core.names import Identity, Remote
from swiftpm_guard.infra.git import Git
from swiftpm_guard.sinks.git_push import PushStatus, ScratchRepo

BRANCH = "refs/heads/swiftpm-1.2.3"


def scratch(remote, tmp_path: Path) -> tuple[ScratchRepo, str, str]:
    """A scratch repo with one commit on top of the template ref: (repo, template, commit)."""
    repo = ScratchRepo(
        tmp_path / "scratch.git",
        Remote.parse(remote.url),
        git=Git(),
        token=remote.token,
        identity=Identity("T", "t@example.invalid"),
    ).init()
    template = repo.fetch("refs/heads/swiftpm", depth=1)
    commit = repo.commit(
        template,
        remove=["Package.swift.template"],
        add={"Package.swift": b"// rendered\n"},
        message="1.2.3",
    )
    return repo, template, commit


def test_create_only_push_creates_an_absent_branch(remote, tmp_path):
    repo, template, commit = scratch(remote, tmp_path)
    assert repo.ls_remote([BRANCH]) == {}
    outcome = repo.push(commit, BRANCH, expect=None)
    assert outcome.status is PushStatus.CREATED
    assert refs(remote.bare)[BRANCH] == commit
    assert git("rev-parse", f"{commit}^", cwd=remote.bare).strip() == template


def test_create_only_push_is_refused_when_the_branch_exists_even_as_a_fast_forward(
    remote, tmp_path
):
    repo, template, commit = scratch(remote, tmp_path)
    # Someone created the branch at the template commit: our commit is a fast-forward of it,
    # so a plain push would succeed. The lease on absence must stop it.
    git("update-ref", BRANCH, template, cwd=remote.bare)
    outcome = repo.push(commit, BRANCH, expect=None)
    assert outcome.status is PushStatus.REJECTED
    assert refs(remote.bare)[BRANCH] == template
    assert reflog(remote.bare, BRANCH) == [template]


def test_remote_refuses_the_create_when_the_branch_appears_after_it_advertised(remote, tmp_path):
    """The client saw no branch; it appears inside the remote's receive-pack, just before the
    update. Only the remote's own check (old value = absent, under its ref lock) stops it."""
    repo, template, commit = scratch(remote, tmp_path)
    hook = remote.bare / "hooks" / "pre-receive"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(
        f"#!/bin/sh\nunset GIT_QUARANTINE_PATH\nexec git update-ref {BRANCH} {template}\n"
    )
    hook.chmod(0o755)
    outcome = repo.push(commit, BRANCH, expect=None)
    assert outcome.status is PushStatus.REJECTED
    assert "failed to update ref" in outcome.detail
    assert refs(remote.bare)[BRANCH] == template
    assert reflog(remote.bare, BRANCH) == [template]


def test_leased_update_is_refused_after_the_branch_moved(remote, tmp_path):
    repo, template, commit = scratch(remote, tmp_path)
    git("update-ref", BRANCH, template, cwd=remote.bare)
    observed = repo.ls_remote([BRANCH])[BRANCH]
    assert observed == template
    # Between our look and our push, another run moves the branch.
    moved = git(
        "commit-tree", f"{template}^{{tree}}", "-p", template, "-m", "other", cwd=remote.bare
    ).strip()
    git("update-ref", BRANCH, moved, cwd=remote.bare)
    outcome = repo.push(commit, BRANCH, expect=observed)
    assert outcome.status is PushStatus.REJECTED
    assert refs(remote.bare)[BRANCH] == moved


def test_leased_update_replaces_the_commit_it_observed(remote, tmp_path):
    repo, template, commit = scratch(remote, tmp_path)
    other = git(
        "commit-tree", f"{template}^{{tree}}", "-p", template, "-m", "published", cwd=remote.bare
    ).strip()
    git("update-ref", BRANCH, other, cwd=remote.bare)
    # `commit` is not a descendant of `other`: this is a real overwrite, allowed by the lease.
    outcome = repo.push(commit, BRANCH, expect=other)
    assert outcome.status is PushStatus.UPDATED
    assert refs(remote.bare)[BRANCH] == commit
