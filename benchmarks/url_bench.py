"""URL verification throughput: swiftpm-guard --verify-urls vs sha256sum of the same files.

Writes N zips of S MB, serves their folder over loopback HTTP from a separate process
(`python -m http.server`, so the server does not share our GIL), warms the page cache, then
times, best of R:
  * `swiftpm-guard check --checksums … --verify-urls --base-url http://127.0.0.1:PORT/`
    (download + SHA-256 of every zip, --url-jobs at a time),
  * `sha256sum` of the same files read from disk (what upload steps run today),
  * `openssl dgst -sha256`, two processes in parallel (this machine's hashing limit).
Prints wall seconds, MB/s and our peak RSS. The server is single-threaded per connection
and shares the 2 CPUs with the client, so loopback figures are a floor, not a ceiling.

    python benchmarks/url_bench.py [--count 4] [--size-mb 256] [--repeat 3] [--jobs 4]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from timing import best, run_parallel, run_timed, warm  # noqa: E402

from support.release import write_real_zip  # noqa: E402


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def make_release(folder: Path, count: int, size_mb: int) -> tuple[list[Path], Path, Path]:
    names = [f"bench{i}" for i in range(count)]
    zips = []
    for name in names:
        path = folder / "www" / f"{name}-1.0.0.zip"
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.stat().st_size < size_mb << 20:
            write_real_zip(path, name, payload_size=(size_mb << 20) // 4)  # four slices
        zips.append(path)
    checksums = folder / "checksums.txt"
    checksums.write_text("".join(f"{n} {sha256_of(p)}\n" for n, p in zip(names, zips,
                                                                         strict=True)))
    template = folder / "Package.swift.template"
    body = "".join(f'  "{n}": "__SHA256_{n}__",\n' for n in names)
    template.write_text(f'let version = "__VERSION__"\nlet targets = [\n{body}]\n')
    return zips, checksums, template


def start_server(root: Path) -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen(
        [sys.executable, "-u", "-m", "http.server", "--bind", "127.0.0.1",
         "--directory", str(root), "0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert server.stdout is not None
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        line = server.stdout.readline()
        found = re.search(r"port (\d+)", line)
        if found:
            return server, f"http://127.0.0.1:{found.group(1)}/"
    server.kill()
    raise SystemExit("http.server did not start")






def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=4)
    parser.add_argument("--size-mb", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--dir", type=Path, help="reuse generated zips here")
    args = parser.parse_args()
    folder = args.dir or Path(tempfile.mkdtemp(prefix="url-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    zips, checksums, template = make_release(folder, args.count, args.size_mb)
    warm(zips)
    total_mb = sum(p.stat().st_size for p in zips) / (1 << 20)
    guard = shutil.which("swiftpm-guard", path=str(Path(sys.executable).parent)) or "swiftpm-guard"
    server, base = start_server(folder / "www")
    try:
        ours = [guard, "check", "--template", str(template), "--version", "1.0.0",
                "--checksums", str(checksums), "--verify-urls", "--base-url", base,
                "--url-jobs", str(args.jobs), "-q"]
        rows: list[tuple[str, float, int]] = []
        seconds, rss = best(args.repeat, lambda: run_timed(ours))
        rows.append((f"swiftpm-guard --verify-urls (jobs {args.jobs})", seconds, rss))
        seconds, _ = best(args.repeat, lambda: run_timed(["sha256sum", *map(str, zips)]))
        rows.append(("sha256sum (files from disk)", seconds, 0))
        half = (len(zips) + 1) // 2
        openssl = [["openssl", "dgst", "-sha256", *map(str, zips[:half])],
                   ["openssl", "dgst", "-sha256", *map(str, zips[half:])]]
        if shutil.which("openssl"):
            rows.append(("openssl dgst -sha256 x2 (files from disk)",
                         *best(args.repeat, lambda: run_parallel(openssl))))
    finally:
        server.terminate()
        server.wait(timeout=10)
    reference = rows[1][1]
    print(f"{len(zips)} zips x {args.size_mb} MB = {total_mb:.0f} MB, {os.cpu_count()} CPUs, "
          f"best of {args.repeat}, page cache warm, server: python -m http.server on loopback")
    print(f"{'what':<44} {'wall s':>8} {'MB/s':>8} {'vs sha256sum':>13} {'peak RSS':>10}")
    for name, seconds, rss in rows:
        rss_text = f"{rss / 1024:.0f} MB" if rss else ""
        print(f"{name:<44} {seconds:>8.2f} {total_mb / seconds:>8.0f} "
              f"{seconds / reference:>12.2f}x {rss_text:>10}")
    if not args.dir:
        shutil.rmtree(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
