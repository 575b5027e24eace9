"""scripts/changelog.py: a version's CHANGELOG section is its release notes, and a changelog
that is not ready for that version is refused with one line saying what to change."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from support.scripts import SCRIPTS, date_release_section, load

changelog = load("changelog")

HEADER = """# Changelog

All notable changes. Versions follow Semantic Versioning.

"""
RELEASED = """## [1.4.0] - 2026-12-01

### Changed
- `publish` says what changes.

### Upgrading
- Rename `verify-absent` to `verify`.

## [1.3.0] - 2026-10-02

### Added
- `audit`.
"""


def notes(text: str, version: str = "1.4.0"):
    return changelog.release_notes(text, version)


def refused(text: str, version: str = "1.4.0") -> str:
    with pytest.raises(changelog.ChangelogError) as error:
        changelog.release_notes(text, version)
    message = str(error.value)
    assert "\n" not in message
    return message


def test_the_section_is_everything_under_the_heading_up_to_the_next():
    got = notes(HEADER + RELEASED)
    assert got.heading == "## [1.4.0] - 2026-12-01" and got.date == "2026-12-01"
    assert got.body == ("### Changed\n- `publish` says what changes.\n\n### Upgrading\n"
                        "- Rename `verify-absent` to `verify`.\n")
    assert got.warnings == ()


def test_an_older_version_is_not_what_gets_released():
    message = refused(HEADER + RELEASED, "1.3.0")
    assert "newest section is [1.4.0]" in message and "not [1.3.0]" in message


def test_the_last_section_stops_before_link_definitions():
    text = HEADER + RELEASED + "\n[1.4.0]: https://example.invalid/compare/v1.3.0...v1.4.0\n"
    assert notes(text, "1.4.0").body.endswith("`verify`.\n")
    only = HEADER + "## [1.3.0] - 2026-10-02\n\n- `audit`.\n\n[1.3.0]: https://example.invalid/x\n"
    assert notes(only, "1.3.0").body == "- `audit`.\n"


def test_headings_inside_fenced_code_are_text():
    text = HEADER + ("## [1.4.0] - 2026-12-01\n\n- A changelog example:\n\n  ```md\n"
                     "## [9.9.9] - 2026-01-01\n  ```\n- After it.\n\n" + RELEASED.split("\n\n", 1)[1])
    body = notes(text).body
    assert "## [9.9.9]" in body and "- After it." in body
    assert "### Changed" not in body.split("- After it.")[0]


def test_an_unreleased_only_changelog_is_refused_with_how_to_cut_it():
    text = HEADER + "## [Unreleased]\n\n### Added\n- Everything so far.\n"
    message = refused(text, "1.0.0")
    assert message == ("has only an [Unreleased] section: cut it into "
                       "`## [1.0.0] - YYYY-MM-DD` (the release day) before releasing 1.0.0")


def test_no_section_at_all():
    assert "no `## [1.0.0] - YYYY-MM-DD` section" in refused(HEADER, "1.0.0")


def test_an_empty_unreleased_section_above_is_fine_and_one_with_entries_is_a_warning():
    empty = notes(HEADER + "## [Unreleased]\n\n" + RELEASED)
    assert empty.warnings == () and empty.body.startswith("### Changed")
    full = notes(HEADER + "## [Unreleased]\n\n### Fixed\n- Not released yet.\n\n" + RELEASED)
    assert full.body == empty.body
    assert full.warnings == ("[Unreleased] (line 5) has 2 lines of entries above [1.4.0]: "
                             "they are not in 1.4.0's release notes",)


@pytest.mark.parametrize("heading", ["## [1.4.0]", "## [1.4.0] - YYYY-MM-DD",
                                     "## [1.4.0] - YYYY-MM-DD  "])
def test_an_undated_heading_is_refused(heading):
    text = HEADER + RELEASED.replace("## [1.4.0] - 2026-12-01", heading)
    assert refused(text) == ("[1.4.0] (line 5) is not dated: write its heading as "
                             "`## [1.4.0] - YYYY-MM-DD` with the release day")


@pytest.mark.parametrize("heading, says", [
    ("## [1.4.0] - 2026-02-30", "2026-02-30 is not a calendar date"),
    ("## [1.4.0] - 1 December 2026", "expected ` - YYYY-MM-DD`"),
    ("## [1.4.0] 2026-12-01", "expected ` - YYYY-MM-DD`"),
    ("## [1.4.0] - 2026-12-01 (yanked)", "expected ` - YYYY-MM-DD`"),
])
def test_a_heading_that_is_not_the_format_is_refused(heading, says):
    assert says in refused(HEADER + RELEASED.replace("## [1.4.0] - 2026-12-01", heading))


def test_a_version_twice_or_without_entries_is_refused():
    twice = HEADER + RELEASED + "\n## [1.4.0] - 2026-09-01\n\n- Again.\n"
    assert "[1.4.0] has 2 sections (lines 5, 18)" in refused(twice)
    empty = HEADER + "## [1.4.0] - 2026-12-01\n\n\n## [1.3.0] - 2026-10-02\n\n- `audit`.\n"
    assert "[1.4.0] (line 5) has no entries" in refused(empty)


def test_a_version_that_is_not_x_y_z():
    assert "'1.4' is not X.Y.Z" in refused(HEADER + RELEASED, "1.4")


def test_with_image_adds_the_pinned_image_as_the_last_paragraph():
    body = notes(HEADER + RELEASED).body
    reference = "ghcr.io/o/swiftpm-guard:1.4.0@sha256:" + "ab" * 32
    assert changelog.with_image(body, reference) == (
        body + f"\n---\n\nThe action runs the image `docker://{reference}` (its action.yml at "
        "this tag names it by digest).\n")


def _cli(tmp_path: Path, text: str, *args: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "CHANGELOG.md"
    path.write_text(text, encoding="utf-8")
    return subprocess.run([sys.executable, str(SCRIPTS / "changelog.py"), "notes", str(path),
                           *args], capture_output=True, text=True, timeout=60, check=False)


def test_the_command_prints_the_notes_and_warns_on_stderr(tmp_path):
    done = _cli(tmp_path, HEADER + "## [Unreleased]\n- Later.\n\n" + RELEASED, "1.4.0")
    assert done.returncode == 0, done.stderr
    assert done.stdout == notes(HEADER + RELEASED).body
    assert done.stderr.startswith("changelog: warning: ") and done.stderr.count("\n") == 1


def test_the_command_refuses_in_one_line_exit_1_and_usage_is_exit_2(tmp_path):
    done = _cli(tmp_path, HEADER + "## [Unreleased]\n- All.\n", "1.0.0")
    assert done.returncode == 1 and done.stdout == ""
    assert "has only an [Unreleased] section" in done.stderr and done.stderr.count("\n") == 1
    assert _cli(tmp_path, RELEASED).returncode == 2
    assert _cli(tmp_path, RELEASED, "1.4.0", "--image", "").returncode == 2
    with_image = _cli(tmp_path, RELEASED, "1.4.0", "--image", "r/swiftpm-guard:1.4.0@sha256:x")
    assert with_image.returncode == 0 and with_image.stdout.endswith("by digest).\n")


def test_dating_a_copy_fills_only_an_undated_heading(tmp_path):
    (tmp_path / "CHANGELOG.md").write_text(
        HEADER + RELEASED.replace("## [1.4.0] - 2026-12-01", "## [1.4.0] - YYYY-MM-DD"))
    date_release_section(tmp_path, "1.4.0")
    dated = notes((tmp_path / "CHANGELOG.md").read_text())
    assert dated.date != "YYYY-MM-DD" and dated.body == notes(HEADER + RELEASED).body
    before = (tmp_path / "CHANGELOG.md").read_text()
    date_release_section(tmp_path, "1.4.0")
    assert (tmp_path / "CHANGELOG.md").read_text() == before
