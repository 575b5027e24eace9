"""The zip differential tier's longer run: many seeded zips, the guard against SwiftPM's resolve.

    python benchmarks/zip_differential.py [--seeds 1-5] [--cases 200] [--swift PATH]
        [--show-refusals]

Each seed generates `--cases` framework zips (tests/support/zip_cases.py), serves them over
loopback HTTPS with a throwaway CA, and judges each with the guard (the built-zip rules and
`--verify-urls`, with and without `--verify-zips`) and with one `swift package resolve` of a
package holding them all (tests/support/zip_differential.py). Prints, per seed, the outcome
counts, the time, and every violation (the guard said consistent where SwiftPM rejects the
zip); `--show-refusals` also prints the refusals SwiftPM would not need. `--swift` is a swift
that can reach the loopback server (on Linux the toolchain wrapper's `bin/swift-net`).
Exits 1 on any violation.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "src"))

from support.tls import make_test_ca  # noqa: E402
from support.zip_cases import generate  # noqa: E402
from support.zip_differential import describe, run, summary  # noqa: E402
from support.zip_server import serve_zips  # noqa: E402

TOOLCHAIN = "/var/cache/swiftpm-guard/swift-trixie/bin/swift-net"


def _seeds(spec: str) -> list[int]:
    first, _, last = spec.partition("-")
    return list(range(int(first), int(last or first) + 1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-5")
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--swift", default=TOOLCHAIN)
    parser.add_argument("--show-refusals", action="store_true")
    args = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory(prefix="zip-differential-") as scratch:
        ca = make_test_ca(Path(scratch) / "ca")
        os.environ["SSL_CERT_FILE"] = str(ca.ca_pem)  # for --verify-urls' urllib
        for seed in _seeds(args.seeds):
            start = time.perf_counter()
            folder = Path(scratch) / str(seed)
            cases = generate(seed, args.cases, folder / "generated")
            with serve_zips(ca.server_context()) as server:
                outcomes = run(cases, server, args.swift, ca.ca_pem, folder / "run")
            seconds = time.perf_counter() - start
            print(f"seed {seed}: {len(outcomes)} zips in {seconds:.0f} s: {summary(outcomes)}",
                  flush=True)
            for outcome in outcomes:
                if outcome.violation or (args.show_refusals and
                                         outcome.kind == "refused-accepted"):
                    failed = failed or bool(outcome.violation)
                    print(f"  {outcome.violation or 'refused, SwiftPM accepts'}\n"
                          f"  {describe(outcome)}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
