"""Hashing throughput: swiftpm-guard vs this machine's limit vs what release jobs run today.

Generates N zips of S MB (stored, incompressible-ish payload) once, warms the page cache, then
times, on the same files in one run:
  * `swiftpm-guard check --artifacts DIR` (hash + zip layout, several files in parallel),
  * two `openssl dgst -sha256` processes in parallel (the machine's limit: SHA instructions),
  * `sha256sum` and `shasum -a 256` over all files (what upload steps run today).
Prints best-of-R wall times, ratios against parallel OpenSSL, and our peak RSS. OpenSSL and
swiftpm-guard alternate, R times each, so both meet the same load; the ratio of each pair is
printed too.

    python benchmarks/hash_bench.py [--count 4] [--size-mb 384] [--repeat 3] [--dir /tmp/x]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from timing import best, run_parallel, run_timed, warm  # noqa: E402

from support.release import write_zip  # noqa: E402


def make_release(folder: Path, count: int, size_mb: int) -> tuple[list[Path], Path]:
    names = [f"bench{i}" for i in range(count)]
    zips = []
    for name in names:
        path = folder / f"{name}-1.0.0.zip"
        if not path.exists() or path.stat().st_size < size_mb << 20:
            write_zip(path, name, payload_size=size_mb << 20)
        zips.append(path)
    template = folder / "Package.swift.template"
    body = "".join(f'  "{n}": "__SHA256_{n}__",\n' for n in names)
    template.write_text(f'let version = "__VERSION__"\nlet targets = [\n{body}]\n')
    return zips, template


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=4)
    parser.add_argument("--size-mb", type=int, default=384)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", type=Path, help="reuse generated zips here")
    args = parser.parse_args()
    folder = args.dir or Path(tempfile.mkdtemp(prefix="hash-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    zips, template = make_release(folder, args.count, args.size_mb)
    artifacts = folder / "artifacts"
    artifacts.mkdir(exist_ok=True)
    for path in zips:
        link = artifacts / path.name
        if not link.exists():
            os.link(path, link)
    warm(zips)
    total_mb = sum(p.stat().st_size for p in zips) / (1 << 20)
    guard = shutil.which("swiftpm-guard", path=str(Path(sys.executable).parent)) or "swiftpm-guard"
    ours = [guard, "check", "--template", str(template), "--version", "1.0.0",
            "--artifacts", str(artifacts), "-q"]
    half = (len(zips) + 1) // 2
    openssl = [["openssl", "dgst", "-sha256", *map(str, zips[:half])],
               ["openssl", "dgst", "-sha256", *map(str, zips[half:])]]
    rows: list[tuple[str, float, int | None]] = []
    # Interleaved, so both meet the same load from whatever else shares the machine.
    pairs = [(run_parallel(openssl), run_timed(ours, ok=(0, 1))) for _ in range(args.repeat)]
    rows.append(("openssl dgst -sha256 x2 (parallel)", min(p[0][0] for p in pairs), None))
    rows.append(("swiftpm-guard check --artifacts", min(p[1][0] for p in pairs),
                 max(p[1][1] for p in pairs)))
    ratios = sorted(ours_run[0] / limit_run[0] for limit_run, ours_run in pairs)
    for tool in (["sha256sum"], ["shasum", "-a", "256"]):
        if shutil.which(tool[0]):
            seconds, _ = best(1 if tool[0] == "shasum" else args.repeat,
                              lambda t=tool: run_timed([*t, *map(str, zips)]))
            rows.append((" ".join(tool), seconds, None))
    limit = rows[0][1]
    print(f"{len(zips)} zips x {args.size_mb} MB = {total_mb:.0f} MB, {os.cpu_count()} CPUs, "
          f"best of {args.repeat}, page cache warm")
    print(f"{'tool':<36} {'wall s':>8} {'MB/s':>8} {'vs openssl x2':>14} {'peak RSS':>10}")
    for name, seconds, rss in rows:
        rss_text = f"{rss / 1024:.0f} MB" if rss else ""
        print(f"{name:<36} {seconds:>8.2f} {total_mb / seconds:>8.0f} "
              f"{seconds / limit:>13.2f}x {rss_text:>10}")
    print(f"per interleaved pair, ours / openssl x2: min {ratios[0]:.2f}x, "
          f"median {ratios[len(ratios) // 2]:.2f}x")
    if not args.dir:
        shutil.rmtree(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
