"""Annotations a pull request into `main` can see.

On such a PR the template comes from the template branch, which is not in the PR's tree: an
annotation on `Package.swift.template` would point at a file the PR does not show. A finding
on the template side (a placeholder whose framework the PR dropped from FRAMEWORKS) is put on
the workflow line that dropped the name instead (the line now where the name stood in the
base branch's list, else the array's first entry); what the template says goes to the summary.
A name the PR added is a finding on its own workflow line already.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from swiftpm_guard.action.gather import Loaded, reader_for
from swiftpm_guard.action.settings import ActionSettings
from swiftpm_guard.core.model import Finding
from swiftpm_guard.errors import GuardError
from swiftpm_guard.infra.github import GitHubSession
from swiftpm_guard.report import markdown as md
from swiftpm_guard.sources.git_ref import read_workflow_from_ref

Locate = Callable[[Finding], tuple[str, int]]


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def applies(settings: ActionSettings) -> bool:
    return (settings.event.is_pull_request and not settings.workspace_holds_template
            and bool(settings.frameworks_from))


def _base_orders(settings: ActionSettings, github: GitHubSession) -> dict[str, list[str]]:
    """Each workflow's names in the PR's base branch, in order (empty when unreadable)."""
    base = settings.event.pr_base_ref
    if not base:
        return {}
    orders: dict[str, list[str]] = {}
    try:
        reader = reader_for(settings, github, base)
        with tempfile.TemporaryDirectory(prefix="swiftpm-guard-base-") as scratch:
            for spec in settings.frameworks_from:
                names = read_workflow_from_ref(reader, spec, Path(scratch))
                orders[spec.path] = [n.name for n in names]
    except GuardError as error:
        _log(f"swiftpm-guard: cannot read the framework list of '{base}' ({error}); "
             "template-side annotations go on the array's first entry")
    return orders


def _target(name: str, file: str, order: Sequence[str], head: dict[str, int]) -> int | None:
    """The head line where `name` stood: its next (else previous) surviving neighbour."""
    if name in order:
        index = order.index(name)
        for other in [*order[index + 1:], *reversed(order[:index])]:
            if other in head:
                return head[other]
    return min(head.values()) if head else None


def workflow_locator(settings: ActionSettings, github: GitHubSession, loaded: Loaded,
                     locate: Locate) -> tuple[Locate, list[Finding]]:
    """`locate` with template-side findings moved to workflow lines; the findings moved."""
    template_side = set(loaded.ref_paths)
    heads: dict[str, dict[str, int]] = {spec.path: {} for spec in settings.frameworks_from}
    for artifact in loaded.artifacts:
        where = artifact.origin
        if where.file in heads and where.line is not None:
            heads[where.file].setdefault(artifact.name, where.line)
    orders = _base_orders(settings, github)
    moved: list[Finding] = []
    suffix = settings.debug_suffix

    def relocated(finding: Finding) -> tuple[str, int]:
        if finding.file not in template_side:
            return locate(finding)
        name = finding.subject
        base = name.removesuffix(suffix) if suffix and name.endswith(suffix) else name
        for path, head in heads.items():
            line = _target(base, path, orders.get(path, []), head)
            if line is not None:
                moved.append(finding)
                return path, line
        return locate(finding)

    return relocated, moved


def template_side_markdown(findings: Sequence[Finding], template_ref: str) -> str:
    """What the template says about the findings annotated on workflow lines."""
    if not findings:
        return ""
    lines = [f"#### Template side ({md.code(template_ref)}, not in this pull request's tree)", ""]
    seen: set[tuple[str | None, int | None, str]] = set()
    for finding in findings:
        key = (finding.file, finding.line, finding.code)
        if key in seen:
            continue
        seen.add(key)
        where = f"{finding.file}:{finding.line}" if finding.line else str(finding.file)
        lines.append(f"- {md.code(where)} {md.code(finding.code)} {md.code(finding.subject)}")
    return "\n".join(lines) + "\n"
