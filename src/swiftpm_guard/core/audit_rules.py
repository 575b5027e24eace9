"""Audit published `swiftpm-*` branches: branch contents in, findings out (pure).

Each branch is judged on its own (placeholders left, checksum text, stubs, the version its
name carries), then all branches together (one checksum published under two names or two
versions means a zip was copied or a checksum pasted: at most one of them can be right).
"""

from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from swiftpm_guard.core.audit_tips import TipCommit, tip_findings
from swiftpm_guard.core.checks import DEFAULT_VERSION_PATTERN, apply_warn, stub_findings
from swiftpm_guard.core.model import (
    SHA256_RE,
    Finding,
    HostedStats,
    Location,
    Placeholder,
    Rendered,
    Severity,
    Stub,
    Template,
)
from swiftpm_guard.core.placeholders import LineIndex, scan
from swiftpm_guard.core.published_manifest import PublishedManifest, read_published

DEFAULT_BRANCH_PREFIX = "swiftpm-"
#: `X.Y.Z.YYYYMMDD`: a nightly; its last part is the (Pacific) build date.
NIGHTLY_RE = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+\.(?P<date>[0-9]{8})")


@dataclass(frozen=True, slots=True)
class ManifestFile:
    """`Package.swift` (or a `Package@swift-X.swift` variant) as a branch holds it."""

    path: str
    text: str | None  # None when it could not be read; `problem` says why
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class PublishedBranch:
    """What one published branch holds, as far as the audit cares."""

    name: str
    commit: str
    manifests: tuple[ManifestFile, ...]
    stubs_dir: str | None = None
    stubs: tuple[Stub, ...] = ()
    #: Names of entries in the stub root that are not folders (`.DS_Store`).
    stray: tuple[str, ...] = ()
    tip: TipCommit | None = None


@dataclass(frozen=True, slots=True)
class AuditOptions:
    branch_prefix: str = DEFAULT_BRANCH_PREFIX
    version_pattern: str = DEFAULT_VERSION_PATTERN
    warn: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class BranchAudit:
    branch: str
    version: str | None  # the version the branch name carries
    findings: tuple[Finding, ...]
    manifest: PublishedManifest | None = None  # Package.swift as read, for URL checks
    tip: TipCommit | None = None  # the branch's tip commit, when it was read

    @property
    def has_errors(self) -> bool:
        return any(f.severity is Severity.ERROR for f in self.findings)


@dataclass(frozen=True, slots=True)
class AuditReport:
    source: str
    pattern: str
    branches: tuple[BranchAudit, ...]
    #: Set when `--verify-urls` fetched the branches' zips.
    hosted: HostedStats | None = None

    @property
    def consistent(self) -> bool:
        return not any(b.has_errors for b in self.branches)


@dataclass(frozen=True, slots=True)
class _Use:
    """One place a checksum is published, for the cross-branch comparison."""

    branch: str
    version: str | None
    name: str
    file: str
    line: int


def version_key(version: str | None, branch: str) -> tuple[tuple[int, ...], str]:
    """Order by numeric version parts (nightlies after their X.Y.Z), then by branch name."""
    parts = tuple(int(p) for p in re.findall(r"[0-9]+", version)) if version else ()
    return parts, branch


def branch_version(branch: str, options: AuditOptions) -> str | None:
    """The version a branch name carries after the prefix, if it has the expected shape."""
    if not branch.startswith(options.branch_prefix):
        return None
    version = branch[len(options.branch_prefix):]
    return version if re.fullmatch(options.version_pattern, version, re.ASCII) else None


def audit(branches: Iterable[PublishedBranch], options: AuditOptions,
          *, source: str = "", pattern: str = "") -> AuditReport:
    """Every finding for every branch, branches ordered by version."""
    results: list[BranchAudit] = []
    uses: dict[str, list[_Use]] = defaultdict(list)
    for branch in branches:
        result, branch_uses = _audit_branch(branch, options)
        results.append(result)
        for value, use in branch_uses:
            uses[value].append(use)
    extra = _duplicate_findings(uses)
    results = [dataclasses.replace(r, findings=r.findings + tuple(extra.get(r.branch, ())))
               for r in results]
    results.sort(key=lambda r: version_key(r.version, r.branch))
    report = AuditReport(source=source, pattern=pattern, branches=tuple(results))
    return with_findings(report, {}, options.warn)


def with_findings(report: AuditReport, extra: Mapping[str, Sequence[Finding]],
                  warn: frozenset[str]) -> AuditReport:
    """Add findings per branch (URL checks come later) and apply `--warn` to all of them."""
    branches = []
    for branch in report.branches:
        findings = [*branch.findings, *extra.get(branch.branch, ())]
        findings = apply_warn(findings, warn)
        branches.append(dataclasses.replace(branch, findings=tuple(findings)))
    return dataclasses.replace(report, branches=tuple(branches))


def _finding(code: str, subject: str, message: str, file: str | None = None,
             line: int | None = None, severity: Severity = Severity.ERROR) -> Finding:
    return Finding(code=code, severity=severity, subject=subject, message=message, file=file,
                   line=line)


