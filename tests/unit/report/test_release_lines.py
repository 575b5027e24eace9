from support.markdown import table_rows
from swiftpm_guard.core.model import Finding, ReleaseLine, Severity
from swiftpm_guard.report.check import line_sentences, matrix_markdown


def _f(code: str, subject: str, severity: Severity = Severity.ERROR) -> Finding:
    return Finding(code=code, severity=severity, subject=subject, message=f"{code} {subject}")


def test_the_matrix_says_per_line_whether_it_publishes_and_what_publishing_would_do():
    lines = [
        ReleaseLine("main", (), 18),
        ReleaseLine("release/1.0", (_f("unclaimed-artifact", "backend_mps"),
                                   _f("unclaimed-artifact", "backend_mps_debug"),
                                   _f("unfilled-placeholder", "kernels_new")), 20),
        ReleaseLine("release/0.4", (_f("unclaimed-artifact", "threadpool", Severity.WARNING),),
                    14, active=False, last_published="swiftpm-0.4.0 (2024-11-05)"),
        ReleaseLine("release/0.1", skipped="workflow not found; not checked"),
    ]
    assert line_sentences(lines[1], "_debug") == [
        "drop backend_mps (built here, no product in the template)",
        "miss kernels_new (the template asks, not built here)",
    ]
    text = matrix_markdown(lines, "_debug")
    rows = table_rows(text)  # as GitHub renders it
    assert rows[0] == ["ref", "still publishes", "names built", "publishing from it would",
                       "last published"]
    assert ["main", "✓", "18", "publish: the template fits", ""] in rows
    assert ["release/1.0", "✓", "20", "be blocked: drop backend_mps (built here, no product "
            "in the template); miss kernels_new (the template asks, not built here)", ""] in rows
    # An old line's warnings still say what publishing from it would do.
    assert ["release/0.4", "✗", "14", "be blocked: drop threadpool (built here, no product in "
            "the template)", "swiftpm-0.4.0 (2024-11-05)"] in rows
    assert "- `release/0.1`: workflow not found; not checked" in text


def test_other_errors_are_named_by_code_and_pipes_are_escaped():
    text = matrix_markdown([ReleaseLine("a|b", (_f("bad-checksum", "x"),
                                               _f("missing-stub", "y", Severity.WARNING)), 2)],
                           "_debug")
    assert "| `a\\|b` | ✓ | 2 | be blocked: bad-checksum |  |" in text
