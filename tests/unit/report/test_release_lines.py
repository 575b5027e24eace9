from support.markdown import table_rows
from swiftpm_guard.core.model import Finding, ReleaseLine, Severity
from swiftpm_guard.report.check import line_sentences, matrix_markdown


def _f(code: str, subject: str, severity: Severity = Severity.ERROR) -> Finding:
    return Finding(code=code, severity=severity, subject=subject, message=f"{code} {subject}")


def test_the_matrix_names_each_line_and_what_publishing_from_it_would_do():
    lines = [
        ReleaseLine("main", (), 18),
        ReleaseLine("release/1.0", (_f("unclaimed-artifact", "backend_mps"),
                                   _f("unclaimed-artifact", "backend_mps_debug"),
                                   _f("unfilled-placeholder", "kernels_new")), 20),
    ]
    assert line_sentences(lines[1], "_debug") == [
        "release/1.0 still builds backend_mps: publishing from it would drop the product",
        "release/1.0 does not build kernels_new: the template asks for it, so publishing from "
        "it would ship a placeholder",
    ]
    text = matrix_markdown(lines, "_debug")
    assert text.startswith("#### Release lines\n\n| ref | names built | result |\n|---|---|---|\n")
    rows = table_rows(text)  # as GitHub renders it
    assert ["main", "18", "consistent"] in rows
    assert any(r[:2] == ["release/1.0", "20"]
               and r[2].startswith("3 error(s): release/1.0 still builds backend_mps") for r in rows)


def test_other_errors_are_named_by_code_and_pipes_are_escaped():
    text = matrix_markdown([ReleaseLine("a|b", (_f("bad-checksum", "x"),
                                               _f("missing-stub", "y", Severity.WARNING)), 2)],
                           "_debug")
    assert "| `a\\|b` | 2 | 1 error(s): bad-checksum |" in text
