"""Which refs are release lines, which still publish, and what their findings weigh."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from swiftpm_guard.core.model import Finding, Severity
from swiftpm_guard.core.names import validate_ref_or_glob
from swiftpm_guard.core.release_lines import (
    ACTIVE_DAYS,
    LineFindings,
    Publication,
    active_lines,
    is_release_line,
    line_versions,
    merge,
    plan_lines,
    weigh,
)
from swiftpm_guard.errors import UsageError

BRANCHES = ["main", "release/0.1", "release/0.4", "release/0.7.1", "release/1.4",
            "release/1.4-full-wheel-torch-dependency", "release/1.10", "swiftpm",
            "swiftpm-0.4.0", "gh/someone/topic"]


def test_a_glob_match_is_a_line_only_when_its_last_part_is_a_version():
    plan = plan_lines(["main", "release/*"], BRANCHES)
    assert plan.lines == ("main", "release/0.1", "release/0.4", "release/0.7.1",
                          "release/1.10", "release/1.4")
    assert [b for b, _why in plan.skipped] == ["release/1.4-full-wheel-torch-dependency"]
    assert "name it to check it" in plan.skipped[0][1]
    assert plan.unmatched == ()


def test_a_topic_branch_named_outright_is_checked():
    plan = plan_lines(["release/*", "release/1.4-full-wheel-torch-dependency"], BRANCHES)
    assert "release/1.4-full-wheel-torch-dependency" in plan.lines


def test_character_classes_and_globs_matching_nothing():
    assert validate_ref_or_glob("release/0.[2-9]", "t") == "release/0.[2-9]"
    plan = plan_lines(["release/0.[2-9]*", "hotfix/*"], BRANCHES)
    assert plan.lines == ("release/0.4", "release/0.7.1")
    assert plan.unmatched == ("hotfix/*",)
    for bad in ("release/0.[", "release/[]", "-x*", "a..b*"):
        with pytest.raises(UsageError):
            validate_ref_or_glob(bad, "input frameworks-ref")


TODAY = date(2026, 12, 2)


def test_what_was_published_decides_which_lines_still_publish():
    lines = ("main", "release/0.4", "release/1.4", "release/1.10")
    published = {"release/0.4": Publication("swiftpm-0.4.0", "2024-11-05"),
                 "release/1.4": Publication("swiftpm-1.4.2", "2026-01-10")}
    # release/1.10 names the highest version but has published nothing: its name is no vote.
    assert active_lines(lines, "main", (), published, TODAY) == {"main", "release/1.4"}
    assert active_lines(lines, "main", ("release/1.*",), published, TODAY) == {
        "release/1.4", "release/1.10"}
    assert active_lines(lines, "main") == {"main"}  # nothing published: only the default
    assert is_release_line("v2.0") and not is_release_line("release/next")


def test_a_decoy_line_neither_demotes_the_line_that_published_today_nor_promotes_itself():
    lines = ("main", "release/1.0", "release/99.0")
    published = {"release/1.0": Publication("swiftpm-1.0.3", TODAY.isoformat())}
    assert active_lines(lines, "main", (), published, TODAY) == {"main", "release/1.0"}


def test_an_older_line_that_published_recently_still_publishes():
    lines = ("main", "release/1.0", "release/2.0")
    recent = (TODAY - timedelta(ACTIVE_DAYS)).isoformat()
    stale = (TODAY - timedelta(ACTIVE_DAYS + 1)).isoformat()
    newest = Publication("swiftpm-2.0.0", stale)  # the newest version's line, however old
    assert active_lines(lines, "main", (), {"release/1.0": Publication("swiftpm-1.0.9", recent),
                                            "release/2.0": newest}, TODAY) == set(lines)
    assert active_lines(lines, "main", (), {"release/1.0": Publication("swiftpm-1.0.9", stale),
                                            "release/2.0": newest}, TODAY) == {
        "main", "release/2.0"}
    # A published branch whose day cannot be read counts only by being the newest version.
    assert active_lines(lines, "main", (), {"release/1.0": Publication("swiftpm-1.0.9", None),
                                            "release/2.0": newest}, TODAY) == {
        "main", "release/2.0"}
    assert str(Publication("swiftpm-1.0.9", "2026-11-30")) == "swiftpm-1.0.9 (2026-11-30)"


def test_a_lines_published_versions_newest_first_without_nightlies_or_other_lines():
    published = ["swiftpm-0.4.0", "swiftpm-0.4.1", "swiftpm-0.4.0.20250130", "swiftpm-0.40.0",
                 "swiftpm-0.5.0"]
    assert line_versions("release/0.4", "swiftpm-", published) == [
        "swiftpm-0.4.1", "swiftpm-0.4.0"]
    assert line_versions("main", "swiftpm-", published) == []


def _f(code: str, subject: str, severity: Severity = Severity.ERROR) -> Finding:
    return Finding(code=code, severity=severity, subject=subject, message=f"{subject} {code}")


def test_an_old_lines_errors_weigh_as_warnings_that_say_when_it_last_published():
    line = LineFindings("release/0.4", (_f("unclaimed-artifact", "backend_mps"),
                                        _f("stray-file", "x", Severity.NOTICE)),
                        active=False, last_published="swiftpm-0.4.0 (2024-11-05)")
    weighed = weigh(line)
    assert weighed[0].severity is Severity.WARNING
    assert weighed[0].message.endswith(
        "(release/0.4 no longer publishes: it last published swiftpm-0.4.0 (2024-11-05))")
    assert weighed[1] == line.findings[1]
    assert "it has published nothing" in weigh(LineFindings("release/0.9", line.findings,
                                                            active=False))[0].message


def test_merged_findings_shared_once_the_rest_marked_with_their_line():
    shared = _f("unfilled-placeholder", "kernels_new")
    lines = [LineFindings("main", (shared,), active=True),
             LineFindings("release/0.4", (shared, _f("unclaimed-artifact", "backend_mps")),
                          active=False)]
    merged = merge(lines)
    assert merged[0] == shared  # as grave as on the active line
    assert merged[1].ref == "release/0.4" and merged[1].severity is Severity.WARNING
    assert merged[1].message.startswith("release/0.4: backend_mps unclaimed-artifact")
    old_only = merge([LineFindings("release/0.4", (shared,), active=False),
                      LineFindings("release/0.5", (shared,), active=False)])
    assert [f.severity for f in old_only] == [Severity.WARNING]
