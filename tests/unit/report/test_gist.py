"""Reports that name the problem: folded twins, new before existing, the action's words."""

from __future__ import annotations

from swiftpm_guard.core.model import Finding, Report, Severity
from swiftpm_guard.report.check import problems_markdown
from swiftpm_guard.report.check_run import conclusion_for
from swiftpm_guard.report.gist import Reading, headline, problems, title


def _f(code: str, subject: str, severity: Severity = Severity.ERROR, **more) -> Finding:
    return Finding(code=code, severity=severity, subject=subject,
                   message=f"'{subject}': {code}; more words", **more)


def _report(findings) -> Report:
    return Report(version="", templates=(), placeholders=(), built=(), unfilled=(),
                  unclaimed=(), products=None, binary_targets=None, counts_source=None,
                  findings=tuple(findings))


def test_a_debug_twin_is_one_problem_and_the_product_is_shown():
    twins = [_f("unfilled-placeholder", "k_debug", file="T", line=9),
             _f("unfilled-placeholder", "k", file="T", line=8)]
    [problem] = problems(twins)
    assert problem.finding.subject == "k" and len(problem.members) == 2
    assert headline(problem, "main") == "k: the template asks for it; main does not build it"


def test_the_title_leads_with_an_error_the_change_brings():
    old = _f("unclaimed-artifact", "a")
    new = _f("unfilled-placeholder", "b")
    warning = _f("missing-version", "__VERSION__", Severity.WARNING)
    folded = problems([old, warning, new], existing=[old])
    assert [p.finding for p in folded] == [new, old, warning]
    assert title(_report([old, warning, new]), folded, "main") == \
        "b: the template asks for it; main does not build it; 1 more already there"
    only_old = problems([old], existing=[old])
    assert title(_report([old]), only_old, "main") == \
        "a: main builds it; no template has its product (already there before this change)"
    assert title(_report([warning]), problems([warning]), None) == "consistent; 1 warning"


def test_a_line_finding_is_named_by_its_line():
    finding = _f("unclaimed-artifact", "backend_mps", ref="release/0.4")
    assert headline(problems([finding])[0], "main") == \
        "backend_mps: release/0.4 builds it; no template has its product"


def test_existing_problems_have_their_own_section_and_fix_lines_show():
    new = _f("unfilled-placeholder", "b", file="T", line=3, fix="build b, or stop asking")
    old = _f("unclaimed-artifact", "a", file="W", line=5)
    lines = problems_markdown([new, old], Reading(builder="main", existing=frozenset({old}),
                                                 base="main",
                                                 elsewhere={new: "swiftpm:T:3"}))
    text = "\n".join(lines)
    assert text.index("b: the template asks for it") < text.index("#### Already there")
    assert "`swiftpm:T:3`" in text and "Fix: build b, or stop asking" in text
    assert "#### Already there before this change (`main`)" in text


def test_auto_fails_only_what_the_pull_request_brings():
    old, new = _f("unclaimed-artifact", "a"), _f("unfilled-placeholder", "b")
    assert conclusion_for(_report([old, new]), pull_request=True, pr_conclusion="auto",
                          existing=[old]) == "failure"
    assert conclusion_for(_report([old]), pull_request=True, pr_conclusion="auto",
                          existing=[old]) == "neutral"
    assert conclusion_for(_report([]), pull_request=True, pr_conclusion="auto") == "success"
    assert conclusion_for(_report([old]), pull_request=True, pr_conclusion="failure",
                          existing=[old]) == "failure"
    assert conclusion_for(_report([old]), pull_request=False, pr_conclusion="neutral",
                          existing=[old]) == "failure"
