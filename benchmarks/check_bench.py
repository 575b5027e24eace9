"""Wall time of `swiftpm-guard check` without hashing on the real-shaped example, against the
interpreter's own start-up measured in the same run, and where the difference goes.

    python benchmarks/check_bench.py [--runs 20]

- floor: `python -c pass` (the least any Python CLI costs) and `python -c 'import argparse'`;
- check: `python -m swiftpm_guard check` on examples/release (20 placeholders, the workflow's
  FRAMEWORKS array, checksums.txt; no zips, so no hashing), median of --runs;
- imports: one `-X importtime` run of that check, split by who needs each module:
  * *check*: what `check` itself runs (pipeline, report, settings, sinks.files,
    sources.workflow, swift_stage, errors, model and what they import),
  * *audit/publish only*: imported only because cli.py imports cli_audit and cli_publish at
    module level (to build their subparsers), never used by `check`,
  * *--verify-urls only*: imported by cli_urls for the URL check, unused without the flag.
  Each module's own (self) time is counted once, in the first group that needs it.

Bytecode: both are measured with the package's .pyc files present (compiled first, as pip
does on install and the image does at build time). When PYTHONDONTWRITEBYTECODE=1 and no
.pyc exist (as in some CI shells), every start also compiles ~40 modules; `--no-compile`
measures that case (an empty PYTHONPYCACHEPREFIX, never written).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "release"
CHECK = ["-m", "swiftpm_guard", "check", "--template", "swiftpm/Package.swift.template",
         "--version", "1.0.0", "--checksums", "checksums.txt",
         "--frameworks-from", "workflow/apple.yml:build-frameworks:FRAMEWORKS", "-q"]
#: What `cli.check.run` (check and render) needs; the other subcommands' modules are extra.
CHECK_NEEDS = ("swiftpm_guard.jobs.check", "swiftpm_guard.report.check",
               "swiftpm_guard.jobs.check_request", "swiftpm_guard.cli.check",
               "swiftpm_guard.sinks.files", "swiftpm_guard.sources.workflow",
               "swiftpm_guard.jobs.swiftpm_proof", "swiftpm_guard.errors",
               "swiftpm_guard.core.model",
               "argparse")
SUBCOMMANDS = ("swiftpm_guard.cli.audit", "swiftpm_guard.cli.publish",
               "swiftpm_guard.cli.preflight")
URLS = ("swiftpm_guard.cli.url_options",)


#: Set by --no-compile: an empty bytecode cache, never written, so every start compiles.
ENV = dict(os.environ)


def wall(argv: list[str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=EXAMPLE, timeout=60,
                       env=ENV)
        times.append(time.perf_counter() - start)
    return times


def closure(modules: tuple[str, ...]) -> set[str]:
    """Every module importing `modules` brings into a fresh interpreter (minus the floor)."""
    probe = ("import sys, json; base = set(sys.modules)\n"
             f"for name in {list(modules)!r}: __import__(name)\n"
             "print(json.dumps(sorted(set(sys.modules) - base)))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True, timeout=60, cwd=EXAMPLE)
    return set(json.loads(done.stdout))


def import_times() -> dict[str, int]:
    """Self time (µs) of every module one check run imports, from `-X importtime`."""
    done = subprocess.run([sys.executable, "-X", "importtime", *CHECK], capture_output=True,
                          text=True, check=True, timeout=60, cwd=EXAMPLE, env=ENV)
    times: dict[str, int] = {}
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line and "self [us]" not in line:
            self_us, _cumulative, name = line.removeprefix("import time:").split("|")
            times[name.strip()] = int(self_us)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--no-compile", action="store_true",
                        help="do not compile the package's bytecode first")
    args = parser.parse_args()
    if args.no_compile:
        ENV.update(PYTHONDONTWRITEBYTECODE="1",
                   PYTHONPYCACHEPREFIX=tempfile.mkdtemp(prefix="no-pyc-"))
    else:
        compileall.compile_dir(ROOT / "src", quiet=1)
    # Interleaved, so the floor and the check meet the same load from other work.
    floor: list[float] = []
    floor_argparse: list[float] = []
    ours: list[float] = []
    for _ in range(args.runs):
        floor += wall([sys.executable, "-c", "pass"], 1)
        floor_argparse += wall([sys.executable, "-c", "import argparse"], 1)
        ours += wall([sys.executable, *CHECK], 1)
    times = import_times()
    needed = closure(CHECK_NEEDS)
    urls = closure(URLS) - needed
    subcommands = closure(SUBCOMMANDS) - needed - urls
    groups = {"check": needed, "--verify-urls only": urls, "audit/publish only": subcommands}
    print(f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}, median of {args.runs}, "
          f"bytecode {'not ' if args.no_compile else ''}precompiled")
    print(f"{'command':<48} {'median':>8} {'min':>8}")
    rows = (("python -c pass (interpreter floor)", floor),
            ("python -c 'import argparse'", floor_argparse),
            ("swiftpm-guard check (20 placeholders, no zips)", ours))
    for name, values in rows:
        print(f"{name:<48} {statistics.median(values):>7.3f}s {min(values):>7.3f}s")
    print(f"check / floor: {statistics.median(ours) / statistics.median(floor):.1f}x (medians),"
          f" {min(ours) / min(floor):.1f}x (minimums)")
    total = sum(times.values())
    print(f"imports during check: {total / 1000:.0f} ms self time over {len(times)} modules")
    for label, members in groups.items():
        spent = {name: us for name, us in times.items() if name in members}
        top = sorted(spent.items(), key=lambda item: -item[1])[:8]
        shown = ", ".join(f"{name} {us / 1000:.1f}" for name, us in top)
        print(f"  {label:<20} {sum(spent.values()) / 1000:>6.1f} ms in {len(spent):>3} modules"
              f" (top, ms: {shown})")
    other = {n: us for n, us in times.items() if not any(n in m for m in groups.values())}
    print(f"  {'other':<20} {sum(other.values()) / 1000:>6.1f} ms in {len(other):>3} modules"
          " (interpreter start-up, lazily imported at run time, e.g. tree_sitter)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
