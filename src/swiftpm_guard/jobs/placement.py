"""Where each finding is annotated: a line of a file in the checked-out commit, or nowhere.

GitHub shows an annotation on the file of the commit the check run is for. A finding whose
file was read from another ref (the template branch, a release line, a published branch) is
not in that tree, and the same path there may be an unrelated file: such a finding is not
annotated but listed as `ref:path:line` in the check run's text and the summary. So is a
finding without a file (`branch-exists`, a bad version) or whose file is not in the tree.

On a pull request into `main` the template comes from the template branch. A template-side
finding (a placeholder whose framework the pull request dropped from FRAMEWORKS) is placed on
the workflow line that names the same thing: where the dropped name's next surviving
neighbour in the base branch's list now stands, else the array's first entry. The findings so
moved are listed for the summary.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from swiftpm_guard.core.checks import base_name
from swiftpm_guard.core.model import Artifact, Finding, Severity
from swiftpm_guard.infra.fs import exists_in

if TYPE_CHECKING:
    from swiftpm_guard.jobs.check import CheckRequest, Sources

Place = tuple[str, int]
#: Findings about a built name, not about the file it came in: a zip is a build's output, not
#: a line anyone edits, so they stand on the line that declares the name (FRAMEWORKS).
_ABOUT_THE_NAME = frozenset({"unclaimed-artifact", "conflicting-artifact"})


def anchored(findings: Sequence[Finding], artifacts: Sequence[Artifact]
             ) -> tuple[Finding, ...]:
    """Each finding about a built name that points at its zip moved to the workflow line that
    declares the name (`apple.yml:153`, maybe on another ref), when a framework list does;
    else it stays on the zip, which `place` never annotates (listed, job-level)."""
    zips = {a.origin.file for a in artifacts if a.origin_kind == "zip"}
    declared: dict[str, Artifact] = {}
    for artifact in artifacts:
        if artifact.origin_kind == "workflow":
            declared.setdefault(artifact.name, artifact)
    moved = []
    for finding in findings:
        where = declared.get(finding.subject) if finding.code in _ABOUT_THE_NAME else None
        if where is not None and finding.file in zips:
            finding = replace(finding, file=where.origin.file, line=where.origin.line)
        moved.append(finding)
    return tuple(moved)


def build_outputs(artifacts: Sequence[Artifact]) -> frozenset[str]:
    """The zips a build made (or a run's artifact held): never annotated, being no line of
    the repository even when they sit in the workspace."""
    return frozenset(a.origin.file for a in artifacts if a.origin_kind == "zip")


@dataclass(frozen=True, slots=True)
class Placement:
    places: Mapping[Finding, Place] = field(default_factory=dict)
    #: Findings not annotated → where they are, in words (`swiftpm:Package.swift.template:98`).
    elsewhere: Mapping[Finding, str] = field(default_factory=dict)
    #: Template-side findings placed on workflow lines (a pull request into `main`).
    moved: tuple[Finding, ...] = ()
    template_side: bool = False  # whether template-side findings were placed so

    def of(self, finding: Finding) -> Place | None:
        return self.places.get(finding)


def place(findings: Sequence[Finding], sources: Sources, request: CheckRequest,
          base: Sources | None) -> Placement:
    """Where each finding goes; `base`: what was read of a pull request's base (None: none)."""
    root = request.root.resolve()
    template_side = sources.ref_paths if pull_request_into_main(request) else {}
    heads = _workflow_lines(sources, request) if template_side else {}
    orders = _base_orders(base, heads, request.debug_suffix) if template_side and base else {}
    places: dict[Finding, Place] = {}
    elsewhere: dict[Finding, str] = {}
    moved: list[Finding] = []
    outputs = build_outputs(sources.artifacts)
    for finding in findings:
        spot = _relocated(finding, heads, orders, request.debug_suffix) \
            if finding.file in template_side else None
        if spot is not None:
            moved.append(finding)
            places[finding] = spot
        elif finding.file:
            where = shown_place(finding, sources.ref_paths)
            if where is None and finding.file not in outputs and exists_in(root, finding.file):
                places[finding] = (finding.file, finding.line or 1)
            else:
                elsewhere[finding] = where or _place_text(finding)
    return Placement(places, elsewhere, tuple(moved), pull_request_into_main(request))


def shown_place(finding: Finding, ref_paths: Mapping[str, str]) -> str | None:
    """Where a finding not to annotate is, in words; None for one to annotate in the tree.

    A file read from another ref: `release/0.4:.github/workflows/apple.yml:130`. A workspace
    file's warning that belongs to a line that no longer publishes: `Package.swift.template:39
    (release/0.2)`, listed rather than annotated, since that line will not publish again."""
    if finding.file is not None and finding.file in ref_paths:
        return f"{finding.ref or ref_paths[finding.file]}:{_place_text(finding)}"
    if finding.ref and finding.severity is not Severity.ERROR:
        return f"{_place_text(finding)} ({finding.ref})"
    return None


def _place_text(finding: Finding) -> str:
    return f"{finding.file}{f':{finding.line}' if finding.line else ''}"


def pull_request_into_main(request: CheckRequest) -> bool:
    return (request.base_ref is not None and request.template_ref is not None
            and bool(request.frameworks_from))


def _workflow_lines(sources: Sources, request: CheckRequest) -> dict[str, dict[str, int]]:
    """Each workflow's names in the head, with the line each stands on."""
    heads: dict[str, dict[str, int]] = {spec.path: {} for spec in request.frameworks_from}
    for artifact in sources.artifacts:
        where = artifact.origin
        if where.file in heads and where.line is not None:
            heads[where.file].setdefault(artifact.name, where.line)
    return heads


def _base_orders(base: Sources, heads: Mapping[str, object], suffix: str
                 ) -> dict[str, list[str]]:
    """Each workflow's names in the pull request's base branch, in order (as gather read
    them)."""
    orders: dict[str, list[str]] = {path: [] for path in heads}
    for artifact in base.artifacts:
        order = orders.get(artifact.origin.file) if artifact.origin_kind == "workflow" else None
        name = base_name(artifact.name, suffix)
        if order is not None and name not in order:  # a name and its debug twin: one
            order.append(name)
    return orders


def _relocated(finding: Finding, heads: Mapping[str, Mapping[str, int]],
               orders: Mapping[str, Sequence[str]], suffix: str) -> Place | None:
    name = finding.subject
    name = name.removesuffix(suffix) if suffix and name.endswith(suffix) else name
    for path, head in heads.items():
        line = _target(name, orders.get(path, []), head)
        if line is not None:
            return path, line
    return None


def _target(name: str, order: Sequence[str], head: Mapping[str, int]) -> int | None:
    """The head line where `name` stood: its next (else previous) surviving neighbour."""
    if name in order:
        index = order.index(name)
        for other in [*order[index + 1:], *reversed(order[:index])]:
            if other in head:
                return head[other]
    return min(head.values()) if head else None
