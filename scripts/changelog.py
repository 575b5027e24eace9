"""The release notes of one version: its section of CHANGELOG.md.

    python3 scripts/changelog.py notes CHANGELOG.md X.Y.Z [--image REFERENCE]

prints the body of the `## [X.Y.Z] - YYYY-MM-DD` section (everything up to the next `## `
heading, without the heading itself, blank lines trimmed), which the release workflow passes
to `gh release create --notes-file`; with --image, followed by a last paragraph naming the
image that `uses: …@vX.Y.Z` runs (`docker://…:X.Y.Z@sha256:…`), what a user pins beside the
tag. It exits 1 with one line naming what to change when the changelog is not ready to
release X.Y.Z:

- there is no versioned section at all (only `## [Unreleased]`): cut one first;
- the newest versioned section is not X.Y.Z (the code says one version, the notes another);
- the X.Y.Z heading is not dated: `## [X.Y.Z]` alone, or the placeholder `YYYY-MM-DD` left in
  it when the section was cut; the date goes in on release day;
- the date is not a calendar date (`2026-02-30`), or anything else follows the version;
- X.Y.Z has two sections, or its section has no entries.

An `## [Unreleased]` section above X.Y.Z is allowed (Keep a Changelog keeps one on top) but,
when it holds entries, those are not part of X.Y.Z's notes: that is said on stderr as a
`warning:` line and the exit status stays 0. Usage errors exit 2. Standard library only: the
release workflow runs this with the runner's python3, before anything is installed.
"""

from __future__ import annotations

import datetime
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

VERSION_RE = re.compile(r"\d+\.\d+\.\d+")
#: `## [label]` and whatever follows it on the line.
HEADING_RE = re.compile(r"^## \[(?P<label>[^\]\n]*)\](?P<rest>.*)$")
DATE_RE = re.compile(r" - (?P<date>\d{4}-\d{2}-\d{2})")
PLACEHOLDER = "YYYY-MM-DD"
FENCE_RE = re.compile(r"^ {0,3}(```|~~~)")
#: A Markdown link reference definition (`[1.0.0]: https://…`), kept out of the last section.
LINK_DEFINITION_RE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*\S")


class ChangelogError(ValueError):
    """The changelog cannot give this version's notes; the message says what to change."""


@dataclass(frozen=True)
class Section:
    label: str  # "Unreleased" or "X.Y.Z"
    rest: str  # what follows `]` on the heading line
    line: int  # 1-based line number of the heading
    body: list[str] = field(default_factory=list)

    def entries(self) -> list[str]:
        return [line for line in self.body if line.strip()]


@dataclass(frozen=True)
class Notes:
    version: str
    date: str
    heading: str
    body: str  # ends with one newline
    warnings: tuple[str, ...]


def sections(text: str) -> list[Section]:
    """Every `## [label]` section in order; headings inside fenced code blocks do not count."""
    found: list[Section] = []
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        fenced = FENCE_RE.match(line)
        if fenced:
            marker = fenced.group(1)
            fence = None if fence == marker else (fence or marker)
        heading = None if fence else HEADING_RE.match(line)
        if heading is not None:
            found.append(Section(heading.group("label").strip(), heading.group("rest"), number))
        elif line.startswith("## ") and not fence:
            found.append(Section("", line, number))  # another level-2 heading ends a section
        elif found:
            found[-1].body.append(line)
    return found


def _trimmed(lines: list[str]) -> list[str]:
    end = len(lines)
    while end and (not lines[end - 1].strip() or LINK_DEFINITION_RE.match(lines[end - 1])):
        end -= 1
    start = 0
    while start < end and not lines[start].strip():
        start += 1
    return lines[start:end]


def release_notes(text: str, version: str) -> Notes:
    """The notes of `version`, or ChangelogError saying why the changelog is not ready."""
    if VERSION_RE.fullmatch(version) is None:
        raise ChangelogError(f"'{version}' is not X.Y.Z")
    found = [s for s in sections(text) if s.label]
    versioned = [s for s in found if s.label.lower() != "unreleased"]
    if not versioned:
        if found:
            raise ChangelogError(
                "has only an [Unreleased] section: cut it into "
                f"`## [{version}] - YYYY-MM-DD` (the release day) before releasing {version}")
        raise ChangelogError(f"has no `## [{version}] - YYYY-MM-DD` section")
    newest = versioned[0]
    if newest.label != version:
        raise ChangelogError(
            f"the newest section is [{newest.label}] (line {newest.line}), not [{version}]: "
            f"add `## [{version}] - YYYY-MM-DD` above it")
    twice = [s.line for s in versioned if s.label == version]
    if len(twice) > 1:
        raise ChangelogError(f"[{version}] has {len(twice)} sections (lines "
                             f"{', '.join(map(str, twice))})")
    rest = newest.rest.rstrip()
    if rest in ("", f" - {PLACEHOLDER}"):
        raise ChangelogError(
            f"[{version}] (line {newest.line}) is not dated: write its heading as "
            f"`## [{version}] - YYYY-MM-DD` with the release day")
    dated = DATE_RE.fullmatch(rest)
    if dated is None:
        raise ChangelogError(
            f"line {newest.line}: after `## [{version}]` expected ` - YYYY-MM-DD`, "
            f"found {rest!r}")
    try:
        datetime.date.fromisoformat(dated.group("date"))
    except ValueError:
        raise ChangelogError(
            f"line {newest.line}: {dated.group('date')} is not a calendar date") from None
    body = _trimmed(newest.body)
    if not body:
        raise ChangelogError(f"[{version}] (line {newest.line}) has no entries")
    warnings = []
    for section in found[: found.index(newest)]:
        if section.entries():
            warnings.append(
                f"[{section.label}] (line {section.line}) has {len(section.entries())} lines "
                f"of entries above [{version}]: they are not in {version}'s release notes")
    return Notes(version, dated.group("date"), f"## [{version}]{rest}",
                 "\n".join(body) + "\n", tuple(warnings))


def with_image(body: str, reference: str) -> str:
    """The notes with the image the release runs as their last paragraph."""
    return (f"{body}\n---\n\nThe action runs the image `docker://{reference}` "
            "(its action.yml at this tag names it by digest).\n")


def main(argv: list[str]) -> int:
    image = None
    if len(argv) == 5 and argv[3] == "--image":
        image = argv[4]
        argv = argv[:3]
    if len(argv) != 3 or argv[0] != "notes" or (image is not None and not image.strip()):
        print("usage: changelog.py notes CHANGELOG.md X.Y.Z [--image REFERENCE]",
              file=sys.stderr)
        return 2
    _command, path, version = argv
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        print(f"changelog: {path}: {error.strerror or error}", file=sys.stderr)
        return 2
    try:
        notes = release_notes(text, version)
    except ChangelogError as error:
        print(f"changelog: {path}: {error}", file=sys.stderr)
        return 1
    for warning in notes.warnings:
        print(f"changelog: warning: {path}: {warning}", file=sys.stderr)
    sys.stdout.write(notes.body if image is None else with_image(notes.body, image))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
