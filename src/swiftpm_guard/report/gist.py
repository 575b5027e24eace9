"""Each problem in one line a reader can act on at 2 a.m., `_debug` twins folded (pure).

A framework and its debug twin fail together (`kernels_torchao`, `kernels_torchao_debug`):
one problem, two annotated lines. Titles and summaries speak of problems; annotations stay per
finding. A problem the pull request's base branch has too is "already there": shown, but it
does not decide the conclusion.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from swiftpm_guard.core.checks import base_name
from swiftpm_guard.core.model import Finding, Report, Severity
from swiftpm_guard.core.option_names import option


@dataclass(frozen=True, slots=True)
class Problem:
    finding: Finding  # the one shown: the product rather than its debug twin
    members: tuple[Finding, ...]  # every finding folded into it (annotated one by one)
    existing: bool = False  # the base branch has it too

    @property
    def severity(self) -> Severity:
        return self.finding.severity

    @property
    def refs(self) -> tuple[str, ...]:
        """The release lines it is on, when every member names one."""
        named = [m.ref for m in self.members]
        return tuple(sorted({r for r in named if r})) if all(named) else ()


def problems(findings: Iterable[Finding], debug_suffix: str = "_debug",
             existing: Collection[Finding] = ()) -> list[Problem]:
    """Findings folded by (code, severity, base name): a twin and the same problem on several
    release lines are one. Errors the change introduces first, then those already there,
    then warnings and notices."""
    groups: dict[tuple[object, ...], list[Finding]] = {}
    for finding in findings:
        key = (finding.code, finding.severity, base_name(finding.subject, debug_suffix),
               bool(finding.ref))
        groups.setdefault(key, []).append(finding)
    folded = []
    for members in groups.values():
        shown = min(members, key=lambda f: (f.subject != base_name(f.subject, debug_suffix),
                                            f.subject))
        folded.append(Problem(shown, tuple(members), all(m in existing for m in members)))
    rank = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.NOTICE: 2}
    return sorted(folded, key=lambda p: (rank[p.severity], p.existing, p.finding.ref or "",
                                         p.finding.file or "", p.finding.line or 0))


def headline(problem: Problem, builder: str | None, debug_suffix: str = "_debug") -> str:
    """`kernels_torchao: the template asks for it; main does not build it`."""
    finding = problem.finding
    name = base_name(finding.subject, debug_suffix)
    who = _lines(problem.refs) if problem.refs else builder
    several = len(problem.refs) > 1
    said = {
        "unfilled-placeholder": f"{name}: the template asks for it; " + (
            f"{who} {'do' if several else 'does'} not build it" if who else "nothing built it"),
        "unclaimed-artifact": (f"{name}: {who} {'build' if several else 'builds'} it; "
                               if who else f"{name}: built, but ") + "no template has its product",
        "missing-checksum": f"{name}: declared, but {who or 'the build'} did not build it",
        "missing-stub": f"{name}: the product has no stub folder",
        "branch-exists": f"{finding.subject} is already published",
    }.get(finding.code)
    if said is None:
        first = finding.message.split("; ", 1)[0]
        said = first if finding.subject in first else f"{finding.subject}: {first}"
    return said


def _lines(refs: Sequence[str]) -> str:
    """`release/0.4`, `release/0.4 and release/0.5`, `release/0.2, release/0.3 and 4 more`."""
    if len(refs) <= 2:
        return " and ".join(refs)
    return f"{refs[0]}, {refs[1]} and {len(refs) - 2} more"


def title(report: Report, folded: Sequence[Problem], builder: str | None,
          debug_suffix: str = "_debug") -> str:
    """The check run's title: the first problem that decides, and how many more there are."""
    errors = [p for p in folded if p.severity is Severity.ERROR]
    version = f" for {report.version}" if report.version else ""
    if not errors:
        counts = ""
        if report.binary_targets is not None:
            products = "?" if report.products is None else str(report.products)
            counts = f": {products} products, {report.binary_targets} binary targets"
        warnings = sum(p.severity is Severity.WARNING for p in folded)
        more = f"; {warnings} warning{'s' if warnings != 1 else ''}" if warnings else ""
        return f"consistent{version}{counts}{more}"
    if {p.finding.code for p in errors} == {"branch-exists"}:
        return (f"{headline(errors[0], builder)}; the manifest itself is consistent "
                f"(republish with {option('update')})")
    first = errors[0]
    said = headline(first, builder, debug_suffix)
    if first.existing:
        said += " (already there before this change)"
    new = sum(not p.existing for p in errors) - (not first.existing)
    old = sum(p.existing for p in errors) - first.existing
    said += f" and {new} more" if new else ""
    return said + (f"; {old} more already there" if old else "")


@dataclass(frozen=True, slots=True)
class Reading:
    """What the reports need beyond the findings: who built the names (for headlines), the
    findings the base branch has too, and where the unannotated ones are."""

    builder: str | None = None  # None: the sources do not say who built the names
    debug_suffix: str = "_debug"
    existing: frozenset[Finding] = frozenset()
    base: str | None = None  # the pull request's base branch, when it was evaluated
    elsewhere: Mapping[Finding, str] = field(default_factory=dict)
    #: Findings of release lines that no longer publish: each line is one row of the release
    #: lines' table instead (no bullet, no annotation); every one stays in the JSON report.
    retired: frozenset[Finding] = frozenset()

    def shown(self, findings: Iterable[Finding]) -> list[Finding]:
        """The findings a report lists one by one: not those of retired lines."""
        return [f for f in findings if f not in self.retired]

    def where(self, finding: Finding) -> str | None:
        """`swiftpm:Package.swift.template:98`, `apple.yml:120`, or None without a file."""
        if finding in self.elsewhere:
            return self.elsewhere[finding]
        if not finding.file:
            return None
        return finding.file + (f":{finding.line}" if finding.line else "")
