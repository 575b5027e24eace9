"""Audit time for many published branches: swiftpm-guard vs reading each branch on its own.

Builds a bare repository of N real-shaped `swiftpm-*` branches (tests/support/published.py,
one git fast-import), a few of them broken, then times, best of R:
  * `swiftpm-guard audit --repo PATH` (read in place: a fixed handful of git processes),
  * `swiftpm-guard audit --repo file://PATH` (adds ls-remote + a shallow fetch into a
    temporary bare repository, as for any remote),
  * a per-branch baseline: `git ls-tree -r` + `git cat-file blob` for each branch, which is
    what a loop over branches costs before any checking is done.
Prints wall seconds, branches per second and peak RSS.

    python benchmarks/audit_bench.py [--branches 600] [--repeat 3] [--dir /tmp/x]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.published import BranchSpec, build_repo, nightly_versions  # noqa: E402
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS  # noqa: E402


def run_timed(argv: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one process, measured by the kernel (wait4)."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{argv} failed with exit code {code}")
    return elapsed, usage.ru_maxrss


def per_branch_baseline(repo: Path) -> tuple[float, int]:
    start = time.perf_counter()
    refs = subprocess.run(["git", "--git-dir", str(repo), "for-each-ref", "--format=%(refname)",
                           "refs/heads/swiftpm-*"], capture_output=True, text=True,
                          check=True).stdout.split()
    for ref in refs:
        subprocess.run(["git", "--git-dir", str(repo), "ls-tree", "-r", ref], check=True,
                       capture_output=True)
        subprocess.run(["git", "--git-dir", str(repo), "cat-file", "blob",
                        f"{ref}:Package.swift"], check=True, capture_output=True)
    return time.perf_counter() - start, 0


def specs(count: int) -> list[BranchSpec]:
    all_keys = [*PRODUCT_KEYS, *BINARY_ONLY_KEYS]
    made = [BranchSpec(v) for v in nightly_versions(count - 3)]
    for index in range(100, min(108, len(made))):  # a week of placeholders left
        made[index] = BranchSpec(made[index].version,
                                 built=[k for k in all_keys if k != "kernels_llm"])
    made += [BranchSpec("0.6.0", stub_dir=".swift"), BranchSpec("0.7.0"),
             BranchSpec("0.7.1", extra_files={".Package.swift/.DS_Store": b"\0"})]
    return made


def best(repeat: int, measure) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    results = [measure() for _ in range(repeat)]
    return min(r[0] for r in results), max(r[1] for r in results)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--branches", type=int, default=600)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", type=Path, help="keep the repository here")
    args = parser.parse_args()
    folder = args.dir or Path(tempfile.mkdtemp(prefix="audit-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    repo = folder / f"published-{args.branches}.git"
    if not repo.exists():
        started = time.perf_counter()
        build_repo(repo, specs(args.branches))
        print(f"built {args.branches} branches with git fast-import in "
              f"{time.perf_counter() - started:.2f} s")
    guard = shutil.which("swiftpm-guard", path=str(Path(sys.executable).parent)) or "swiftpm-guard"
    rows = []
    for label, target in (("audit --repo PATH", str(repo)),
                          ("audit --repo file://PATH (fetch)", f"file://{repo}")):
        seconds, rss = best(args.repeat, lambda t=target: run_timed(
            [guard, "audit", "--repo", t, "-q"]))
        rows.append((f"swiftpm-guard {label}", seconds, rss))
    seconds, _ = best(1, lambda: per_branch_baseline(repo))
    rows.append(("per-branch ls-tree + cat-file (no checks)", seconds, 0))
    print(f"{args.branches} branches, {os.cpu_count()} CPUs, best of {args.repeat}")
    print(f"{'what':<46} {'wall s':>8} {'branches/s':>11} {'peak RSS':>10}")
    for name, seconds, rss in rows:
        rss_text = f"{rss / 1024:.0f} MB" if rss else ""
        print(f"{name:<46} {seconds:>8.2f} {args.branches / seconds:>11.0f} {rss_text:>10}")
    if not args.dir:
        shutil.rmtree(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
