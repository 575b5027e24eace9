"""Memory stays flat while a 1 GB zip is verified: the bytes are streamed, never held.

The server streams the body from a generator (one 1 MiB block reused); the verifier runs in a
child process whose peak RSS the kernel reports. Marked slow (about 2-4 s); CI runs it.
"""

import hashlib
import json
import subprocess
import sys

import pytest

from support.zip_server import Route, serve_zips

SIZE = 1 << 30
BLOCK = 1 << 20
#: Python, the package and four 1 MiB buffers need ~30 MB; holding the zip would need 1 GB.
PEAK_RSS_LIMIT_MB = 100

CHILD = """
import json, re, sys
from swiftpm_guard.core.model import Location
from swiftpm_guard.sources.hosted import verify_with_stats
from swiftpm_guard.core.urls import HostedZip, UrlSettings
url, sha = sys.argv[1], sys.argv[2]
results, _ = verify_with_stats([HostedZip("big", url, sha, Location("Package.swift", 1))],
                               # The body is a zip signature and noise: only the hash is
                               # compared (looking inside spools to disk, which memory does
                               # not see anyway).
                               UrlSettings(timeout=20, retries=0, archive_contents=False))
print(json.dumps({"findings": [f.message for f in results if f is not None],
                  # VmHWM, not ru_maxrss: the latter inherits the parent's peak across
                  # fork/exec, so it measured the pytest process rather than the verifier.
                  "peak_mb": int(re.search(r"VmHWM:\\s+(\\d+)",
                                           open("/proc/self/status").read()).group(1)) / 1024}))
"""


def blocks():
    first = b"PK\x03\x04" + bytes(BLOCK - 4)
    rest = bytes(range(256)) * (BLOCK // 256)
    yield first
    for _ in range(SIZE // BLOCK - 1):
        yield rest


@pytest.mark.slow
def test_one_gigabyte_zip_verifies_in_flat_memory():
    digest = hashlib.sha256()
    for block in blocks():
        digest.update(block)
    with serve_zips() as server:
        server.routes["/big-1.0.0.zip"] = Route(stream=blocks, length=SIZE)
        done = subprocess.run(
            [sys.executable, "-c", CHILD, server.url("big-1.0.0.zip"), digest.hexdigest()],
            capture_output=True, text=True, timeout=120, check=True)
    result = json.loads(done.stdout)
    assert result["findings"] == []
    assert result["peak_mb"] < PEAK_RSS_LIMIT_MB, result
    print(f"peak RSS verifying 1 GiB: {result['peak_mb']:.0f} MB")
