"""Wall time of `swiftpm-guard check` on the bundled 20-placeholder example, without hashing.

Compares against the interpreter's own start-up (`python -c pass`), the floor for any Python
CLI, and prints the modules `check` imports that are heavy elsewhere (PyGithub, requests).

    python benchmarks/check_bench.py [--runs 20]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "release"


def wall(argv: list[str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=EXAMPLE, timeout=60)
        times.append(time.perf_counter() - start)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    check = [sys.executable, "-m", "swiftpm_guard", "check", "--template",
             "swiftpm/Package.swift.template", "--version", "1.0.0", "--checksums",
             "checksums.txt", "--frameworks-from", "workflow/apple.yml:build-frameworks:FRAMEWORKS"]
    floor = wall([sys.executable, "-c", "pass"], runs)
    ours = wall(check, runs)
    probe = ("import sys, runpy; sys.argv=['swiftpm-guard','check','--template',"
             "'swiftpm/Package.swift.template','--version','1.0.0','--checksums','checksums.txt',"
             "'-q']\ntry:\n    runpy.run_module('swiftpm_guard', run_name='__main__')\n"
             "except SystemExit:\n    pass\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] in "
             "('github', 'requests', 'urllib3', 'jinja2', 'docker')))")
    heavy = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                           cwd=EXAMPLE, check=True, timeout=60).stdout.strip().splitlines()[-1]
    print(f"{'command':<44} {'median':>8} {'max':>8}")
    for name, times in (("python -c pass (interpreter floor)", floor),
                        ("swiftpm-guard check (20 placeholders)", ours)):
        print(f"{name:<44} {statistics.median(times):>7.3f}s {max(times):>7.3f}s")
    print(f"heavy modules imported by check: {heavy}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
