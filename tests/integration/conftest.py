"""Fixtures for integration tests that need the real SwiftPM.

`swift` is, in order: $SWIFTPM_GUARD_SWIFT, `swift` on PATH, or the wrapper that
`scripts/swift-toolchain.sh` leaves in its cache. Without one, the SwiftPM tests skip with a
loud reason, except when SWIFTPM_GUARD_REQUIRE_SWIFT=1 (CI sets it): then they fail.
"""

import os
import shutil
from pathlib import Path

import pytest

TOOLCHAIN_WRAPPER = Path("/var/cache/swiftpm-guard/swift-trixie/bin/swift")


def find_swift() -> str | None:
    explicit = os.environ.get("SWIFTPM_GUARD_SWIFT")
    if explicit:
        return explicit
    on_path = shutil.which("swift")
    if on_path:
        return on_path
    return str(TOOLCHAIN_WRAPPER) if os.access(TOOLCHAIN_WRAPPER, os.X_OK) else None


@pytest.fixture(scope="session")
def swift() -> str:
    found = find_swift()
    if found is not None:
        return found
    reason = (
        "NO SWIFT TOOLCHAIN: SwiftPM tests did not run. Build one with "
        "`scripts/swift-toolchain.sh` (root, ~1 min, 2.6 GB) or set SWIFTPM_GUARD_SWIFT."
    )
    if os.environ.get("SWIFTPM_GUARD_REQUIRE_SWIFT") == "1":
        pytest.fail(reason + " SWIFTPM_GUARD_REQUIRE_SWIFT=1 forbids skipping.")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def swift_cache(tmp_path_factory) -> Path:
    """One cache for the session: each distinct manifest costs SwiftPM time only once."""
    return tmp_path_factory.mktemp("swiftpm-cache")
