"""What the publish job is asked and what it answers: `PublishRequest`, `PublishResult`.

A request validates everything that reaches git (version, branch prefix, template ref,
template paths, remote, author, token) on construction: bad input is a UsageError, exit 2,
before any git process runs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from swiftpm_guard.core.git_names import (
    DEFAULT_AUTHOR,
    DEFAULT_BRANCH_PREFIX,
    DEFAULT_TEMPLATE_REF,
    Identity,
    Remote,
    branch_ref,
    check_token,
    manifest_path,
    template_ref,
    tree_path,
)
from swiftpm_guard.core.model import Finding, Report, Severity
from swiftpm_guard.core.package_diff import PackageDiff
from swiftpm_guard.core.publish_refs import DEFAULT_EXCLUDED, validate_excluded
from swiftpm_guard.core.urls import UrlSettings
from swiftpm_guard.core.versions import validate_version
from swiftpm_guard.errors import InputError, UsageError
from swiftpm_guard.jobs.check_request import CheckRequest
from swiftpm_guard.jobs.resolve import ResolveSettings
from swiftpm_guard.sinks.git_runner import NETWORK_TIMEOUT

#: Events that never publish, whatever the mode says: code under review is not a release.
NO_PUSH_EVENTS = frozenset(
    {
        "pull_request",
        "pull_request_target",
        "pull_request_review",
        "pull_request_review_comment",
        "merge_group",
    }
)



def check_remote_token(remote: Remote, token: str | None, source: str) -> None:
    """A token goes only to http(s) remotes, as a header, and never over plain http."""
    if token is None or remote.kind != "http":
        return
    check_token(token, source=source)
    if not remote.secure:
        raise UsageError(f"refusing to send {source} over plain http to {remote.origin}; use https")


@dataclass(frozen=True, kw_only=True)
class PublishRequest:
    settings: CheckRequest
    repo: str
    template_ref: str = DEFAULT_TEMPLATE_REF
    branch_prefix: str = DEFAULT_BRANCH_PREFIX
    dry_run: bool = False
    allow_overwrite: bool = False
    author: str = DEFAULT_AUTHOR
    token: str | None = field(default=None, repr=False)
    token_source: str = "the token"
    #: The GitHub event that triggered the run; an event in NO_PUSH_EVENTS never pushes.
    event: str | None = None
    #: What consumers put in `.package(url:)`; default: the remote itself.
    package_url: str | None = None
    git_timeout: float = NETWORK_TIMEOUT
    #: Download every zip the manifest points at and compare checksums before pushing.
    verify_urls: UrlSettings | None = None
    #: Resolve a throwaway consumer with the real SwiftPM before pushing (jobs.resolve).
    resolve: ResolveSettings | None = None
    #: Tree paths (a trailing `/`: a folder) of the template ref left out of the published
    #: commit: a workflow on a published branch would run there.
    exclude: tuple[str, ...] = DEFAULT_EXCLUDED
    #: An existing branch gets a new commit on top of its tip, leased on that tip (never a
    #: rewrite); an absent one is created as usual.
    update: bool = False

    remote: Remote = field(init=False, repr=False)
    branch: str = field(init=False)  # full ref, refs/heads/<prefix><version>
    template: str = field(init=False)  # full ref of the template
    templates: tuple[str, ...] = field(init=False)  # paths inside the template ref
    identity: Identity = field(init=False)

    def __post_init__(self) -> None:
        settings = self.settings
        validate_version(settings.version)
        if settings.stubs_dir is not None:
            raise UsageError(
                "publish reads stub folders from the template ref; --stubs-dir does not apply"
            )
        if "branch-exists" in settings.warn:
            raise UsageError(
                "--warn branch-exists is not allowed: overwriting a published "
                "version needs the explicit --allow-overwrite"
            )
        templates = tuple(tree_path(path.as_posix()) for path in settings.templates)
        manifests = [manifest_path(t) for t in templates]
        if len(set(manifests)) != len(manifests):
            raise UsageError("two --template paths would produce the same manifest")
        remote = Remote.parse(self.repo, cwd=os.getcwd())
        check_remote_token(remote, self.token, self.token_source)
        if self.package_url is not None:
            Remote.parse(self.package_url, cwd=os.getcwd())
        if self.update and self.allow_overwrite:
            raise UsageError(
                "--update and --allow-overwrite exclude each other: --update adds a commit on "
                "top of the published tip, --allow-overwrite replaces it"
            )
        object.__setattr__(self, "exclude", validate_excluded(self.exclude, "--exclude"))
        if not 0 < self.git_timeout <= 3600:
            raise UsageError("--git-timeout must be between 0 and 3600 seconds")
        derived = {
            "remote": remote,
            "branch": branch_ref(self.branch_prefix, settings.version),
            "template": template_ref(self.template_ref),
            "templates": templates,
            "identity": Identity.parse(self.author),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)


@dataclass(frozen=True, slots=True)
class PublishResult:
    report: Report
    branch: str  # short name, e.g. swiftpm-1.2.3
    pushed: bool
    commit: str | None  # the commit built (None when nothing was built)
    template_commit: str
    remote_commit: str | None  # the branch on the remote when first asked (None: absent)
    manifests: tuple[tuple[str, str], ...]  # (path in the tree, rendered text)
    snippet: str
    skipped: str | None = None  # why nothing was pushed
    overwritten: bool = False
    diff: PackageDiff | None = None
    diff_note: str | None = None  # why there is no diff
    excluded: tuple[str, ...] = ()  # template-ref paths left out of the published tree
    updated_from: str | None = None  # --update: the published tip the new commit is on

    @property
    def exit_code(self) -> int:
        return 0 if self.report.consistent else 1

    def as_dict(self) -> dict[str, object]:
        return {
            "branch": self.branch,
            "pushed": self.pushed,
            "commit": self.commit,
            "template_commit": self.template_commit,
            "remote_commit": self.remote_commit,
            "overwritten": self.overwritten,
            "skipped": self.skipped,
            "manifests": [path for path, _text in self.manifests],
            "snippet": self.snippet,
            "diff": self.diff.as_dict() if self.diff else None,
            "diff_note": self.diff_note,
            "excluded": list(self.excluded),
            "updated_from": self.updated_from,
        }


def branch_exists(branch: str, message: str, severity: Severity = Severity.ERROR) -> Finding:
    """The `branch-exists` finding (an error unless overwriting was asked for)."""
    return Finding(code="branch-exists", severity=severity, subject=branch, message=message)


def local_remote_exists(remote: Remote) -> None:
    local = remote.local_path
    if local is not None and not os.path.isdir(local):
        raise InputError("remote repository folder not found", file=local)
