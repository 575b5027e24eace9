"""What verifying every entry (publish's default, `--verify-zips`) costs, against hashing alone.

    python benchmarks/verify_zips_bench.py [--mib 256] [--entries 2000]

Writes one deflated `<name>.xcframework` zip holding `--mib` MiB of semi-compressible data
(a binary-like mix of random and repeated bytes) over `--entries` files, then times, on the
same file in one run: its SHA-256 alone (`sha256_file`, what every check does), the reading in
its bounded child (`contents_or_problem`, as the folder scan runs it: zipfile's directory, the
shape checks, metadata entries and symlinks; then with `FullCheck()` every entry inflated and
CRC-checked, as `unzip
-t` does), the whole folder scan as `check` and `publish` run it (`scan_zip_folder`, hash and
judgment, without and with the full check) and, where Info-ZIP is installed, `unzip -t`
itself. Prints MiB/s of uncompressed data for the full check.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from swiftpm_guard.core.zip_rules import ZipContents  # noqa: E402
from swiftpm_guard.infra.bounded import run_bounded  # noqa: E402
from swiftpm_guard.sources.artifacts import scan_zip_folder, sha256_file  # noqa: E402
from swiftpm_guard.sources.zip_archive import (  # noqa: E402
    FullCheck,
    child_seconds,
    contents_or_problem,
)


def read_zip_bounded(fd: int, full: FullCheck | None = None) -> ZipContents:
    """The zip's contents, read in a bounded child as the folder scan reads each zip."""
    seconds = child_seconds(full)
    ended = run_bounded(contents_or_problem, fd, full, seconds=seconds)
    assert ended.kind == "ok" and isinstance(ended.value, ZipContents), ended
    return ended.value


def _write(path: Path, mib: int, entries: int) -> int:
    block = os.urandom(1 << 16) + bytes(1 << 16) + b"\x1f\x8b\x08\x00" * (1 << 14)
    per = (mib << 20) // entries
    total = 0
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        archive.writestr("x.xcframework/Info.plist", b"<plist><dict/></plist>")
        for index in range(entries):
            data = (block * (per // len(block) + 1))[:per]
            archive.writestr(f"x.xcframework/ios-arm64/f{index}.o", data)
            total += len(data)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=256)
    parser.add_argument("--entries", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="verify-zips-bench-") as tmp:
        path = Path(tmp) / "x-1.0.0.zip"
        total = _write(path, args.mib, args.entries)
        size = path.stat().st_size
        print(f"zip: {size / 2**20:.0f} MiB stored, {total / 2**20:.0f} MiB uncompressed, "
              f"{args.entries + 1} entries")
        hashed = _timed(lambda: sha256_file(path))
        with path.open("rb") as stream:
            default = read_zip_bounded(stream.fileno())
            full = read_zip_bounded(stream.fileno(), FullCheck())
            assert default.damaged == full.damaged == () and full.unverified is None
            plain = _timed(lambda: read_zip_bounded(stream.fileno()))
            checked = _timed(lambda: read_zip_bounded(stream.fileno(), FullCheck()))
        scan = _timed(lambda: scan_zip_folder(path.parent))
        scan_full = _timed(lambda: scan_zip_folder(path.parent, verify=True))
        print(f"sha256 alone: {hashed:.2f} s; reading (metadata only): {plain:.2f} s; "
              f"reading, every entry verified: {checked:.2f} s "
              f"({total / 2**20 / checked:.0f} MiB/s uncompressed)")
        print(f"check's folder scan (hash + metadata): {scan:.2f} s = "
              f"{scan / hashed:.1f}x sha256 alone; publish's (hash + every entry): "
              f"{scan_full:.2f} s = {scan_full / hashed:.1f}x")
        _unzip_test(path)


def _timed(work: Callable[[], object]) -> float:
    """The best of three runs, in seconds (the page cache warm after the first)."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def _unzip_test(path: Path) -> None:
    """What SwiftPM itself runs on a download before extracting it (Info-ZIP `unzip -t`)."""
    unzip = shutil.which("unzip")
    if unzip is None:
        print("unzip -t: not installed here (apt-get install unzip), not compared")
        return
    started = time.perf_counter()
    subprocess.run([unzip, "-tqq", str(path)], check=True, timeout=600,
                   stdout=subprocess.DEVNULL)
    print(f"unzip -t (SwiftPM's own test of a download): {time.perf_counter() - started:.2f} s")


if __name__ == "__main__":
    main()
