"""Wall time and peak RSS of reading a workflow's FRAMEWORKS array as the script grows.

    python benchmarks/workflow_lines_bench.py [--sizes 2000,4000,8000,16000,32000]
                                              [--baseline REV] [--timeout 60]

One `run: |` script per row, its array one name a line (a literal block, whose lines map one to
one: since issue 31 the reader refuses a folded or quoted script over several lines). Each read
is a fresh process running `frameworks_in_workflow` (YAML, tree-sitter-bash in its bounded
child, the rules, the line of every name), timed by wait4, peak RSS over it and the child it
waited for. The last columns divide by the row above: linear growth doubles time when the names
double. With `--baseline REV` the same rows run on that commit's `src/`, stopped after
`--timeout` s (issue 25: 8,000 folded names took 15 s there; a baseline before issue 31 also
reads them).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from timing import run_exact, src_at

ROOT = Path(__file__).resolve().parent.parent
READ = """
import sys
from swiftpm_guard.sources.workflow import frameworks_in_workflow
text = open(sys.argv[1], encoding="utf-8").read()
names = frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")
assert names[-1].origin.line == text.count("\\n", 0, text.rindex(names[-1].name)) + 1
"""
STYLES = {"literal": "|"}


def workflow(style: str, names: int) -> str:
    rows = "\n".join(f"          framework_{i:06d}" for i in range(names))
    head = "jobs:\n  build:\n    steps:\n      - run: "
    if style in (">", "|"):
        return f"{head}{style}\n          FRAMEWORKS=(\n{rows}\n          )\n"
    return f'{head}"FRAMEWORKS=(\n{rows}\n          )"\n'


def measure(src: Path, path: Path, timeout: float) -> tuple[str, float | None, float]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    argv = ["timeout", "--signal=KILL", str(timeout), sys.executable, "-c", READ, str(path)]
    timed = run_exact(argv, ok=(0, 137, -9), env=env, timeout=timeout + 30)
    if timed.seconds >= timeout - 0.5:
        return f"> {timeout:.0f} s (stopped)", None, timed.max_rss_kib / 1024
    return f"{timed.seconds:8.2f} s", timed.seconds, timed.max_rss_kib / 1024


def table(label: str, src: Path, sizes: list[int], work: Path, timeout: float) -> None:
    print(f"\n{label}")
    print(f"  {'style':<14} {'names':>7} {'KiB':>7} {'wall':>20} {'peak RSS':>11} "
          f"{'x time':>7} {'x RSS':>6}")
    for name, style in STYLES.items():
        previous: tuple[float | None, float] | None = None
        for size in sizes:
            path = work / f"{name}-{size}.yml"
            path.write_text(workflow(style, size), encoding="utf-8")
            shown, seconds, rss = measure(src, path, timeout)
            grew = grew_rss = ""
            if previous is not None and previous[0] and seconds:
                grew = f"{seconds / previous[0]:7.2f}"
            if previous is not None:
                grew_rss = f"{rss / previous[1]:6.2f}"
            print(f"  {name:<14} {size:>7,} {path.stat().st_size / 1024:>7.0f} {shown:>20} "
                  f"{rss:>7.1f} MiB {grew:>7} {grew_rss:>6}", flush=True)
            previous = (seconds, rss)
            if seconds is None:
                break  # bigger rows would only be stopped too


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,4000,8000,16000,32000")
    parser.add_argument("--baseline", metavar="REV", help="also run the rows on this commit")
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"machine: {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="workflow-lines-") as scratch:
        work = Path(scratch)
        table("this tree", ROOT / "src", sizes, work, args.timeout)
        if args.baseline:
            table(f"baseline {args.baseline}", src_at(args.baseline, work), sizes, work,
                  args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
