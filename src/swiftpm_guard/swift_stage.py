"""The SwiftPM step of a run: evaluate every rendered manifest with the real SwiftPM when there
is one, else parse it with tree-sitter-swift, and fold what was learned into the report.

`--swift auto` (the default) uses `swift` on PATH and says in the report when there was none;
`--swift off` never runs it; `--swift PATH` runs that executable (for example the wrapper made
by `scripts/swift-toolchain.sh`).
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path

from swiftpm_guard import syntax
from swiftpm_guard.checks import CheckOptions
from swiftpm_guard.model import Artifact, Finding, Rendered, Report, Severity, SwiftStatus
from swiftpm_guard.swift_checks import apply_evaluations
from swiftpm_guard.swiftpm import SwiftPM, locate_swift, package_files


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("SwiftPM")
    group.add_argument(
        "--swift",
        default="auto",
        metavar="auto|off|PATH",
        help="evaluate the manifest with the real SwiftPM: 'auto' uses swift on "
        "PATH if present (default), 'off' never, or this executable",
    )
    group.add_argument(
        "--swift-cache",
        metavar="DIR",
        help="cache of SwiftPM results (default: $XDG_CACHE_HOME/swiftpm-guard "
        "or ~/.cache/swiftpm-guard)",
    )


def prove(
    report: Report,
    rendered: Sequence[Rendered],
    built: Mapping[str, Artifact],
    options: CheckOptions,
    *,
    swift: str = "auto",
    cache_dir: Path | None = None,
) -> Report:
    """The report, with SwiftPM's verdict (or the tree-sitter fallback's) folded in."""
    executable, why = locate_swift(swift)
    if executable is None:
        return _fallback(report, rendered, options, why)
    runner = SwiftPM(executable, cache_dir=cache_dir)
    evaluated = []
    seconds = 0.0
    cached = True
    for item in rendered:
        run = runner.evaluate(package_files(item))
        evaluated.append((item, run.evaluation))
        seconds += run.seconds
        cached = cached and run.cached
    rejected = [i.template.path for i, e in evaluated if not e.ok]
    reason = f"evaluated with {executable}"
    if rejected:
        reason += f"; SwiftPM rejected {', '.join(rejected)}, so the counts are static"
    status = SwiftStatus(used=True, reason=reason, seconds=round(seconds, 3), cached=cached)
    return apply_evaluations(report, evaluated, built, options, status)


def _fallback(
    report: Report, rendered: Sequence[Rendered], options: CheckOptions, why: str
) -> Report:
    if not syntax.available():
        status = SwiftStatus(
            used=False,
            reason=f"{why}; tree-sitter-swift is not installed "
            "either, so the syntax was not checked",
        )
        return dataclasses.replace(report, swiftpm=status)
    findings: list[Finding] = []
    for item in rendered:
        findings += syntax.syntax_findings(item)
    findings = [
        dataclasses.replace(f, severity=Severity.WARNING) if f.code in options.warn else f
        for f in findings
    ]
    status = SwiftStatus(
        used=False, reason=f"{why}; syntax checked with tree-sitter-swift, counts are static"
    )
    return dataclasses.replace(report, swiftpm=status, findings=report.findings + tuple(findings))
