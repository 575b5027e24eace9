"""The differential tier's longer run: many seeded manifests, the static reader against SwiftPM.

    python benchmarks/swift_differential.py [--seeds 1-5] [--cases 300] [--swift PATH]
        [--refused all|N] [--cache DIR] [--jobs 2] [--versions N]

Each seed generates `--cases` manifests (tests/support/swift_cases.py) and runs them through
`check --swift off` (and the core's reading alone) and `swift package dump-package`
(tests/support/differential.py). Prints, per seed, the outcome counts and every violation (the
static reader said consistent where SwiftPM rejects the manifest or evaluates other targets)
with its manifest; `--show-refusals` also prints the refusals SwiftPM would have accepted.
`--cache` keeps SwiftPM's answers by manifest hash, so a rerun after a reader change costs only
the static side. `--versions N` also runs N template branches with version-specific manifests
per seed (tests/support/version_cases.py), each a `dump-package` of its own, and checks which
file SwiftPM read against SwiftPM 6.0.3's rule. Exits 1 on any violation.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "src"))

from support import version_cases  # noqa: E402
from support.differential import describe, run, summary  # noqa: E402
from support.swift_cases import generate  # noqa: E402

TOOLCHAIN = "/var/cache/swiftpm-guard/swift-trixie/bin/swift"


def _seeds(spec: str) -> list[int]:
    first, _, last = spec.partition("-")
    return list(range(int(first), int(last or first) + 1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-5")
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--swift", default=TOOLCHAIN)
    parser.add_argument("--refused", default="all", help="how many refusals to evaluate too")
    parser.add_argument("--cache", type=Path)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--show-refusals", action="store_true")
    parser.add_argument("--versions", type=int, default=0,
                        help="template branches with version-specific manifests per seed")
    args = parser.parse_args()
    limit = None if args.refused == "all" else int(args.refused)
    failed = False
    with tempfile.TemporaryDirectory(prefix="swift-differential-") as scratch:
        for seed in _seeds(args.seeds):
            start = time.perf_counter()
            outcomes = run(generate(seed, args.cases), args.swift, Path(scratch) / str(seed),
                           refused_limit=limit, cache=args.cache, jobs=args.jobs)
            seconds = time.perf_counter() - start
            print(f"seed {seed}: {len(outcomes)} cases in {seconds:.0f} s: {summary(outcomes)}",
                  flush=True)
            for outcome in outcomes:
                wrong = outcome.violation
                if wrong or (args.show_refusals and outcome.kind == "refused-accepted"):
                    failed = failed or bool(wrong)
                    print(f"  {wrong or 'refused, SwiftPM accepts'}\n"
                          f"  {describe(outcome)}", flush=True)
            if args.versions:
                failed = _versions(seed, args, Path(scratch) / f"{seed}-versions") or failed
    return 1 if failed else 0


def _versions(seed: int, args: argparse.Namespace, folder: Path) -> bool:
    """The version-specific cases of one seed; True on a violation or a misread rule."""
    cases = version_cases.generate(seed, args.versions)
    outcomes = version_cases.run(cases, args.swift, folder, jobs=args.jobs)
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[outcome.kind] = counts.get(outcome.kind, 0) + 1
    print(f"seed {seed}, version-specific: {counts}", flush=True)
    bad = False
    for outcome in outcomes:
        misread = outcome.swiftpm.ok and outcome.swiftpm.read != outcome.predicted
        if outcome.violation or misread:
            bad = True
            print(f"  {outcome.violation or 'SwiftPM read another file than predicted'}\n"
                  f"  {version_cases.describe(outcome)}", flush=True)
    return bad


if __name__ == "__main__":
    sys.exit(main())
