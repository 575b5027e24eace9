"""How long the real SwiftPM takes on the fixture manifest: cold (empty cache) and cached.

    .venv/bin/python benchmarks/swiftpm_bench.py [--swift PATH] [--runs N]

Each cold run uses a fresh cache folder, so SwiftPM evaluates the manifest (dump-package and
describe, concurrently); each cached run reads the same result back. Prints wall seconds and the
CPU seconds the child processes used.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.release import write_release
from swiftpm_guard.core.render import render
from swiftpm_guard.infra.swiftpm import SwiftPM, package_files
from swiftpm_guard.sources.artifacts import read_checksums
from swiftpm_guard.sources.template import load_template

WRAPPER = "/var/cache/swiftpm-guard/swift-trixie/bin/swift"


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--swift", default=os.environ.get("SWIFTPM_GUARD_SWIFT") or shutil.which("swift") or WRAPPER
    )
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        release = write_release(root / "release")
        template, _ = load_template(release.template)
        built = {a.name: a for a in read_checksums(release.checksums)}
        package = package_files(render(template, release.version, built))
        cold, cached, cpu = [], [], []
        for run in range(args.runs):
            runner = SwiftPM(args.swift, cache_dir=root / f"cache{run}")
            before = children_cpu()
            started = time.perf_counter()
            result = runner.evaluate(package)
            cold.append(time.perf_counter() - started)
            cpu.append(children_cpu() - before)
            assert not result.cached and result.evaluation.ok
            started = time.perf_counter()
            assert runner.evaluate(package).cached
            cached.append(time.perf_counter() - started)
        products = len(result.evaluation.products)
        targets = len(result.evaluation.binary_targets)
    print(f"swift: {args.swift}")
    print(f"fixture manifest: {products} products, {targets} binary targets")
    print(
        f"cold:   median {statistics.median(cold):.2f} s wall, "
        f"{statistics.median(cpu):.2f} s CPU (children), runs {[round(c, 2) for c in cold]}"
    )
    print(f"cached: median {statistics.median(cached) * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
