"""Which branches a template change is checked against, and what each line's findings weigh.

Release branches share one template branch: `release/1.0` still builds a framework `main`
dropped, checks out the same template, and would republish without the product. So a template
change is checked against the framework lists of several refs (`main release/*`). A glob's
match counts as a release line only when its last part is a version (`release/1.4`,
`release/0.7.1`); anything else it matches (a topic branch such as
`release/1.4-full-wheel-torch-dependency`) is skipped with a word, unless it is named. Lines
that still publish carry errors; older ones only warnings, with when they last published: they
will never publish again, so they must not fail every pull request forever. Which lines still
publish is read from what was published (`active-refs` when given), never from branch names:
anyone who can push a branch could otherwise demote the line that published today with an
empty `release/99.0`. Pure: names and publications in, decisions out.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta

from swiftpm_guard.core.model import Finding, Severity

_VERSION = re.compile(r"v?[0-9]+(?:\.[0-9]+){1,3}")
#: A release line that published within this many days still publishes (patch releases of
#: an older line beside the newest one).
ACTIVE_DAYS = 180


def is_glob(pattern: str) -> bool:
    return any(c in pattern for c in "*?[")


def is_release_line(branch: str) -> bool:
    """`release/1.4`, `release/0.7.1`, `v2.0`: a branch whose last part is a version."""
    return _VERSION.fullmatch(branch.rsplit("/", 1)[-1]) is not None


def version_key(branch: str) -> tuple[int, ...]:
    """The line's version as numbers, for ordering (0 for a branch that is no release line)."""
    last = branch.rsplit("/", 1)[-1].removeprefix("v")
    return tuple(int(p) for p in last.split(".")) if is_release_line(branch) else (0,)


@dataclass(frozen=True, slots=True)
class LinePlan:
    lines: tuple[str, ...]  # the refs to check, in the order the patterns name them
    skipped: tuple[tuple[str, str], ...] = ()  # (branch, why) a glob matched but is no line
    unmatched: tuple[str, ...] = ()  # patterns that match no branch at all


def plan_lines(patterns: Sequence[str], listed: Iterable[str]) -> LinePlan:
    """The refs `patterns` name among the remote's branches `listed`."""
    branches = sorted(set(listed))
    lines: list[str] = []
    skipped: list[tuple[str, str]] = []
    unmatched: list[str] = []
    for pattern in patterns:
        if not is_glob(pattern):
            lines += [pattern] if pattern not in lines else []
            continue
        matched = [b for b in branches if fnmatch.fnmatchcase(b, pattern)]
        if not matched:
            unmatched.append(pattern)
        for branch in matched:
            if is_release_line(branch):
                lines += [branch] if branch not in lines else []
            elif branch not in lines and all(b != branch for b, _ in skipped):
                skipped.append((branch, f"matched by {pattern!r} but its name is no version, "
                                        "so no release line: name it to check it"))
    return LinePlan(tuple(lines), tuple(skipped), tuple(unmatched))


@dataclass(frozen=True, slots=True)
class Publication:
    """A release line's newest published branch (`swiftpm-1.0.3`) and its commit's day."""

    branch: str
    day: str | None = None  # YYYY-MM-DD, when known

    def __str__(self) -> str:
        return f"{self.branch} ({self.day})" if self.day else self.branch


def active_lines(lines: Sequence[str], default_branch: str, active: Sequence[str] = (),
                 published: Mapping[str, Publication] | None = None,
                 today: date | None = None) -> frozenset[str]:
    """The lines that still publish: those `active` names (refs or globs); else the default
    branch, the release line of the newest published version, and every release line that
    published within ACTIVE_DAYS of `today`. A line that has published nothing never
    publishes by its name alone, whatever version it names."""
    if active:
        return frozenset(r for r in lines if any(fnmatch.fnmatchcase(r, p) for p in active))
    found = {r: p for r, p in (published or {}).items() if r in lines and is_release_line(r)}
    chosen = {default_branch} & set(lines)
    if found:
        chosen.add(max(found, key=version_key))
    if today is not None:
        chosen.update(r for r, p in found.items() if _recent(p.day, today))
    return frozenset(chosen)


def _recent(day: str | None, today: date) -> bool:
    try:
        return day is not None and date.fromisoformat(day) >= today - timedelta(ACTIVE_DAYS)
    except ValueError:
        return False


def line_versions(line: str, prefix: str, published: Iterable[str]) -> list[str]:
    """The published branches of a release line (`release/0.4` → `swiftpm-0.4.*`), newest
    first: the line's own version and what comes after it, nightlies left out."""
    if not is_release_line(line):
        return []
    version = line.rsplit("/", 1)[-1].removeprefix("v")
    stem = f"{prefix}{version}"
    own = [b for b in published
           if (b == stem or b.startswith(stem + ".")) and b[len(prefix):].count(".") <= 2]
    return sorted(own, key=lambda b: tuple(int(p) for p in b[len(prefix):].split(".")
                                           if p.isdigit()), reverse=True)


@dataclass(frozen=True, slots=True)
class LineFindings:
    ref: str
    findings: tuple[Finding, ...]
    active: bool
    last_published: str | None = None  # "swiftpm-0.4.0 (2024-11-05)", for old lines


def weigh(line: LineFindings) -> tuple[Finding, ...]:
    """An old line's errors become warnings that say when it last published (same order)."""
    if line.active:
        return line.findings
    when = (f"it last published {line.last_published}" if line.last_published
            else "it has published nothing")
    return tuple(replace(f, severity=Severity.WARNING, message=f"{f.message} ({line.ref} no "
                                                            f"longer publishes: {when})")
                 if f.severity is Severity.ERROR else f for f in line.findings)


def merge(lines: Sequence[LineFindings]) -> tuple[Finding, ...]:
    """One list for all lines: a finding every line has (the template's own) once, as grave as
    on an active line; the rest once per line, marked with it."""
    shared = set.intersection(*({_key(f) for f in line.findings} for line in lines)) \
        if lines else set()
    merged: list[Finding] = []
    seen: set[tuple[object, ...]] = set()
    for line in lines:
        for original, weighed in zip(line.findings, weigh(line), strict=True):
            key = _key(original)
            if key not in shared:
                merged.append(replace(weighed, ref=line.ref,
                                      message=f"{line.ref}: {weighed.message}"))
            elif key not in seen:
                seen.add(key)
                merged.append(_gravest(key, lines))
    return tuple(merged)


def _key(finding: Finding) -> tuple[object, ...]:
    return (finding.code, finding.severity, finding.subject, finding.message, finding.file,
            finding.line)


def _gravest(key: tuple[object, ...], lines: Sequence[LineFindings]) -> Finding:
    """A shared finding as an active line has it, else as a warning."""
    found = [f for line in lines for f in line.findings if _key(f) == key]
    if any(line.active for line in lines) or found[0].severity is not Severity.ERROR:
        return found[0]
    return replace(found[0], severity=Severity.WARNING)
