"""The SwiftPM step of the check job: evaluate every rendered manifest with the real SwiftPM
when there is one, else apply the static gate (core.static_gate: one `needs-swiftpm` per
manifest), and fold what was learned into the report.

`--swift auto` (the default) uses `swift` on PATH and says in the report when there was none;
`--swift off` never runs it; `--swift PATH` runs that executable (for example the wrapper made
by `scripts/swift-toolchain.sh`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from swiftpm_guard.core.checks import CheckOptions, apply_warn
from swiftpm_guard.core.model import Artifact, Rendered, Report, SwiftStatus
from swiftpm_guard.core.option_names import option
from swiftpm_guard.core.static_gate import needs_swiftpm
from swiftpm_guard.infra.swift_locate import locate_swift, validate_swift_option

__all__ = ["locate_swift", "prove", "validate_swift_option"]


def prove(report: Report, rendered: Sequence[Rendered], built: Mapping[str, Artifact],
          options: CheckOptions, *, swift: str = "auto", cache_dir: Path | None = None) -> Report:
    """The report, with SwiftPM's verdict (or the static gate's) folded in."""
    executable, why = locate_swift(swift)
    if executable is None:
        return _fallback(report, rendered, options, why)
    # Only here: running SwiftPM needs subprocesses, threads and scratch folders, and most
    # checks (Linux runners) have no swift to run.
    from swiftpm_guard.core.swiftpm_evaluation import apply_evaluations
    from swiftpm_guard.infra.swiftpm import SwiftPM, package_files

    runner = SwiftPM(executable, cache_dir=cache_dir)
    evaluated = []
    stub_roots: dict[str, str] = {}
    seconds = 0.0
    cached = True
    for item in rendered:
        files = package_files(item)
        run = runner.evaluate(files)
        evaluated.append((item, run.evaluation))
        if files.stub_root is not None:
            stub_roots[item.template.path] = files.stub_root
        seconds += run.seconds
        cached = cached and run.cached
    rejected = [i.template.path for i, e in evaluated if not e.dumped]
    unloaded = [i.template.path for i, e in evaluated if e.dumped and not e.ok]
    reason = f"evaluated with {executable}"
    if rejected:
        reason += f"; SwiftPM rejected {', '.join(rejected)}, so the counts are static"
    elif unloaded:
        reason += (f"; SwiftPM evaluated {', '.join(unloaded)} but could not load the package "
                   "(see swift-error); the counts and roles are SwiftPM's")
    status = SwiftStatus(used=True, reason=reason, seconds=round(seconds, 3), cached=cached)
    return apply_evaluations(report, evaluated, built, options, status, stub_roots=stub_roots)


def _fallback(report: Report, rendered: Sequence[Rendered], options: CheckOptions,
              why: str) -> Report:
    findings = apply_warn([needs_swiftpm(item, options.accept_static) for item in rendered],
                          options.warn)
    how = (f"static reading accepted ({option('accept-static')}): the manifests are unproven"
           if options.accept_static else "the static reading cannot prove the manifests")
    status = SwiftStatus(used=False, reason=f"{why}; {how}")
    return replace(report, swiftpm=status, findings=report.findings + tuple(findings))
