"""Issue 35: the audit as a picture, a Mermaid timeline GitHub draws in the job summary.

The block's structure is checked exactly here; Mermaid's own parser (run offline with Node.js,
support/mermaid.py) then reads it back as the renderer would: same title, sections, periods
and events. Without the parser installed those tests skip, saying how to enable them.
"""

from __future__ import annotations

import pytest

from support.mermaid import parse
from swiftpm_guard.core.audit import AuditReport, BranchAudit
from swiftpm_guard.core.model import Finding, Severity
from swiftpm_guard.report import mermaid
from swiftpm_guard.report.audit import PICTURE_MAX_PERIODS, picture, to_markdown


def finding(code: str, subject: str, severity: Severity = Severity.ERROR) -> Finding:
    return Finding(code, severity, subject, f"{code} {subject}", "Package.swift", 3)


def report_of(*entries: tuple[str, list[Finding]]) -> AuditReport:
    return AuditReport("repo", "swiftpm-*", tuple(
        BranchAudit(f"swiftpm-{v}", v, tuple(f)) for v, f in entries))


SAMPLE = report_of(
    ("1.0.0", []),
    ("1.0.1", [finding("placeholder-left", "a"), finding("placeholder-left", "a_debug")]),
    ("1.0.2.20250101", []), ("1.0.2.20250102", []), ("1.0.2.20250103", []),
    ("1.1.0", [finding("edited-after-publish", "swiftpm-1.1.0", Severity.WARNING)]),
)
GREEN, RED, AMBER, DARK = "#b8e6c4", "#ffb4b4", "#ffe08a", "#1f2328"
SAMPLE_BLOCK = (
    "```mermaid\n"
    '%%{init: {"theme": "base", "themeVariables": {'
    f'"cScale0": "{GREEN}", "cScale1": "{RED}", "cScale2": "{GREEN}", "cScale3": "{AMBER}", '
    f'"cScaleLabel0": "{DARK}", "cScaleLabel1": "{DARK}", "cScaleLabel2": "{DARK}", '
    f'"cScaleLabel3": "{DARK}"}}}}}}%%\n'
    """\
timeline
    title swiftpm-* branches by version
    section sound
        release 1.0.0 : sound
    section broken
        release 1.0.1 : 2 placeholders left
    section sound (2)
        3 nightlies, 2025-01-01 \u2026 01-03 : sound
    section warnings only
        release 1.1.0 : 1 tip edited after publishing
```
""")


def _lines(block: str) -> list[str]:
    lines = block.splitlines()
    return lines[lines.index("timeline") + 1:-1]  # between "timeline" and the closing fence


def test_the_block_is_exactly_a_timeline_of_the_groups_by_status():
    assert picture(SAMPLE) == SAMPLE_BLOCK


def test_the_job_summary_carries_the_block_after_the_list():
    markdown = to_markdown(SAMPLE)
    assert markdown.count("```mermaid\n") == 1 and SAMPLE_BLOCK in markdown
    assert markdown.index("- **release 1.0.1") < markdown.index("```mermaid")
    assert markdown.index("```mermaid") < markdown.index("#### Findings")
    brief = to_markdown(SAMPLE, sound_groups=False)
    assert SAMPLE_BLOCK in brief  # the job summary beside a check run shows it too


def test_too_many_groups_merge_sound_runs_and_count_the_rest():
    entries: list[tuple[str, list[Finding]]] = []
    for minor in range(20):  # a release and a nightly: two groups each, all sound
        entries += [(f"1.{minor}.0", []), (f"1.{minor}.0.202501{minor + 10}", [])]
    entries.insert(10, ("1.4.5", [finding("bad-checksum", "a")]))
    block = picture(report_of(*entries))
    assert _lines(block) == [
        "    title swiftpm-* branches by version",
        "    section sound",
        "        10 branches, 1.0.0 \u2026 1.4.0.20250114 : sound",
        "    section broken",
        "        release 1.4.5 : 1 checksum not 64 lowercase hex",
        "    section sound (2)",
        "        30 branches, 1.5.0 \u2026 1.19.0.20250129 : sound",
    ]


