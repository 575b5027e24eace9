"""The resolve proof's cost: the real `swift package resolve` of a consumer, cold and cached.

Builds the fixture release in the real shape (18 products, 20 binary targets, zips with real
XCFramework metadata), serves its zips over loopback HTTPS with a throwaway CA, and times
`resolve_rendered` (jobs/resolve.py) with an empty cache (every zip downloaded and checked by
SwiftPM), then again with that cache (no SwiftPM run). Prints wall seconds and the verdict.

    python benchmarks/resolve_bench.py --swift /var/cache/swiftpm-guard/swift-trixie/bin/swift-net
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.hosted_release import rendered_release, serve_release  # noqa: E402
from support.release import write_release  # noqa: E402
from support.tls import make_test_ca  # noqa: E402
from support.zip_server import serve_zips  # noqa: E402
from swiftpm_guard.jobs.resolve import ResolveSettings, resolve_rendered  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--swift", required=True, help="a swift that may use the network")
    parser.add_argument("--repeat", type=int, default=3, help="cold runs (best is printed)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="resolve-bench.") as scratch:
        work = Path(scratch)
        ca = make_test_ca(work / "ca")
        release = write_release(work / "release", real_zips=True)
        with serve_zips(ca.server_context()) as server:
            serve_release(server, release)
            rendered, built = rendered_release(release, server.url("frameworks/"))
            colds = []
            for number in range(args.repeat):
                settings = ResolveSettings(swift=args.swift, cache_dir=work / f"cache{number}",
                                           ca_file=ca.ca_pem)
                cold = resolve_rendered([rendered], built, release.version, settings)
                colds.append(cold.seconds)
            warm = resolve_rendered([rendered], built, release.version, settings)
        targets = len(cold.resolutions[0].targets)
        verdict = "every target accepted" if cold.resolutions[0].ok else "NOT resolved"
        print(f"resolve, {targets} binary targets ({verdict}), load {os.getloadavg()[0]:.1f}:")
        print(f"  cold   best {min(colds):.2f} s of {args.repeat} "
              f"({', '.join(f'{c:.2f}' for c in colds)})")
        print(f"  cached {warm.seconds * 1000:.1f} ms (cached={warm.cached})")


if __name__ == "__main__":
    main()
