"""What an audit's check run says: conclusion, title, summary and annotations (pure).

The same limits as `report.check_run`: title ≤ 255, summary ≤ 65535 characters, at most
ANNOTATIONS_MAX annotations; whatever is cut is said first in the summary. A finding becomes
an annotation only when it names a file and a line (`Package.swift:12` of a branch); the
branch is named in its title and message, since the path is not in the checked-out commit.
"""

from __future__ import annotations

import dataclasses

from swiftpm_guard.core.audit_rules import AuditReport
from swiftpm_guard.core.check_run import (
    ANNOTATIONS_MAX,
    MESSAGE_MAX_BYTES,
    TITLE_MAX,
    Annotation,
    CheckRunOutput,
)
from swiftpm_guard.core.model import Severity
from swiftpm_guard.report.audit import verdict
from swiftpm_guard.report.check_run import annotation_of, assemble, clip_bytes


def audit_annotations(report: AuditReport) -> list[Annotation]:
    """One per finding with a file and line, errors first, each naming its branch."""
    found: list[tuple[bool, str, Annotation]] = []
    for branch in report.branches:
        for finding in branch.findings:
            if not finding.file or not finding.line:
                continue
            plain = annotation_of(finding, finding.file, finding.line)
            title = f"{branch.branch}: {plain.title}"
            found.append(
                (
                    finding.severity is not Severity.ERROR,
                    branch.branch,
                    dataclasses.replace(
                        plain,
                        title=title if len(title) <= TITLE_MAX else title[: TITLE_MAX - 1] + "…",
                        message=clip_bytes(f"{branch.branch}: {plain.message}", MESSAGE_MAX_BYTES),
                    ),
                )
            )
    found.sort(key=lambda item: (item[0], item[1]))
    return [annotation for _warning, _branch, annotation in found]


def audit_output(report: AuditReport, markdown: str, *, conclusion: str) -> CheckRunOutput:
    annotations = audit_annotations(report)
    cut: list[str] = []
    if len(annotations) > ANNOTATIONS_MAX:
        cut.append(
            f"annotations: {len(annotations) - ANNOTATIONS_MAX} findings past the first "
            f"{ANNOTATIONS_MAX} are only in the summary and the JSON report"
        )
        annotations = annotations[:ANNOTATIONS_MAX]
    return assemble(
        conclusion=conclusion,
        title=verdict(report).removeprefix("swiftpm-guard "),
        markdown=markdown,
        text=None,
        annotations=tuple(annotations),
        cut=cut,
    )