def test_sections_never_share_a_name_and_colours_stop_at_twelve():
    """Mermaid gathers periods by section name (a second "sound" would draw the first's
    periods again) and colours sections by position from twelve theme variables."""
    period = (mermaid.Period("p", ("e",)),)
    with pytest.raises(ValueError, match="share a name"):
        mermaid.timeline("t", [mermaid.Section("sound", period), mermaid.Section("sound", period)])
    coloured = [mermaid.Section(f"s{i}", period, "#000000") for i in range(13)]
    assert "%%{init" in mermaid.timeline("t", coloured[:12])
    assert "%%{init" not in mermaid.timeline("t", coloured)  # Mermaid's own cycle then
    assert "%%{init" not in mermaid.timeline("t", [mermaid.Section("s", period)])  # no colour


def test_past_the_cap_the_rest_is_one_period():
    entries = [(f"1.{n}.0", [finding("bad-checksum", "a")] if n % 2 else [])
               for n in range(2 * PICTURE_MAX_PERIODS)]
    lines = _lines(picture(report_of(*entries)))
    periods = [line for line in lines if line.startswith("        ")]
    assert len(periods) == PICTURE_MAX_PERIODS
    assert periods[-1] == f"        and {PICTURE_MAX_PERIODS + 1} more : in the list above"
    assert lines[-2] == "    section more"


@pytest.mark.parametrize(("text", "shown"), [
    ("release 1.0.0", "release 1.0.0"),
    ("a: b", "a - b"),  # a colon would start an event
    ("x #35; y", "x 35 y"),  # an entity
    ("p %% comment", "p comment"),  # a comment
    ("section evil", "- section evil"),  # a keyword at the line's start
    ("Title\nsection x", "- Title section x"),
    ("`**md**` <b>x</b> [l](u) {c}", "**md** b x /b l (u) c"),
    ("::", "-"),
    ("a" * 100, "a" * 79 + "\u2026"),
])
def test_texts_are_cut_down_to_what_the_grammar_reads_as_text(text, shown):
    assert mermaid.safe(text) == shown


# -- Mermaid's own parser reads it back ---------------------------------------------------------


def test_mermaid_reads_the_sample_as_drawn():
    (parsed,) = parse(SAMPLE_BLOCK.removeprefix("```mermaid\n").removesuffix("```\n"))
    assert parsed.ok and parsed.type == "timeline", parsed.error
    assert parsed.title == "swiftpm-* branches by version"
    colours = parsed.config["themeVariables"]
    assert parsed.config["theme"] == "base"
    assert [colours[f"cScale{i}"] for i in range(4)] == [GREEN, RED, GREEN, AMBER]
    assert parsed.sections == ["sound", "broken", "sound (2)", "warnings only"]
    assert parsed.periods == [
        {"section": "sound", "text": "release 1.0.0", "events": ["sound"]},
        {"section": "broken", "text": "release 1.0.1", "events": ["2 placeholders left"]},
        {"section": "sound (2)", "text": "3 nightlies, 2025-01-01 \u2026 01-03",
         "events": ["sound"]},
        {"section": "warnings only", "text": "release 1.1.0",
         "events": ["1 tip edited after publishing"]},
    ]


def test_hostile_names_stay_one_period_with_one_event_each():
    names = ["a: b : c", "x #35; y; z", "p %% q", "section s", "title t", "accTitle: u",
             "{w}", "`v`", "e\u2026f"]
    block = mermaid.timeline("t: x", [mermaid.Section("s", tuple(
        mermaid.Period(name, (name,)) for name in names))])
    broken = "timeline\n    title x\n    : no period\n"
    parsed, control = parse(block.removeprefix("```mermaid\n").removesuffix("```\n"), broken)
    assert parsed.ok, parsed.error
    assert parsed.title == "t - x" and parsed.sections == ["s"]
    assert [(p["text"], p["events"]) for p in parsed.periods] == [
        (mermaid.safe(name), [mermaid.safe(name)]) for name in names]
    assert not control.ok  # the parser can say no
