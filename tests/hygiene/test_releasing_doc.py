"""docs/releasing.md stays true to the tools it describes: its links and anchors resolve, the
CHANGELOG heading it tells maintainers to write is the one the checks accept, and the dry-run
options and workflow jobs it names exist."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from markdown_it import MarkdownIt

from support.scripts import SCRIPTS, load

ROOT = SCRIPTS.parent
DOC = ROOT / "docs" / "releasing.md"
TEXT = DOC.read_text(encoding="utf-8")


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but hyphens dropped."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def _tokens():
    return MarkdownIt("commonmark").enable("table").parse(TEXT)


def test_links_and_anchors_resolve():
    tokens = _tokens()
    anchors = {_slug(tokens[i + 1].content) for i, t in enumerate(tokens)
               if t.type == "heading_open"}
    links = [child.attrs["href"] for t in tokens if t.type == "inline"
             for child in t.children or [] if child.type == "link_open"]
    assert links, "no links found"
    for link in links:
        target, _, anchor = str(link).partition("#")
        if target.startswith(("http://", "https://")):
            continue
        if target:
            assert (DOC.parent / target).resolve().exists(), link
        else:
            assert anchor in anchors, link


def test_the_heading_it_prescribes_is_the_one_the_checks_accept():
    changelog = load("changelog")
    assert "## [X.Y.Z] - YYYY-MM-DD" in TEXT and "## [1.0.0] - 2026-12-01" in TEXT
    notes = changelog.release_notes("## [1.0.0] - 2026-12-01\n\n- A change.\n", "1.0.0")
    assert notes.body == "- A change.\n"


def test_the_dry_run_options_and_the_workflow_jobs_it_names_exist(tmp_path):
    dry_run = load("release_dry_run")
    documented = set(re.findall(r"`(--[a-z-]+)[ =`]", TEXT.split("## The dry run")[1]
                                .split("## What the workflow does")[0]))
    assert {"--owner", "--registry", "--index", "--workdir", "--python", "--platforms"} <= (
        documented)
    for option in documented - {"--dry-run", "--push-only", "--check", "--digest",
                                "--from-tag", "--strict"}:
        value = {"--registry": "127.0.0.1:5000", "--index": "http://127.0.0.1:8080",
                 "--workdir": str(tmp_path / "w"), "--platforms": "linux/amd64"}.get(option, "x")
        dry_run.parse(["1.0.0", option, value])  # accepted
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())
    jobs = set(workflow["jobs"])
    section = TEXT.split("## What the workflow does")[1].split("## Verifying")[0]
    assert set(re.findall(r"^\d\. \*\*`([a-z-]+)`\*\*", section, re.M)) == jobs
    assert Path(ROOT / "Makefile").read_text().count("release-dry-run:") == 1
