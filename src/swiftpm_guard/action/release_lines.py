"""A template change checked against every live release line at once.

Release branches share one template branch: `release/1.0` still builds a framework `main`
dropped, checks out the same template, and would republish without the product. With
`frameworks-ref: main release/*` a pull request into (or a push to) the template branch is
checked against the framework list of each matching ref; the findings of all of them go into
one report and one check run, each marked with its ref unless every ref shares it.

Refs are listed from the workspace clone (`git ls-remote origin`), else through the API.
"""

from __future__ import annotations

import fnmatch
import sys
from collections.abc import Callable
from pathlib import Path

from swiftpm_guard.action.gather import Loaded, default_branch, gather
from swiftpm_guard.action.settings import ActionSettings
from swiftpm_guard.core.model import Finding
from swiftpm_guard.infra.github import GitHubSession
from swiftpm_guard.jobs.check import Outcome
from swiftpm_guard.report.release_lines import LineResult, matrix_markdown
from swiftpm_guard.sources.workspace_clone import workspace_branches

Evaluate = Callable[[Loaded], Outcome]


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _is_glob(pattern: str) -> bool:
    return any(c in pattern for c in "*?")


def _listed(settings: ActionSettings, github: GitHubSession, globs: list[str]) -> list[str]:
    names = workspace_branches(settings.workspace)
    if names is not None:
        return names
    from swiftpm_guard.sources.contents_api import api_branches

    found: set[str] = set()
    for pattern in globs:
        head = pattern[: min(pattern.find(c) for c in "*?" if c in pattern)]
        prefix = head[: head.rfind("/") + 1]
        found.update(api_branches(github.repo, prefix, github.policy))
    return sorted(found)


def release_lines(settings: ActionSettings, github: GitHubSession) -> tuple[str, ...]:
    """The refs a template change is checked against, in input order (empty: not that case)."""
    if not (settings.workspace_holds_template and settings.frameworks_from):
        return ()
    patterns = settings.frameworks_refs or (default_branch(settings, github),)
    globs = [p for p in patterns if _is_glob(p)]
    listed = _listed(settings, github, globs) if globs else []
    refs: list[str] = []
    for pattern in patterns:
        matched = [b for b in listed if fnmatch.fnmatchcase(b, pattern)] if _is_glob(
            pattern
        ) else [pattern]
        if not matched:
            _log(f"swiftpm-guard: frameworks-ref {pattern!r} matches no branch")
        refs += [m for m in matched if m not in refs]
    return tuple(refs)


def _key(finding: Finding) -> tuple[object, ...]:
    return (finding.code, finding.severity, finding.subject, finding.message,
            finding.file, finding.line)


def evaluate_lines(
    settings: ActionSettings,
    github: GitHubSession,
    scratch: Path,
    refs: tuple[str, ...],
    evaluate: Evaluate,
) -> tuple[Outcome, Loaded]:
    """Each ref's framework list against the one template; findings merged, the matrix kept."""
    results: list[tuple[str, Outcome, Loaded]] = []
    for index, ref in enumerate(refs):
        folder = scratch / f"line-{index}"
        folder.mkdir()
        loaded = gather(settings, github, folder, frameworks_ref=ref)
        results.append((ref, evaluate(loaded), loaded))
    shared = set.intersection(*({_key(f) for f in o.report.findings} for _r, o, _l in results))
    merged: list[Finding] = []
    seen: set[tuple[object, ...]] = set()
    for ref, outcome, _loaded in results:
        for finding in outcome.report.findings:
            if _key(finding) in shared:
                if _key(finding) not in seen:
                    seen.add(_key(finding))
                    merged.append(finding)
                continue
            merged.append(finding._replace(message=f"{ref}: {finding.message}"))
    first_ref, first, loaded = results[0]
    del first_ref
    report = first.report._replace(findings=tuple(merged))
    for _ref, _outcome, other in results[1:]:
        loaded.ref_paths |= other.ref_paths
        loaded.notes += [n for n in other.notes if n not in loaded.notes]
    rows = [
        LineResult(ref, o.report.findings, len({a.name for a in lo.artifacts}))
        for ref, o, lo in results
    ]
    loaded.sections.append(matrix_markdown(rows, settings.debug_suffix))
    return first._replace(report=report), loaded
