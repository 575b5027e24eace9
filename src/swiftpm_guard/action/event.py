"""What the action needs of the triggering event: `GITHUB_EVENT_NAME`, `GITHUB_EVENT_PATH`
(the payload, size-capped) and friends, validated once.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from swiftpm_guard.core import json_depth
from swiftpm_guard.errors import InputError, TooDeep, UsageError
from swiftpm_guard.infra.fs import read_bytes

PR_EVENTS = frozenset({"pull_request", "pull_request_target"})
EVENT_MAX_BYTES = 32 * 1024 * 1024
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_EVENT = re.compile(r"[a-z][a-z_]{0,63}")
_REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")


@dataclass(frozen=True, kw_only=True)
class Event:
    """What the action needs from `GITHUB_EVENT_NAME`, `GITHUB_EVENT_PATH` and friends."""

    name: str
    repository: str
    sha: str
    ref: str = ""
    pr_number: int | None = None
    pr_head_sha: str | None = None
    pr_base_ref: str | None = None
    pr_head_repository: str | None = None
    default_branch: str | None = None
    #: A workflow_run's: the event of the run that triggered it (`workflow_run.event`) and the
    #: repository its head came from (`workflow_run.head_repository.full_name`).
    run_event: str | None = None
    run_head_repository: str | None = None

    @property
    def is_pull_request(self) -> bool:
        return self.name in PR_EVENTS and self.pr_head_sha is not None

    @property
    def head_sha(self) -> str:
        """The commit a check run belongs to: the PR's head, not its merge commit."""
        return self.pr_head_sha if self.is_pull_request and self.pr_head_sha else self.sha

    @property
    def branch(self) -> str | None:
        """The branch the workspace holds: a PR's base (its target), else the pushed branch."""
        if self.is_pull_request:
            return self.pr_base_ref
        return self.ref.removeprefix("refs/heads/") if self.ref.startswith("refs/heads/") else None

    @property
    def from_fork(self) -> bool:
        return self.pr_head_repository not in (None, self.repository)

    @property
    def run_from_fork(self) -> bool:
        """A workflow_run whose triggering run's head was not this repository."""
        return self.run_head_repository not in (None, self.repository)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Event:
        name = env.get("GITHUB_EVENT_NAME", "").strip()
        repository = env.get("GITHUB_REPOSITORY", "").strip()
        sha = env.get("GITHUB_SHA", "").strip()
        if not name:
            raise UsageError(
                "GITHUB_EVENT_NAME is not set: run this inside GitHub Actions "
                "(or use the `swiftpm-guard` CLI)"
            )
        if not _REPOSITORY.fullmatch(repository):
            raise UsageError(f"GITHUB_REPOSITORY {repository!r} is not owner/name")
        if not _SHA.fullmatch(sha):
            raise UsageError(f"GITHUB_SHA {sha!r} is not a commit sha")
        payload = _payload(env.get("GITHUB_EVENT_PATH", ""))
        pull = payload.get("pull_request") if name in PR_EVENTS else None
        pull = pull if isinstance(pull, dict) else {}
        head, base = _dict(pull.get("head")), _dict(pull.get("base"))
        head_sha = head.get("sha")
        if pull and not (isinstance(head_sha, str) and _SHA.fullmatch(head_sha)):
            raise InputError("pull_request.head.sha is missing or not a commit sha",
                             file=env.get("GITHUB_EVENT_PATH"))
        number = pull.get("number")
        run = _dict(payload.get("workflow_run")) if name == "workflow_run" else {}
        return cls(name=name, repository=repository, sha=sha,
                   ref=env.get("GITHUB_REF", "").strip(),
                   pr_number=number if isinstance(number, int) else None,
                   pr_head_sha=head_sha if pull else None,
                   pr_base_ref=_str(base.get("ref")) or (env.get("GITHUB_BASE_REF") or None),
                   pr_head_repository=_str(_dict(head.get("repo")).get("full_name")),
                   default_branch=_str(_dict(payload.get("repository")).get("default_branch")),
                   run_event=_event_name(run.get("event")),
                   run_head_repository=_str(_dict(run.get("head_repository")).get("full_name")))


def _payload(path: str) -> dict[str, Any]:
    if not path:
        return {}
    # The runner writes this file, but the path is an environment variable an earlier step
    # can change (GITHUB_ENV): never blocking, a regular file only (infra.fs, the one open).
    data = read_bytes(path, display=path, max_bytes=EVENT_MAX_BYTES, what="event payload")
    try:
        payload = json_depth.loads(data)
    except TooDeep as error:
        raise InputError(f"event payload is not the JSON we read: {error}", file=path) from None
    except ValueError as error:
        raise InputError(f"event payload is not JSON: {error}", file=path) from None
    if not isinstance(payload, dict):
        raise InputError("event payload is not a JSON object", file=path)
    return payload


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _event_name(value: object) -> str | None:
    """An event name as GitHub spells them (`pull_request_target`); anything else is unknown."""
    return value if isinstance(value, str) and _EVENT.fullmatch(value) else None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
