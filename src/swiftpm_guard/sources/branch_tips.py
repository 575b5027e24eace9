"""Who made each published branch's tip, and when: author, date and subject of its commit, in
one `cat-file --batch` (the audit flags a tip that is not the publish commit).
"""

from __future__ import annotations

from collections.abc import Sequence

from swiftpm_guard.core.audit_rules import PublishedBranch
from swiftpm_guard.core.audit_tips import TipCommit
from swiftpm_guard.sources.git_branches import Objects, read_branches
from swiftpm_guard.sources.git_repository import (
    DEFAULT_PATTERN,
    GIT_TIMEOUT,
    opened_repository,
    validate_pattern,
)


def read_tips(git_dir: str, commits: Sequence[str], *,
              timeout: float = GIT_TIMEOUT) -> dict[str, TipCommit]:
    """Author, date and subject of each commit, through one `cat-file --batch`."""
    objects = Objects(git_dir, timeout)
    objects.load(list(commits))
    tips = {}
    for commit in commits:
        item = objects.contents.get(commit)
        if item is not None and item[0] == "commit":
            tips[commit] = _tip(commit, item[1])
    return tips


def _tip(commit: str, raw: bytes) -> TipCommit:
    header, _, message = raw.decode("utf-8", "replace").partition("\n\n")
    author, date = "", ""
    for line in header.splitlines():
        if line.startswith("author "):
            author, date = _signature(line.removeprefix("author "))
    subject = message.strip().splitlines()[0] if message.strip() else ""
    return TipCommit(commit, author, date, subject)


def _signature(text: str) -> tuple[str, str]:
    """`Name <email> 1700000000 +0100` → ("Name <email>", "2023-11-14T23:13:20+01:00")."""
    import datetime

    who, _, when = text.rpartition(">")
    parts = when.split()
    try:
        seconds, offset = int(parts[0]), parts[1]
        sign = -1 if offset.startswith("-") else 1
        zone = datetime.timezone(sign * datetime.timedelta(hours=int(offset[1:3]),
                                                           minutes=int(offset[3:5])))
        date = datetime.datetime.fromtimestamp(seconds, zone).isoformat()
    except (IndexError, ValueError, OverflowError):
        date = when.strip()
    return who + ">", date


def read_published_with_tips(repo: str, pattern: str = DEFAULT_PATTERN, *,
                             timeout: float = GIT_TIMEOUT,
                             config: Sequence[tuple[str, str]] = ()) -> list[PublishedBranch]:
    """`read_published_branches`, each branch with its tip commit's author, date and subject."""
    import dataclasses

    validate_pattern(pattern)
    with opened_repository(repo, pattern, timeout=timeout, config=config) as git_dir:
        branches = read_branches(git_dir, pattern, timeout=timeout)
        tips = read_tips(git_dir, [b.commit for b in branches], timeout=timeout)
    return [dataclasses.replace(b, tip=tips.get(b.commit)) for b in branches]