def _audit_branch(branch: PublishedBranch,
                  options: AuditOptions) -> tuple[BranchAudit, list[tuple[str, _Use]]]:
    findings: list[Finding] = []
    version = branch_version(branch.name, options)
    if version is None:
        findings.append(_finding(
            "bad-version", branch.name,
            f"branch '{branch.name}' does not carry a version matching "
            f"{options.version_pattern} after '{options.branch_prefix}'",
        ))
    primary: PublishedManifest | None = None
    named: list[Placeholder] = []
    uses: list[tuple[str, _Use]] = []
    for manifest in branch.manifests:
        if manifest.text is None:
            findings.append(_finding("manifest-unreadable", manifest.path,
                                     manifest.problem or "cannot read the manifest",
                                     manifest.path))
            continue
        published = read_published(manifest.text)
        if manifest.path == "Package.swift":
            primary = published
        findings += _placeholder_findings(manifest.path, manifest.text)
        findings += _checksum_findings(published, manifest.path)
        findings += _version_findings(published, manifest, version)
        if not published.sites and not any(t.kind == "checksum" for t in scan(manifest.text)):
            findings.append(_finding(
                "unrecognised-manifest", manifest.path,
                "no binary target checksum recognised in the manifest; stub checks skipped",
                manifest.path, severity=Severity.WARNING,
            ))
        for site in published.sites:
            if site.name is None:
                continue
            named.append(Placeholder(site.name, Location(manifest.path, site.line), site.role))
            if SHA256_RE.fullmatch(site.value):
                uses.append((site.value, _Use(branch.name, published.version or version,
                                              site.name, manifest.path, site.line)))
    if named:
        findings += _branch_stub_findings(branch, named)
    findings += [_finding(
        "stray-file", name,
        f"'{name}' in the stub root is not a stub folder; it ships with this branch",
        f"{branch.stubs_dir}/{name}", severity=Severity.WARNING,
    ) for name in branch.stray]
    findings += tip_findings(branch.tip, branch.name, version,
                             primary.version if primary else None)
    return BranchAudit(branch.name, version, tuple(findings), primary, branch.tip), uses



def _placeholder_findings(path: str, text: str) -> list[Finding]:
    lines = LineIndex(text)
    findings: list[Finding] = []
    for token in scan(text):
        line = lines.line_of(token.start)
        if token.kind == "malformed":
            findings.append(_finding(
                "malformed-placeholder", token.text,
                f"'{token.text}' looks like a placeholder left in the published manifest",
                path, line,
            ))
            continue
        subject = token.name if token.kind == "checksum" else token.text
        findings.append(_finding(
            "placeholder-left", subject,
            f"'{token.text}' is still in the published manifest; SwiftPM downloads every "
            "binary target, so every consumer of this branch fails",
            path, line,
        ))
    return findings


def _checksum_findings(published: PublishedManifest, path: str) -> list[Finding]:
    findings: list[Finding] = []
    for site in published.sites:
        value = site.value
        if SHA256_RE.fullmatch(value) or "__SHA256_" in value or "\\(" in value:
            continue  # fine, a placeholder (reported above) or computed (unknowable)
        name = site.name or "?"
        findings.append(_finding(
            "bad-checksum", name,
            f"checksum of '{name}' is not 64 lowercase hex digits: '{value[:80]}'; SwiftPM "
            "compares the text and fails for every consumer", path, site.line,
        ))
    return findings


def _version_findings(published: PublishedManifest, manifest: ManifestFile,
                      version: str | None) -> list[Finding]:
    declared = published.version
    if declared is None:
        return [_finding(
            "missing-version", manifest.path,
            "the manifest declares no `let version = \"…\"`; cannot compare it with the "
            "branch name", manifest.path, severity=Severity.WARNING,
        )]
    if version is None or declared == version or "__VERSION__" in declared:
        return []
    return [_finding(
        "branch-version", declared,
        f"the manifest says version {declared} but the branch name says {version}; its "
        "binary target URLs point at another release", manifest.path, published.version_line,
    )]


def _branch_stub_findings(branch: PublishedBranch, named: list[Placeholder]) -> list[Finding]:
    """Missing, empty and orphan stubs: the same rules as before publishing (checks.py)."""
    text = next((m.text for m in branch.manifests if m.text is not None), "")
    template = Template(path="Package.swift", text=text, flavour="placeholder",
                        stubs=branch.stubs, stubs_dir=branch.stubs_dir)
    rendered = Rendered(template=template, text=text, placeholders=tuple(named),
                        version_used=True)
    return stub_findings(rendered)


def _duplicate_findings(uses: Mapping[str, list[_Use]]) -> dict[str, list[Finding]]:
    """One checksum published twice: a finding on every branch involved.

    Under two names (`duplicate-checksum`) it is a pasted line: one zip cannot be both
    targets. Under one name in two versions (`reused-checksum`) it is a stale checksum list,
    unless the build is byte-for-byte reproducible; `--verify-urls` tells the two apart.
    """
    found: dict[str, list[Finding]] = defaultdict(list)
    for value, entries in uses.items():
        if len({(u.name, u.version) for u in entries}) < 2:
            continue
        for use in entries:
            others = [u for u in entries if (u.name, u.version) != (use.name, use.version)]
            renamed = [u for u in others if u.name != use.name]
            shown = ", ".join(f"'{u.name}' in {u.branch}" for u in (renamed or others)[:3])
            more = len(renamed or others) - 3
            shown += f" and {more} more" if more > 0 else ""
            if renamed:
                code, why = "duplicate-checksum", "one zip cannot be both targets"
            else:
                code, why = ("reused-checksum", "a stale checksum, unless that build is "
                             "byte-for-byte reproducible")
            found[use.branch].append(_finding(
                code, use.name,
                f"checksum {value[:12]}… of '{use.name}' ({use.version or 'no version'}) is "
                f"also published as {shown}; {why}", use.file, use.line,
            ))
    return found
