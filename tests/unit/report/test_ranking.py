"""Reports rank what matters (issue 33): errors first, a line that no longer publishes is one
row and one log line, a name and its twin on one line are one annotation; the audit says how
to repair what it found."""

from support.markdown import rendered_text
from swiftpm_guard.core.audit import AuditReport, BranchAudit
from swiftpm_guard.core.model import Finding, ReleaseLine, Report, Severity
from swiftpm_guard.report.audit import repair_lines, to_markdown
from swiftpm_guard.report.check import console_lines, problems_markdown, retired
from swiftpm_guard.report.check_run import build_output
from swiftpm_guard.report.gist import Reading


def _f(code: str, subject: str, severity: Severity = Severity.ERROR, ref: str | None = None,
       line: int | None = 7) -> Finding:
    return Finding(code, severity, subject, f"'{subject}' {code}", file="apple.yml", line=line,
                   ref=ref)


OLD = [_f("unclaimed-artifact", n, Severity.WARNING, "release/0.2") for n in ("mps", "mps_debug")]
NEW = [_f("unfilled-placeholder", "gguf"), _f("unfilled-placeholder", "gguf_debug", line=8)]
LINES = (ReleaseLine("main", tuple(NEW), 20, active=True),
         ReleaseLine("release/0.2", tuple(OLD), 22, active=False,
                     last_published="swiftpm-0.2.0 (2024-01-05)"))


def _report(findings) -> Report:
    return Report(version="", templates=(), placeholders=(), built=(), unfilled=(),
                  unclaimed=(), products=None, binary_targets=None, counts_source="static",
                  findings=tuple(findings))


def test_the_log_puts_errors_first_and_an_old_line_in_one_line():
    needs = Finding("needs-swiftpm", Severity.WARNING, "Package.swift.template", "unproven")
    lines = console_lines([*OLD, needs, *NEW], LINES)
    assert [line.split(": ")[1] for line in lines[:3]] == ["error", "error", "warning"]
    assert lines[3] == ("release/0.2: no longer publishes (last published swiftpm-0.2.0 "
                        "(2024-01-05)); publishing from it would be blocked: drop mps (built "
                        "here, no product in the template) (2 warnings, each in the JSON report)")
    assert len(lines) == 4


def test_an_old_lines_findings_get_no_bullet_text_or_annotation():
    findings = [*OLD, *NEW]
    reading = Reading(retired=retired(findings, LINES))
    assert reading.retired == frozenset(OLD)
    shown = rendered_text("\n".join(problems_markdown(findings, reading)))
    assert "mps" not in shown and "gguf" in shown
    assert "2 more on release lines that no longer publish" in shown
    output = build_output(_report(findings), "", conclusion="failure",
                          locate=lambda f: (f.file or "", f.line or 1), reading=reading)
    assert [a.title for a in output.annotations] == ["unfilled-placeholder: gguf",
                                                     "unfilled-placeholder: gguf_debug"]
    assert output.title == "gguf: the template asks for it; nothing built it"


def test_a_name_and_its_twin_on_one_line_are_one_annotation():
    twins = [_f("unclaimed-artifact", "mps"), _f("unclaimed-artifact", "mps_debug")]
    output = build_output(_report(twins), "", conclusion="failure",
                          locate=lambda f: ("apple.yml", 7))
    assert [(a.path, a.line, a.title) for a in output.annotations] == [
        ("apple.yml", 7, "unclaimed-artifact: mps, mps_debug")]


def test_the_audit_says_how_to_repair_and_what_to_tell_consumers():
    broken = BranchAudit("swiftpm-1.2.3", "1.2.3", (Finding(
        "placeholder-left", Severity.ERROR, "__SHA256_x__", "left", file="Package.swift",
        line=9),))
    sound = BranchAudit("swiftpm-1.2.4", "1.2.4", ())
    report = AuditReport("origin", "swiftpm-*", (broken, sound))
    shown = rendered_text(to_markdown(report))
    assert "How to repair" in shown
    assert ("Republish each broken branch (swiftpm-1.2.3) with update (input update: true, CLI "
            "publish --update)") in shown
    assert "Never allow-overwrite" in shown and "Tell consumers" in shown
    assert repair_lines(report)[0].startswith("repair: Republish each broken branch "
                                              "(swiftpm-1.2.3) with update")
    assert repair_lines(AuditReport("origin", "swiftpm-*", (sound,))) == []
