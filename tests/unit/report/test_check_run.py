from __future__ import annotations

from dataclasses import replace

import pytest

from swiftpm_guard.core.model import Finding, Report, Severity
from swiftpm_guard.report.check_run import (
    ANNOTATIONS_MAX,
    MESSAGE_MAX_BYTES,
    SUMMARY_MAX,
    TITLE_MAX,
    annotation_of,
    build_output,
    clip,
    conclusion_for,
)


def _finding(
    i: int, severity: Severity = Severity.ERROR, file: str | None = "T.template", message: str = "m"
) -> Finding:
    return Finding(
        code="unfilled-placeholder",
        severity=severity,
        subject=f"n{i}",
        message=message,
        file=file,
        line=i + 1,
    )


def _report(findings=()) -> Report:
    return Report(
        version="1.2.3",
        templates=(),
        placeholders=("a",),
        built=("a",),
        unfilled=(),
        unclaimed=(),
        products=None,
        binary_targets=None,
        counts_source=None,
        findings=tuple(findings),
    )


def _same_place(finding: Finding) -> tuple[str, int]:
    return finding.file or "T.template", finding.line or 1


@pytest.mark.parametrize(
    ("consistent", "pull_request", "pr_conclusion", "expected"),
    [
        (True, True, "neutral", "success"),
        (True, False, "failure", "success"),
        (False, True, "neutral", "neutral"),
        (False, True, "failure", "failure"),
        (False, False, "neutral", "failure"),  # a push or a publish run with errors fails
    ],
)
def test_conclusion(consistent, pull_request, pr_conclusion, expected):
    report = _report(() if consistent else [_finding(0)])
    assert (
        conclusion_for(report, pull_request=pull_request, pr_conclusion=pr_conclusion) == expected
    )


def test_warnings_alone_succeed():
    report = _report([_finding(0, Severity.WARNING)])
    assert conclusion_for(report, pull_request=False, pr_conclusion="neutral") == "success"


def test_annotation_levels_are_the_checks_apis_words():
    assert annotation_of(_finding(0), "a", 1).level == "failure"  # never "error"
    assert annotation_of(_finding(0, Severity.WARNING), "a", 1).level == "warning"


def test_annotation_limits():
    long = Finding(
        code="c",
        severity=Severity.ERROR,
        subject="s" * 400,
        message="é" * MESSAGE_MAX_BYTES,
        file="f",
        line=0,
    )
    made = annotation_of(long, "f", 0)
    assert len(made.title) == TITLE_MAX and made.title.endswith("…")
    assert len(made.message.encode()) <= MESSAGE_MAX_BYTES and made.message.endswith("(cut)")
    assert made.line == 1  # lines start at 1
    assert made.as_api() == {
        "path": "f",
        "start_line": 1,
        "end_line": 1,
        "annotation_level": "failure",
        "title": made.title,
        "message": made.message,
    }


def test_a_finding_placed_elsewhere_says_where_it_came_from():
    made = annotation_of(
        _finding(0, file="frameworks@run-4/x-1.0.zip"), "Package.swift.template", 1
    )
    assert made.path == "Package.swift.template"
    assert made.message.startswith("frameworks@run-4/x-1.0.zip: ")


def test_errors_come_first_and_batches_hold_fifty():
    findings = [_finding(i, Severity.WARNING if i % 2 else Severity.ERROR) for i in range(120)]
    output = build_output(_report(findings), "summary", conclusion="failure", locate=_same_place)
    assert [len(b) for b in output.batches()] == [50, 50, 20]
    levels = [a.level for a in output.annotations]
    assert levels == ["failure"] * 60 + ["warning"] * 60
    assert output.text is None and output.cut == ()


def test_past_the_annotation_cap_the_findings_go_to_the_text():
    findings = [_finding(i) for i in range(ANNOTATIONS_MAX + 5)]
    output = build_output(_report(findings), "summary", conclusion="failure", locate=_same_place)
    assert len(output.annotations) == ANNOTATIONS_MAX
    assert output.text is not None and output.text.count("\n- `") == 5
    assert "5 findings past the first 1000" in output.cut[0]
    assert output.summary.startswith("> cut: annotations: 5 findings past the first 1000")


def test_a_long_summary_is_cut_at_a_line_and_says_so():
    markdown = "".join(f"| line {i} | {'x' * 60} |\n" for i in range(2000))
    output = build_output(
        _report([_finding(0)]), markdown, conclusion="failure", locate=_same_place
    )
    assert len(output.summary) <= SUMMARY_MAX
    assert "… cut:" in output.summary and "lines not shown (summary limit: 65535" in output.summary
    assert output.summary.split("\n\n… cut")[0].endswith("|")  # whole lines only
    assert output.cut and output.cut[0].startswith("summary:")


def test_clip_leaves_short_text_alone():
    assert clip("short", 100, "text") == ("short", None)


def test_title_names_the_first_problem_within_255_characters():
    output = build_output(_report([_finding(0)]), "s", conclusion="neutral", locate=_same_place)
    assert output.title == "n0: the template asks for it; nothing built it"
    many = build_output(_report([_finding(i) for i in range(300)]), "s", conclusion="failure",
                        locate=_same_place)
    assert many.title == "n0: the template asks for it; nothing built it and 299 more"
    long = build_output(_report([replace(_finding(0), subject="n" * 400)]), "s",
                        conclusion="failure", locate=_same_place)
    assert len(long.title) == TITLE_MAX and long.title.endswith("…")


def test_an_unknown_conclusion_is_a_bug():
    with pytest.raises(ValueError):
        build_output(_report(), "s", conclusion="error", locate=_same_place)
