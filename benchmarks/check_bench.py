"""Wall time of `swiftpm-guard check` without hashing on the real-shaped example, against the
interpreter's own start-up measured in the same run, and where the time goes.

    python benchmarks/check_bench.py [--runs 30] [--baseline REV] [--no-compile]

- floor: `python -c pass` (the least any Python CLI costs) and `python -c 'import argparse'`;
- check: the installed `swiftpm-guard check` (what a release job runs) and
  `python -m swiftpm_guard check`, on examples/release (20 placeholders, the workflow's
  FRAMEWORKS array, checksums.txt; no zips, so no hashing);
- `--baseline REV`: the same `python -m` check on the package as it was at REV (its `src/`
  exported to a temporary folder and put first on PYTHONPATH), in the same interleaved rounds;
- imports: one `-X importtime` run of the check, split into ours, third-party and the
  standard library, with the costliest modules.

Every process is timed by a blocking `wait4` (benchmarks/timing.run_exact): this script's
figures before December 2026 came from `subprocess.run(timeout=…)`, whose wait polls with
doubling sleeps, and were rounded up to its wake-ups (0.016 s for a 12 ms floor, 0.164 s for
a ~0.15 s check).

Bytecode: measured with the package's .pyc files present (compiled first, as pip does on
install and the image does at build time). When PYTHONDONTWRITEBYTECODE=1 and no .pyc exist
(as in some CI shells), every start also compiles the package; `--no-compile` measures that
case (an empty PYTHONPYCACHEPREFIX, never written).
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import run_exact, src_at

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "release"
ARGS = ["check", "--template", "swiftpm/Package.swift.template", "--version", "1.0.0",
        "--checksums", "checksums.txt",
        "--frameworks-from", "workflow/apple.yml:build-frameworks:FRAMEWORKS", "-q"]
SCRIPT = Path(sys.executable).with_name("swiftpm-guard")

#: Set by --no-compile: an empty bytecode cache, never written, so every start compiles.
ENV = dict(os.environ)


def import_times() -> dict[str, int]:
    """Self time (µs) of every module one check run imports, from `-X importtime`."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "swiftpm_guard", *ARGS],
                          capture_output=True, text=True, check=True, timeout=60, cwd=EXAMPLE,
                          env=ENV)
    times: dict[str, int] = {}
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line and "self [us]" not in line:
            self_us, _cumulative, name = line.removeprefix("import time:").split("|")
            times[name.strip()] = int(self_us)
    return times


def _row(name: str, seconds: list[float], cpu: list[float], floor: list[float]) -> str:
    ratio = statistics.median(seconds) / statistics.median(floor)
    least = min(seconds) / min(floor)
    return (f"{name:<44} {statistics.median(seconds):>7.3f}s {min(seconds):>7.3f}s "
            f"{statistics.median(cpu):>7.3f}s {ratio:>6.1f}x {least:>6.1f}x")


def _import_groups(times: dict[str, int]) -> list[str]:
    groups: dict[str, dict[str, int]] = {"ours": {}, "third-party": {}, "standard library": {}}
    third_party = ("yaml", "_yaml", "tree_sitter", "jinja2", "markupsafe", "_distutils_hack")
    for name, us in times.items():
        if name.split(".")[0] == "swiftpm_guard":
            groups["ours"][name] = us
        elif name.startswith(third_party):
            groups["third-party"][name] = us
        else:
            groups["standard library"][name] = us
    lines = []
    for label, spent in groups.items():
        top = sorted(spent.items(), key=lambda item: -item[1])[:6]
        shown = ", ".join(f"{name} {us / 1000:.1f}" for name, us in top)
        lines.append(f"  {label:<17} {sum(spent.values()) / 1000:>6.1f} ms in {len(spent):>3} "
                     f"modules (top, ms: {shown})")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--baseline", metavar="REV",
                        help="also time the package as it was at this git revision")
    parser.add_argument("--no-compile", action="store_true",
                        help="do not compile the package's bytecode first")
    args = parser.parse_args()
    if args.no_compile:
        ENV.update(PYTHONDONTWRITEBYTECODE="1",
                   PYTHONPYCACHEPREFIX=tempfile.mkdtemp(prefix="no-pyc-"))
    else:
        compileall.compile_dir(ROOT / "src", quiet=1)
    if not SCRIPT.is_file():
        raise SystemExit(f"check_bench: {SCRIPT} is missing; install the package (make)")
    commands = {
        "python -c pass (interpreter floor)": [sys.executable, "-c", "pass"],
        "python -c 'import argparse'": [sys.executable, "-c", "import argparse"],
        "swiftpm-guard check (20 placeholders, no zips)": [str(SCRIPT), *ARGS],
        "python -m swiftpm_guard check": [sys.executable, "-m", "swiftpm_guard", *ARGS],
    }
    envs = {name: ENV for name in commands}
    with tempfile.TemporaryDirectory(prefix="check-bench.") as scratch:
        if args.baseline:
            name = f"python -m swiftpm_guard check at {args.baseline}"
            commands[name] = [sys.executable, "-m", "swiftpm_guard", *ARGS]
            old_src = src_at(args.baseline, Path(scratch), compiled=True)
            envs[name] = {**ENV, "PYTHONPATH": str(old_src)}
        seconds: dict[str, list[float]] = {name: [] for name in commands}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):  # interleaved: every command meets the same load
            for name, argv in commands.items():
                timed = run_exact(argv, cwd=EXAMPLE, env=envs[name], timeout=60)
                seconds[name].append(timed.seconds)
                cpu[name].append(timed.cpu_seconds)
    floor = seconds["python -c pass (interpreter floor)"]
    print(f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}, {args.runs} interleaved "
          f"rounds, bytecode {'not ' if args.no_compile else ''}precompiled, exact wait4 timing")
    print(f"{'command':<44} {'median':>8} {'min':>8} {'cpu':>8} {'/floor':>7} {'min/min':>7}")
    for name in commands:
        print(_row(name, seconds[name], cpu[name], floor))
    times = import_times()
    print(f"imports during check: {sum(times.values()) / 1000:.0f} ms self time over "
          f"{len(times)} modules (-X importtime, which inflates them)")
    for line in _import_groups(times):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
