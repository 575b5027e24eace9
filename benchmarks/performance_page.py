"""Run the benchmarks and write docs/performance.md from what they print (`make bench`).

Figures live only here: each benchmark compares, on the same files in one run, against the
machine's floor and what release jobs use today, and prints its own table. This script runs
them one after the other, records the machine, the commit and the date, and writes the page;
nothing in it is typed by hand.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "performance.md"
#: (title, script and arguments): sized to finish in minutes on two cores.
BENCHMARKS = (
    ("Start-up: the CLI and the action against the interpreter",
     ["budget_bench.py", "--runs", "5"]),
    ("Hashing zips", ["hash_bench.py", "--count", "4", "--size-mb", "384"]),
    ("Checking every entry of a zip (publish's default, `--verify-zips`)",
     ["verify_zips_bench.py", "--mib", "128", "--entries", "1000"]),
    ("Auditing published branches", ["audit_bench.py", "--branches", "200"]),
    ("Growth: time and memory as untrusted inputs grow", ["growth_bench.py", "--steps", "3"]),
    ("Publishing", ["publish_bench.py", "--runs", "5"]),
    ("Fetching and verifying hosted zips", ["url_bench.py", "--count", "4", "--size-mb", "32"]),
)


def machine() -> list[str]:
    model = next((line.split(":", 1)[1].strip() for line in
                  Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor() or "unknown")
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"],
                            capture_output=True, text=True, check=False).stdout.strip()
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    return [f"- Date: {datetime.date.today().isoformat()}; commit `{commit or 'unknown'}`",
            f"- Machine: {os.cpu_count()} CPUs ({model}), load average {load} at the start",
            f"- Python {platform.python_version()} on {platform.system()} {platform.release()}"]


def run(script: list[str], seconds: float) -> tuple[int, str]:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script[0]), *script[1:]],
                          capture_output=True, text=True, timeout=seconds, check=False,
                          cwd=ROOT / "benchmarks")
    return done.returncode, (done.stdout + done.stderr).strip()


def page(results: list[tuple[str, list[str], int, str]]) -> str:
    lines = ["<!-- Written by benchmarks/performance_page.py (`make bench`); rerun it, do not "
             "edit. -->", "", "# Performance", "",
             "What each benchmark printed on this run. Each compares, on the same files in one "
             "run, against the machine's floor or what release jobs use today.", "",
             *machine(), ""]
    for title, script, code, output in results:
        status = "" if code == 0 else f" (exit {code})"
        lines += [f"## {title}", "", f"`python benchmarks/{' '.join(script)}`{status}", "",
                  "```text", output, "```", ""]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=900.0, help="per benchmark, seconds")
    args = parser.parse_args()
    results = []
    for title, script in BENCHMARKS:
        sys.stderr.write(f"bench: {' '.join(script)}\n")
        try:
            code, output = run(script, args.timeout)
        except subprocess.TimeoutExpired:
            code, output = 124, f"did not finish within {args.timeout:.0f} s"
        results.append((title, script, code, output))
    PAGE.write_text(page(results), encoding="utf-8")
    sys.stderr.write(f"wrote {PAGE.relative_to(ROOT)}\n")
    return 0 if all(code == 0 for *_rest, code, _output in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
