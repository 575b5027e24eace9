"""Run generated zips (support/zip_cases.py) through the guard and through SwiftPM's resolve.

The guard, twice (the default check, and `--verify-zips`), two ways each: the built-zip rules
(`scan_zip_folder`, what `check --artifacts` runs) and `--verify-urls` (`verify_with_stats` on
the zips served over loopback HTTPS). No error finding is its claim that SwiftPM accepts the
zip. SwiftPM is one `swift package resolve` of a package whose binary targets are all the
cases, served by the same server (each target's checksum the served bytes'), read per target
(core/resolution.py); targets a resolve-wide failure left unreached are resolved again in
halves.

The invariant: wherever `--verify-zips` says consistent, SwiftPM accepts the zip; wherever the
default check says consistent, SwiftPM accepts it or the case's damage is in data only the full
check reads (`ZipCase.needs_full`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from support.zip_cases import ZipCase
from support.zip_server import Route, ZipServer
from swiftpm_guard.core.model import Location, Severity
from swiftpm_guard.core.resolution import ResolveTarget, State, TargetOutcome
from swiftpm_guard.core.urls import HostedZip, UrlSettings
from swiftpm_guard.infra.swiftpm import PackageFiles, Resolver
from swiftpm_guard.sources.artifacts import scan_zip_folder
from swiftpm_guard.sources.hosted import verify_with_stats

VERSION = "1.0.0"


@dataclass(frozen=True)
class Guard:
    """One mode's verdict: the built-zip rules' error codes, --verify-urls' finding code."""

    local: tuple[str, ...]
    hosted: str | None

    @property
    def consistent(self) -> bool:
        return not self.local and self.hosted is None

    @property
    def either_consistent(self) -> bool:
        return not self.local or self.hosted is None

    def said(self) -> str:
        if self.consistent:
            return "consistent"
        return "refuses (" + ", ".join(sorted({*self.local, *([self.hosted] if self.hosted
                                                               else [])})) + ")"


@dataclass(frozen=True)
class ZipOutcome:
    case: ZipCase
    default: Guard
    full: Guard
    swiftpm: TargetOutcome | None

    @property
    def accepted(self) -> bool:
        return self.swiftpm is not None and self.swiftpm.state is State.ACCEPTED

    @property
    def violation(self) -> str | None:
        if self.swiftpm is None or self.swiftpm.state is State.NOT_REACHED:
            return "SwiftPM never judged it"
        if self.accepted:
            return None
        if self.full.either_consistent:
            return f"--verify-zips says consistent; SwiftPM: {self.swiftpm.errors[:1]}"
        if self.default.either_consistent and not self.case.needs_full:
            return f"the default check says consistent; SwiftPM: {self.swiftpm.errors[:1]}"
        return None

    @property
    def kind(self) -> str:
        """consistent-agreed, refused-rejected, refused-accepted (a refusal SwiftPM would not
        need) for `--verify-zips`; `default-missed` where only it saw SwiftPM's rejection."""
        if self.violation:
            return "violation"
        if self.default.either_consistent and not self.accepted:
            return "default-missed"
        if self.full.consistent:
            return "consistent-agreed"
        return "refused-accepted" if self.accepted else "refused-rejected"


def swiftpm_said(outcome: TargetOutcome | None, *, words: bool = True) -> str:
    if outcome is None:
        return "not run"
    if outcome.state is State.ACCEPTED:
        return "accepts"
    said = (outcome.errors or ("",))[0].split(" '", 1)[0][:90]
    return f"rejects ({outcome.kind})" + (f": {said} …" if words else "")


def _local(cases: Sequence[ZipCase], folder: Path, verify: bool) -> dict[str, tuple[str, ...]]:
    _artifacts, findings = scan_zip_folder(folder, display="dist", verify=verify)
    codes: dict[str, set[str]] = {c.ident: set() for c in cases}
    for finding in findings:
        if finding.severity is Severity.ERROR and finding.file:
            ident = finding.file.rsplit("/", 1)[-1].removesuffix(f"-{VERSION}.zip")
            codes[ident].add(finding.code)
    return {k: tuple(sorted(v)) for k, v in codes.items()}


def _hosted(targets: Sequence[ResolveTarget], verify: bool) -> dict[str, str | None]:
    zips = [HostedZip(t.name, t.url, t.checksum, t.location) for t in targets]
    found, _stats = verify_with_stats(zips, UrlSettings(timeout=20, retries=0, jobs=4,
                                                        verify_zips=verify))
    return {t.name: (f.code if f is not None else None) for t, f in zip(targets, found,
                                                                        strict=True)}


def consumer(targets: Sequence[ResolveTarget]) -> str:
    lines = [f'    .binaryTarget(name: "{t.name}", url: "{t.url}", checksum: "{t.checksum}"),'
             for t in targets]
    return ("// swift-tools-version:5.9\nimport PackageDescription\n\n"
            'let package = Package(\n  name: "zips",\n  targets: [\n' + "\n".join(lines)
            + "\n  ]\n)\n")


def resolve(targets: Sequence[ResolveTarget], swift: str, ca_file: Path,
            cache: Path) -> dict[str, TargetOutcome]:
    """Each target's outcome. A resolve-wide failure (one zip can end the whole resolve: an
    Info.plist linked to a folder outside makes SwiftPM search it) leaves targets not
    reached: those are resolved again in halves until each is reached or alone."""
    resolver = Resolver(swift, cache_dir=cache, ca_file=ca_file, timeout=600)
    found: dict[str, TargetOutcome] = {}
    pending = [list(targets)]
    while pending:
        batch = pending.pop()
        run = resolver.resolve("Package.swift", PackageFiles(consumer(batch)), batch)
        unreached = []
        for target, outcome in zip(batch, run.resolution.targets, strict=True):
            if outcome.state is State.NOT_REACHED and len(batch) > 1:
                unreached.append(target)
            else:
                found[target.name] = outcome
        if unreached:
            half = (len(unreached) + 1) // 2
            pending += [unreached[:half], unreached[half:]] if len(unreached) > 1 \
                else [unreached]
    return found


def run(cases: Sequence[ZipCase], server: ZipServer, swift: str, ca_file: Path,
        folder: Path) -> list[ZipOutcome]:
    dist = folder / "dist"
    dist.mkdir(parents=True)
    targets = []
    for case in cases:
        (dist / f"{case.ident}-{VERSION}.zip").write_bytes(case.data)
        server.routes[f"/zips/{case.ident}.zip"] = Route(case.data)
        targets.append(ResolveTarget(case.ident, server.url(f"zips/{case.ident}.zip"),
                                     hashlib.sha256(case.data).hexdigest(), Location("zips")))
    local = {verify: _local(cases, dist, verify) for verify in (False, True)}
    hosted = {verify: _hosted(targets, verify) for verify in (False, True)}
    swiftpm = resolve(targets, swift, ca_file, folder / "resolve-cache")
    return [ZipOutcome(case, Guard(local[False][case.ident], hosted[False][case.ident]),
                       Guard(local[True][case.ident], hosted[True][case.ident]),
                       swiftpm.get(case.ident)) for case in cases]


def summary(outcomes: Sequence[ZipOutcome]) -> str:
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[outcome.kind] = counts.get(outcome.kind, 0) + 1
    return ", ".join(f"{kind}: {n}" for kind, n in sorted(counts.items()))


def describe(outcome: ZipOutcome) -> str:
    return (f"{outcome.case.ident} ({'; '.join(outcome.case.changes)}): default "
            f"{outcome.default.said()}, --verify-zips {outcome.full.said()}; SwiftPM "
            f"{swiftpm_said(outcome.swiftpm)}")
