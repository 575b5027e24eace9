"""Hashing throughput: swiftpm-guard vs this machine's limit vs what release jobs run today.

Generates N zips of S MB (stored, incompressible-ish payload) once, warms the page cache, then
times, on the same files in one run:
  * `swiftpm-guard check --artifacts DIR` (hash + zip layout, one bounded child per zip, as
    many side by side as there are CPUs),
  * the same check on a folder of one small zip: the fixed cost (start-up, template, report)
    that does not grow with the zips,
  * two `openssl dgst -sha256` processes in parallel (the machine's limit: SHA instructions),
  * `sha256sum` and `shasum -a 256` over all files (what upload steps run today).
Prints best-of-R wall times and CPU seconds (user + system, children included: what a machine
shared with other jobs distorts least), ratios against parallel OpenSSL, and our peak RSS.
OpenSSL and swiftpm-guard alternate, R times each, so both meet the same load; the ratio of each
pair is printed too.

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

from timing import run_exact, run_together, warm  # noqa: E402

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
    (folder / "small").mkdir(exist_ok=True)
    small_zips, small_template = make_release(folder / "small", 1, 1)
    for release in (zips, small_zips):
        artifacts = release[0].parent / "artifacts"
        artifacts.mkdir(exist_ok=True)
        for path in release:
            if not (artifacts / path.name).exists():
                os.link(path, artifacts / path.name)
    warm(zips + small_zips)
    total_mb = sum(p.stat().st_size for p in zips) / (1 << 20)
    guard = shutil.which("swiftpm-guard", path=str(Path(sys.executable).parent)) or "swiftpm-guard"

    def ours(template: Path) -> list[str]:
        return [guard, "check", "--template", str(template), "--version", "1.0.0",
                "--artifacts", str(template.parent / "artifacts"), "-q"]

    half = (len(zips) + 1) // 2
    openssl = [["openssl", "dgst", "-sha256", *map(str, zips[:half])],
               ["openssl", "dgst", "-sha256", *map(str, zips[half:])]]
    # Interleaved, so each meets the same load from whatever else shares the machine.
    rounds = [(run_together(openssl), run_exact(ours(template), ok=(0, 1)),
               run_exact(ours(small_template), ok=(0, 1))) for _ in range(args.repeat)]
    rows = [("openssl dgst -sha256 x2 (parallel)", [r[0] for r in rounds], False),
            ("swiftpm-guard check --artifacts", [r[1] for r in rounds], True),
            ("  the same on one 1 MB zip (fixed cost)", [r[2] for r in rounds], True)]
    for tool in (["sha256sum"], ["shasum", "-a", "256"]):
        if shutil.which(tool[0]):
            runs = 1 if tool[0] == "shasum" else args.repeat
            rows.append((" ".join(tool), [run_exact([*tool, *map(str, zips)])
                                          for _ in range(runs)], False))
    limit = min(t.seconds for t in rows[0][1])
    limit_cpu = min(t.cpu_seconds for t in rows[0][1])
    print(f"{len(zips)} zips x {args.size_mb} MB = {total_mb:.0f} MB, {os.cpu_count()} CPUs, "
          f"best of {args.repeat}, page cache warm, load {os.getloadavg()[0]:.1f} at the end")
    print(f"{'tool':<40} {'wall s':>7} {'MB/s':>6} {'vs openssl x2':>14} {'CPU s':>6} "
          f"{'vs openssl':>11} {'peak RSS':>9}")
    for name, runs, rss in rows:
        seconds = min(t.seconds for t in runs)
        cpu = min(t.cpu_seconds for t in runs)
        rss_text = f"{max(t.max_rss_kib for t in runs) / 1024:.0f} MB" if rss else ""
        speed = "" if name.endswith("(fixed cost)") else f"{total_mb / seconds:.0f}"
        print(f"{name:<40} {seconds:>7.2f} {speed:>6} {seconds / limit:>13.2f}x "
              f"{cpu:>6.2f} {cpu / limit_cpu:>10.2f}x {rss_text:>9}")
    ratios = sorted(r[1].seconds / r[0].seconds for r in rounds)
    print(f"per interleaved pair, ours / openssl x2: min {ratios[0]:.2f}x, "
          f"median {ratios[len(ratios) // 2]:.2f}x")
    if not args.dir:
        shutil.rmtree(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
