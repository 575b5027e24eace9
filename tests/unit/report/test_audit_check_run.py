"""An audit's check-run output: no annotation (its files are on published branches, not in
the checked commit), every finding listed as `branch:path:line` in the text."""

from __future__ import annotations

from swiftpm_guard.core.audit import AuditReport, BranchAudit
from swiftpm_guard.core.model import Finding, Severity
from swiftpm_guard.report.check_run import audit_output


def _finding(code, subject, severity=Severity.ERROR, file="Package.swift", line=12):
    return Finding(code=code, severity=severity, subject=subject, message=f"{code} {subject}",
                   file=file, line=line)


def test_findings_are_listed_by_branch_errors_first_and_never_annotated():
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
    assert output.annotations == ()
    listed = [line.split(" ", 2)[1] for line in (output.text or "").splitlines()
              if line.startswith("- ")]
    assert listed == ["`swiftpm-1.0.1:Package.swift:40`", "`swiftpm-1.0.1`",
                      "`swiftpm-1.0.0:.Package.swift/.DS_Store`",
                      "`swiftpm-1.0.1:Package.swift:3`"]
    assert output.title.startswith("audit: NOT consistent: 2 branches, 1 with errors")
    assert output.summary == "## audit\n" and output.cut == ()


def test_a_long_listing_is_cut_and_says_so():
    findings = tuple(_finding("placeholder-left", f"n{i}", line=i + 1) for i in range(3000))
    report = AuditReport("o", "swiftpm-*", (BranchAudit("swiftpm-1.0.0", "1.0.0", findings),))
    output = audit_output(report, "text", conclusion="failure")
    assert output.annotations == () and output.cut and output.cut[0].startswith("text:")


# -- issue 23: ExecuTorch's scale, one set of counts, within GitHub's limits --------------------


def _executorch_scale() -> AuditReport:
    """633 branches in ExecuTorch's shape: 8 consecutive broken nightlies, 3 hand-edited
    releases (warnings), each with its tip."""
    from swiftpm_guard.core.audit import TipCommit

    branches = []
    for day in range(630):
        version = f"0.7.0.2025{1 + day // 28:02d}{1 + day % 28:02d}"
        broken = 100 <= day < 108
        findings = (_finding("placeholder-left", "kernels_llm", line=53),) if broken else ()
        tip = TipCommit(f"{day:040x}", "PyTorch Bot <bot@example.org>",
                        "2025-08-19T10:41:07+00:00", version)
        branches.append(BranchAudit(f"swiftpm-{version}", version, findings, tip=tip))
    for version in ("1.0.0", "1.1.0", "1.2.0"):
        edited = _finding("edited-after-publish", f"swiftpm-{version}", Severity.WARNING,
                          None, None)
        branches.append(BranchAudit(f"swiftpm-{version}", version, (edited,)))
    return AuditReport("origin", "swiftpm-*", tuple(branches))


def test_the_counts_are_the_same_in_the_verdict_title_and_markdown():
    from swiftpm_guard.report.audit import counts, to_markdown, verdict

    report = _executorch_scale()
    said = counts(report)
    assert said == "633 branches, 8 with errors, 3 with warnings only"
    markdown = to_markdown(report)
    assert f"\n{said}.\n" in markdown and said in verdict(report)
    assert audit_output(report, markdown, conclusion="failure").title == (
        f"audit: NOT consistent: {said}")


def test_the_audit_check_run_fits_github_with_nothing_cut():
    """The check run's summary: a short timeline and the problems; the 633 tips are in the
    JSON only (they once took 634 rows and got the summary cut)."""
    from swiftpm_guard.report.audit import to_dict, to_markdown

    report = _executorch_scale()
    markdown = to_markdown(report)
    output = audit_output(report, markdown, conclusion="failure")
    assert output.cut == () and output.summary == markdown
    assert len(markdown.encode()) < 16_000 and markdown.count("\n") < 60
    assert "| branch | tip |" not in markdown and "`branches[].tip`" in markdown
    assert "**8 nightlies, 2025-04-17 … 04-24: 1 placeholder left** (`kernels_llm`)" in markdown
    listed = to_dict(report)["branches"]
    assert isinstance(listed, list) and sum(1 for b in listed if b["tip"]) == 630


def test_a_timeline_of_very_many_groups_counts_the_sound_branches():
    from swiftpm_guard.report.audit import TIMELINE_MAX_GROUPS, to_markdown

    branches = []
    for index in range(2 * TIMELINE_MAX_GROUPS):
        version = f"1.{index}.0"
        findings = (_finding("branch-version", version, file=None, line=None),) \
            if index % 2 else ()
        branches.append(BranchAudit(f"swiftpm-{version}", version, findings))
    markdown = to_markdown(AuditReport("o", "swiftpm-*", tuple(branches)))
    assert f"- {TIMELINE_MAX_GROUPS} sound branches (every branch is in the JSON report)" in (
        markdown)
    assert ": sound —" not in markdown
