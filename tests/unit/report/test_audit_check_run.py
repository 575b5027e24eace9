"""An audit's check-run output: annotations only where a finding has a file and line."""

from __future__ import annotations

from swiftpm_guard.core.audit import AuditReport, BranchAudit
from swiftpm_guard.core.model import ANNOTATIONS_MAX, Finding, Severity
from swiftpm_guard.report.check_run import audit_output


def _finding(code, subject, severity=Severity.ERROR, file="Package.swift", line=12):
    return Finding(code=code, severity=severity, subject=subject, message=f"{code} {subject}",
                   file=file, line=line)


def test_annotations_name_their_branch_errors_first_and_need_a_line():
    report = AuditReport("origin", "swiftpm-*", (
        BranchAudit("swiftpm-1.0.0", "1.0.0", (
            _finding("stray-file", ".DS_Store", Severity.WARNING, ".Package.swift/.DS_Store",
                     None),
        )),
        BranchAudit("swiftpm-1.0.1", "1.0.1", (
            _finding("unrecognised-manifest", "Package.swift", Severity.WARNING, line=3),
            _finding("placeholder-left", "a", line=40),
            _finding("branch-version", "1.0.1", file=None, line=None),
        )),
    ))
    output = audit_output(report, "## audit\n", conclusion="failure")
    assert [(a.path, a.line, a.level, a.title) for a in output.annotations] == [
        ("Package.swift", 40, "failure", "swiftpm-1.0.1: placeholder-left: a"),
        ("Package.swift", 3, "warning", "swiftpm-1.0.1: unrecognised-manifest: Package.swift"),
    ]
    assert all(a.message.startswith("swiftpm-1.0.1: ") for a in output.annotations)
    assert output.title.startswith("audit: NOT consistent: 2 branches, 1 with errors")
    assert output.summary == "## audit\n" and output.cut == ()


def test_past_the_limit_the_summary_says_what_was_not_annotated():
    findings = tuple(_finding("placeholder-left", f"n{i}", line=i + 1)
                     for i in range(ANNOTATIONS_MAX + 5))
    report = AuditReport("o", "swiftpm-*", (BranchAudit("swiftpm-1.0.0", "1.0.0", findings),))
    output = audit_output(report, "text", conclusion="failure")
    assert len(output.annotations) == ANNOTATIONS_MAX
    assert output.summary.startswith("> cut: annotations: 5 findings past the first 1000")
