"""Which branches a template change is checked against, and what each line's findings weigh.

Release branches share one template branch: `release/1.0` still builds a framework `main`
dropped, checks out the same template, and would republish without the product. So a template
change is checked against the framework lists of several refs (`main release/*`). A glob's
match counts as a release line only when its last part is a version (`release/1.4`,
`release/0.7.1`); anything else it matches (a topic branch such as
`release/1.4-full-wheel-torch-dependency`) is skipped with a word, unless it is named. Lines
that still publish (by default the default branch and the newest release line) carry errors;
older ones only warnings, with when they last published: they will never publish again, so
they must not fail every pull request forever. Pure: names in, decisions out.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from swiftpm_guard.core.model import Finding, Severity

_VERSION = re.compile(r"v?[0-9]+(?:\.[0-9]+){1,3}")


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


def active_lines(lines: Sequence[str], default_branch: str,
                 active: Sequence[str] = ()) -> frozenset[str]:
    """The lines that still publish: those `active` names (refs or globs), else the default
    branch and the newest release line by version."""
    if active:
        return frozenset(r for r in lines if any(fnmatch.fnmatchcase(r, p) for p in active))
    releases = [r for r in lines if is_release_line(r)]
    newest = {max(releases, key=version_key)} if releases else set()
    return frozenset({default_branch, *newest} & set(lines))


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
