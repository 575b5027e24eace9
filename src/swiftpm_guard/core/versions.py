"""Which version strings may reach branch names, URLs and file names (pure)."""

from __future__ import annotations

import re

from swiftpm_guard.errors import UsageError

#: Characters a version may hold whatever --version-pattern says: it reaches URLs, branch
#: names and file names, so anything else is refused before it gets there.
_SAFE_VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z._+-]{0,63}")


def validate_version(version: str) -> str:
    """Refuse versions that could escape a path, URL or ref (exit 2, before anything runs)."""
    if not _SAFE_VERSION.fullmatch(version) or ".." in version or version.endswith("."):
        raise UsageError(f"--version {version!r} is not a safe version string "
                         "(letters, digits, '.', '_', '+', '-'; no '..')")
    return version
