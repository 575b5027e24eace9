"""The preflight job: is `<prefix><version>` still free on the remote, and (with
`verify_absent`) are its zip URLs free too? A workflow runs this before uploading anything.

Exit codes: 0 the branch is free, 1 it exists, 2 bad input, 3 git or the remote failed.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from swiftpm_guard.core.checks import DEFAULT_VERSION_PATTERN
from swiftpm_guard.core.model import Finding
from swiftpm_guard.core.names import (
    DEFAULT_BRANCH_PREFIX,
    DEFAULT_TEMPLATE_REF,
    Remote,
    branch_ref,
    check_against_pattern,
    short_branch,
    template_ref,
    tree_path,
    validate_version,
)
from swiftpm_guard.core.option_names import option
from swiftpm_guard.core.urls import UrlSettings
from swiftpm_guard.jobs import verify_urls
from swiftpm_guard.jobs.adapters import QUIET, Adapters
from swiftpm_guard.jobs.publish import (
    branch_exists,
    check_remote_token,
    local_remote_exists,
    manifests_at,
)
from swiftpm_guard.sinks.git_push import NETWORK_TIMEOUT, ScratchRepo
from swiftpm_guard.sources.template import load_exported, wanted


@dataclass(frozen=True, kw_only=True)
class PreflightRequest:
    version: str
    repo: str
    branch_prefix: str = DEFAULT_BRANCH_PREFIX
    token: str | None = field(default=None, repr=False)
    token_source: str = "the token"
    git_timeout: float = NETWORK_TIMEOUT
    #: `--verify-absent`: none of this version's zip URLs may exist yet. The URLs come from
    #: the templates (paths inside `template_ref`), so those are read only in that case.
    verify_absent: UrlSettings | None = None
    template_ref: str = DEFAULT_TEMPLATE_REF
    templates: tuple[str, ...] = ("Package.swift.template",)
    version_pattern: str = DEFAULT_VERSION_PATTERN

    remote: Remote = field(init=False, repr=False)
    branch: str = field(init=False)
    template: str = field(init=False)

    def __post_init__(self) -> None:
        validate_version(self.version)
        check_against_pattern(self.version, self.version_pattern,
                              custom_pattern=self.version_pattern != DEFAULT_VERSION_PATTERN)
        remote = Remote.parse(self.repo, cwd=os.getcwd())
        check_remote_token(remote, self.token, self.token_source)
        for path in self.templates:
            tree_path(path)
        object.__setattr__(self, "remote", remote)
        object.__setattr__(self, "branch", branch_ref(self.branch_prefix, self.version))
        object.__setattr__(self, "template", template_ref(self.template_ref))


@dataclass(frozen=True, slots=True)
class PreflightResult:
    branch: str
    remote_commit: str | None
    findings: tuple[Finding, ...]

    @property
    def exit_code(self) -> int:
        return 1 if self.findings else 0

    def as_dict(self) -> dict[str, object]:
        """The preflight's JSON report."""
        return {"branch": self.branch, "free": not self.findings,
                "remote_commit": self.remote_commit,
                "findings": [f.as_dict() for f in self.findings]}


def preflight(request: PreflightRequest, adapters: Adapters = QUIET) -> PreflightResult:
    """Is `<prefix><version>` free on the remote (and, with `verify_absent`, are its zip URLs
    free too)? A workflow runs this before uploading anything."""
    local_remote_exists(request.remote)
    name = short_branch(request.branch)
    with tempfile.TemporaryDirectory(prefix="swiftpm-guard-preflight-") as tmp:
        repo = ScratchRepo(
            Path(tmp) / "repo.git",
            request.remote,
            git=adapters.git,
            token=request.token,
            network_timeout=request.git_timeout,
            token_source=request.token_source,
        ).init()
        sha = repo.ls_remote([request.branch]).get(request.branch)
        findings: list[Finding] = []
        if sha is not None:
            findings.append(
                branch_exists(
                    name,
                    f"'{name}' already exists on {request.remote} at {sha[:12]}; do not "
                    "upload artifacts over a published version",
                    fix=taken(name),
                )
            )
        if request.verify_absent is not None:
            absent = _absent(repo, request, request.verify_absent, Path(tmp) / "tree",
                             unpublished=name if sha is None else None)
            # Zips of a published version: the same next step as its branch.
            findings += [replace(f, fix=taken(name)) if sha is not None and
                         f.code == "url-exists" else f for f in absent]
    return PreflightResult(branch=name, remote_commit=sha, findings=tuple(findings))


def taken(branch: str) -> str:
    """What to do when the version is already published: never upload over it."""
    return (f"stop before uploading: apps pin {branch}'s zips by checksum. Ship this build as "
            f"a new version (the next nightly date, or a bumped version); to change what "
            f"{branch} holds, republish it with {option('update')} (swiftpm-republish.yml), "
            "never by uploading over its zips")


def _absent(repo: ScratchRepo, request: PreflightRequest, options: UrlSettings, tree: Path,
            *, unpublished: str | None) -> list[Finding]:
    """`url-exists` for each zip URL of this version that is already served (`unpublished`:
    the branch, when it does not exist)."""
    commit = repo.fetch(request.template, depth=1)
    found, _entries = manifests_at(repo, commit, request.templates)
    repo.export(commit, wanted(found.paths), tree)
    templates, _stub_findings = load_exported(tree, found)
    return verify_urls.absent(templates, request.version, options, unpublished=unpublished)
