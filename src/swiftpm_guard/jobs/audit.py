"""The audit job: read every published branch matching a glob, judge each, optionally fetch
every zip they name. The same call for `swiftpm-guard audit` and the action's `mode: audit`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from swiftpm_guard.core.audit import (
    AuditOptions,
    AuditReport,
    BranchRules,
    Protection,
    audit,
    branches_to_ask,
    protection,
    with_findings,
)
from swiftpm_guard.core.model import Finding, HostedStats, Severity
from swiftpm_guard.core.urls import HostedZip, UrlSettings, zips_of_published
from swiftpm_guard.errors import InputError, RulesUnreadable
from swiftpm_guard.redact import shown_location
from swiftpm_guard.sources.published import GIT_TIMEOUT, read_published_with_tips

if TYPE_CHECKING:
    from swiftpm_guard.infra.git import Git
    from swiftpm_guard.infra.github import GitHubSession


def audit_repository(repo: str, pattern: str, options: AuditOptions, *, git: Git,
                     urls: UrlSettings | None = None,
                     git_timeout: float = GIT_TIMEOUT,
                     git_config: Sequence[tuple[str, str]] = ()) -> AuditReport:
    """Read, judge and (with `urls`) fetch: the same call for the CLI and the action.

    `git` is the run's one Git (its proxy included); `git_config` is for the git processes
    that talk to a remote (the action's token header).
    """
    branches = read_published_with_tips(repo, pattern, git=git, timeout=git_timeout,
                                        config=git_config)
    shown = shown_location(repo)  # reports and messages quote it: never a userinfo
    if not branches:
        raise InputError(f"no branch matches {pattern!r} under refs/heads (for a clone's "
                         "remote-tracking branches, give the remote's URL)", file=shown)
    report = audit(branches, options, source=shown, pattern=pattern)
    if urls is not None:
        found, stats = url_findings(report, urls)
        report = dataclasses.replace(with_findings(report, found, options.warn), hosted=stats)
    return report


def url_findings(report: AuditReport,
                 urls: UrlSettings) -> tuple[dict[str, list[Finding]], HostedStats]:
    """Fetch every named binary target of every manifest of every branch (each distinct URL
    once)."""
    from swiftpm_guard.sources.hosted import verify_with_stats

    found: dict[str, list[Finding]] = {}
    targets: list[tuple[str, HostedZip]] = []
    for branch in report.branches:
        found[branch.branch] = []
        # A version-specific manifest is what some SwiftPM reads instead: its zips too.
        for path, manifest in branch.manifests:
            zips, problems = zips_of_published(manifest, path, branch.version, urls)
            targets += [(branch.branch, z) for z in zips]
            found[branch.branch] += [Finding(
                code="url-error", severity=Severity.ERROR, subject=branch.branch,
                message=f"cannot compute zip URLs: {problem}", file=path,
            ) for problem in problems]
    results, stats = verify_with_stats([z for _b, z in targets], urls)
    for (branch_name, _zip), finding in zip(targets, results, strict=True):
        if finding is not None:
            found[branch_name].append(finding)
    return found, stats


def with_protection(report: AuditReport, github: GitHubSession | None) -> AuditReport:
    """The report with what rulesets GitHub applies to its oldest and newest branch; without
    an API session, or a token that may not read the rules, it says it could not tell."""
    if github is None:
        return dataclasses.replace(report, protection=Protection(
            asked=(), unknown="no GitHub API session to ask (a rehearsal, or no token)"))
    from swiftpm_guard.sources.rulesets import branch_rules

    asked = branches_to_ask([b.branch for b in report.branches])
    answers: list[BranchRules] = []
    try:
        for branch in asked:
            answers.append(branch_rules(github.client, github.repository, branch,
                                        github.policy))
    except RulesUnreadable as error:
        return dataclasses.replace(report, protection=Protection(asked=asked,
                                                                 unknown=str(error)))
    return dataclasses.replace(report, protection=protection(answers))


def rulesets_session(api_url: str, token: str | None, repository: str,
                     proxy: str | None) -> GitHubSession:
    """The API session the command line asks the rules through (the action has its own)."""
    from swiftpm_guard.infra.github import GitHubSession, RetryPolicy

    return GitHubSession(api_url, token, repository, RetryPolicy().for_run(), proxy=proxy)
