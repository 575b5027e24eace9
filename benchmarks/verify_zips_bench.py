"""What `--verify-zips` costs on a framework zip, against hashing it and the default check.

    python benchmarks/verify_zips_bench.py [--mib 256] [--entries 2000]

Writes one deflated `<name>.xcframework` zip holding `--mib` MiB of semi-compressible data
(a binary-like mix of random and repeated bytes) over `--entries` files, then times, in this
process: its SHA-256 (what every check does), `read_zip_contents` (the default: headers,
metadata entries, symlinks) and `read_zip_contents(full=FullCheck())` (every entry inflated and
CRC-checked, as `unzip -t` does) and, where Info-ZIP is installed, `unzip -t` itself. Prints
MiB/s of uncompressed data for the full check.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from swiftpm_guard.sources.zip_archive import FullCheck, read_zip_contents  # noqa: E402


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
        started = time.perf_counter()
        hashlib.sha256(path.read_bytes()).hexdigest()
        hashed = time.perf_counter() - started
        started = time.perf_counter()
        default = read_zip_contents(path)
        plain = time.perf_counter() - started
        started = time.perf_counter()
        full = read_zip_contents(path, full=FullCheck())
        checked = time.perf_counter() - started
        assert default.damaged == full.damaged == () and full.unverified is None
        print(f"sha256: {hashed:.2f} s; default check: {plain:.2f} s; --verify-zips: "
              f"{checked:.2f} s ({total / 2**20 / checked:.0f} MiB/s uncompressed)")
        _unzip_test(path)


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
