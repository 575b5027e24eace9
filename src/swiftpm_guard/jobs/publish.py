"""Publish `swiftpm-<version>`: check both ways, then push one commit, create-only.

This is the API the CLI (`swiftpm-guard publish` / `preflight`) and the action's `publish`
mode call::

    from swiftpm_guard.jobs.publish import publish
    from swiftpm_guard.jobs.publish_request import PublishRequest
    result = publish(PublishRequest(settings=settings, repo=url, token=token,
                                    event=os.environ.get("GITHUB_EVENT_NAME")), log=print)
    result.pushed, result.branch, result.commit, result.report, result.exit_code

`settings` is the same `Settings` as for `check`, except that `settings.templates` are paths
*inside the template ref* (default `Package.swift.template`) and `stubs_dir` is None: the
template and its stub folders are read from the ref, not from the workspace.

The order, each step only when the ones before allow it:
1. `PublishRequest` validates everything that reaches git (version, branch prefix, template
   ref, template paths, remote, author, token): bad input is a UsageError, exit 2, before any
   git process runs.
2. One `ls-remote` for the branch, the template ref and the branches of the same X.Y.Z.
   An existing branch is a `branch-exists` error (a logged warning with `allow_overwrite`).
3. The template ref is fetched (depth 1); its template(s) and stub folders are exported to a
   temporary folder and go through the same sources → render → checks as `check`.
4. Nothing is pushed on any error finding, on `dry_run`, or on an event in `NO_PUSH_EVENTS`;
   `PublishResult.skipped` says why. A dry run also compares products and binary targets with
   the newest published branch of the same X.Y.Z.
5. One commit on top of the template ref: each template renamed to its manifest
   (`Package.swift.template` → `Package.swift`) and rendered, everything else (stubs) kept,
   message = the version; pushed with a lease on the branch's absence (`allow_overwrite`: on
   the sha observed in step 2), never a plain force. A rejected push is re-checked: if the
   branch is there now, it is `branch-exists` (race lost, exit 1) and the remote is untouched.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from swiftpm_guard.core.git_names import manifest_path, short_branch
from swiftpm_guard.core.model import Finding, Report, Severity
from swiftpm_guard.core.package_diff import consumer_snippet, sibling_patterns
from swiftpm_guard.core.publish_refs import is_excluded
from swiftpm_guard.errors import InputError
from swiftpm_guard.jobs import verify_urls
from swiftpm_guard.jobs.check import Outcome, evaluate_read, gather_artifacts
from swiftpm_guard.jobs.check_request import CheckRequest
from swiftpm_guard.jobs.previous_release import compare_with_previous
from swiftpm_guard.jobs.publish_request import (
    NO_PUSH_EVENTS,
    PublishRequest,
    PublishResult,
    branch_exists,
    local_remote_exists,
)
from swiftpm_guard.jobs.release_tree import load_exported, wanted
from swiftpm_guard.jobs.resolve import with_resolution
from swiftpm_guard.sinks.git_push import PushStatus, ScratchRepo, commit_onto, tree_of
from swiftpm_guard.sinks.git_runner import GitError

Log = Callable[[str], None]


def _observed(request: PublishRequest, sha: str | None, url: str) -> list[Finding]:
    if sha is None or request.update:
        return []  # --update builds on an existing branch: being there is expected
    name = short_branch(request.branch)
    if request.allow_overwrite:
        return [
            branch_exists(
                name,
                f"'{name}' exists on {url} at {sha[:12]}; "
                "--allow-overwrite: it will be replaced only if it is still at "
                "that commit when the push lands",
                Severity.WARNING,
            )
        ]
    return [
        branch_exists(
            name,
            f"'{name}' already exists on {url} at {sha[:12]}; apps pin "
            "published versions, so it is never rewritten (publish a new "
            "version, or pass --allow-overwrite deliberately)",
        )
    ]


def _evaluate(
    settings: CheckRequest, root: Path, templates: Sequence[str], extra: Sequence[Finding]
) -> Outcome:
    """The check job on templates exported from a ref: shown by their path in the ref."""
    artifacts, findings = gather_artifacts(settings)
    loaded, stub_findings = load_exported(root, templates)
    return evaluate_read(settings, loaded, artifacts, [*extra, *findings, *stub_findings],
                         require_checksums=True)


def _skip_reason(request: PublishRequest, report: Report) -> str | None:
    if not report.consistent:
        return "error findings"
    if request.dry_run:
        return "dry run"
    if request.event in NO_PUSH_EVENTS:
        return f"'{request.event}' events never publish"
    return None


def publish(
    request: PublishRequest, *, environ: Mapping[str, str] | None = None, log: Log | None = None
) -> PublishResult:
    """Check, then (when allowed) push one commit create-only. Raises only for bad input (2)
    and broken infrastructure (3); findings, including a lost race, are in the report."""
    say = log or (lambda _line: None)
    local_remote_exists(request.remote)
    with tempfile.TemporaryDirectory(prefix="swiftpm-guard-publish-") as tmp:
        work = Path(tmp)
        repo = ScratchRepo(
            work / "repo.git",
            request.remote,
            token=request.token,
            identity=request.identity,
            environ=environ,
            network_timeout=request.git_timeout,
            token_source=request.token_source,
        ).init()
        refs = _look(repo, request, say)
        result, outcome = _check(repo, request, refs, work, say)
        if request.dry_run:
            found, note = compare_with_previous(repo, refs, request, outcome, work)
            result = dataclasses.replace(result, diff=found, diff_note=note)
        skipped = _skip_reason(request, result.report)
        if skipped is not None:
            say(f"not pushing {result.branch}: {skipped}")
            return dataclasses.replace(result, skipped=skipped)
        return _push(repo, request, result, say)


def _look(repo: ScratchRepo, request: PublishRequest, say: Log) -> dict[str, str]:
    """One ls-remote: the branch, the template ref and the branches of the same X.Y.Z."""
    patterns = [
        request.branch,
        request.template,
        *sibling_patterns(request.branch_prefix, request.settings.version),
    ]
    refs = repo.ls_remote(patterns)
    url = request.remote.url
    if request.template not in refs:
        raise InputError(f"template ref {request.template} is not on the remote {url}")
    seen = refs.get(request.branch)
    say(f"{short_branch(request.branch)}: {'at ' + seen[:12] if seen else 'absent'} on {url}")
    return refs


def _check(
    repo: ScratchRepo, request: PublishRequest, refs: Mapping[str, str], work: Path, say: Log
) -> tuple[PublishResult, Outcome]:
    """Read the template ref into `work/tree` and run the full check on it."""
    template_commit = repo.fetch(request.template, depth=1)
    say(f"template {short_branch(request.template)} at {template_commit[:12]}")
    tree = work / "tree"
    repo.export(template_commit, wanted(request.templates), tree)
    excluded = tuple(
        e.path for e in repo.tree(template_commit) if is_excluded(e.path, request.exclude)
    )
    if excluded:
        say(f"left out of the published tree: {', '.join(excluded)}")
    remote_commit = refs.get(request.branch)
    observed = _observed(request, remote_commit, request.remote.url)
    outcome = _evaluate(request.settings, tree, request.templates, observed)
    if request.verify_urls is not None:
        outcome = verify_urls.with_hosted(outcome, request.settings.version,
                                          request.verify_urls, warn=request.settings.warn)
    if request.resolve is not None:
        outcome, _said = with_resolution(outcome, request.settings.version, request.resolve,
                                         request.verify_urls, warn=request.settings.warn,
                                         log=say)
    name = short_branch(request.branch)
    result = PublishResult(
        report=outcome.report,
        branch=name,
        pushed=False,
        commit=None,
        template_commit=template_commit,
        remote_commit=remote_commit,
        manifests=tuple(
            (manifest_path(t), r.text)
            for t, r in zip(request.templates, outcome.rendered, strict=True)
        ),
        snippet=consumer_snippet(request.package_url or request.remote.package_url(), name),
        excluded=excluded,
    )
    return result, outcome


def _push(
    repo: ScratchRepo, request: PublishRequest, result: PublishResult, say: Log
) -> PublishResult:
    """Build the one commit and push it with a lease: on absence, or on the sha observed."""
    name, seen = result.branch, result.remote_commit
    if request.update and seen is not None:
        return _update(repo, request, result, seen, say)
    commit = repo.commit(
        result.template_commit,
        remove=(*request.templates, *result.excluded),
        add={path: text.encode("utf-8") for path, text in result.manifests},
        message=request.settings.version,
    )
    result = dataclasses.replace(result, commit=commit)
    if commit == seen:
        # Same tree, parent, message, identity and second: the remote already holds it.
        say(f"{name} already holds exactly {commit[:12]}; nothing to push")
        return dataclasses.replace(result, skipped="already published")
    expect = seen if request.allow_overwrite else None
    if expect is not None:
        say(
            f"--allow-overwrite: replacing {name} at {expect[:12]} with {commit[:12]}; "
            "lease on that commit, no force"
        )
    pushed = repo.push(commit, request.branch, expect=expect)
    if pushed.status in (PushStatus.CREATED, PushStatus.UPDATED):
        say(f"pushed {name} at {commit[:12]} ({pushed.detail})")
        return dataclasses.replace(result, pushed=True, overwritten=expect is not None)
    return _lost(repo, request, result, pushed.detail, request.remote.url)


def _lost(
    repo: ScratchRepo, request: PublishRequest, result: PublishResult, detail: str, url: str
) -> PublishResult:
    """The remote refused the push: the branch appeared or moved (race lost), or it said no."""
    now = repo.ls_remote([request.branch]).get(request.branch)
    leased = request.allow_overwrite or request.update
    if now is None or (leased and now == result.remote_commit):
        raise GitError(f"the remote refused the push of {result.branch}: {detail}")
    finding = branch_exists(
        result.branch,
        f"'{result.branch}' appeared on {url} at {now[:12]} while this run was "
        f"publishing (race lost: {detail}); the remote was left as it is",
    )
    report = result.report._replace(findings=(*result.report.findings, finding))
    return dataclasses.replace(result, report=report, skipped="race lost")


def _update(
    repo: ScratchRepo, request: PublishRequest, result: PublishResult, seen: str, say: Log
) -> PublishResult:
    """--update: a new commit on top of the published tip, leased on that tip.

    Its tree is what a fresh publish would hold; its parent is the tip, so every commit the
    branch had (a reviewed hand fix included) stays in its history and every revision a
    `Package.resolved` pins stays reachable. The subject is the version, like a publish commit.
    """
    tip = repo.fetch(request.branch, depth=1)
    version = request.settings.version
    commit = commit_onto(
        repo,
        result.template_commit,
        parent=tip,
        remove=(*request.templates, *result.excluded),
        add={path: text.encode("utf-8") for path, text in result.manifests},
        message=f"{version}\n\nUpdated by swiftpm-guard publish --update on top of {tip}.",
    )
    result = dataclasses.replace(result, commit=commit, updated_from=tip)
    if tree_of(repo, commit) == tree_of(repo, tip):
        say(f"{result.branch} at {tip[:12]} already holds this tree; nothing to push")
        return dataclasses.replace(result, skipped="already up to date")
    say(f"--update: {result.branch} at {tip[:12]} gets {commit[:12]} on top; lease on the tip")
    pushed = repo.push(commit, request.branch, expect=seen)
    if pushed.status in (PushStatus.CREATED, PushStatus.UPDATED):
        say(f"pushed {result.branch} at {commit[:12]} ({pushed.detail})")
        return dataclasses.replace(result, pushed=True)
    return _lost(repo, request, result, pushed.detail, request.remote.url)
