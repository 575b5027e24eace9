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


def check_version_shape(version: str, pattern: str, *, option: str = "--version",
                        custom_pattern: bool = False,
                        pattern_option: str | None = "--version-pattern") -> str:
    """Bad usage, not a finding: a version outside the pattern would only produce a finding
    per zip. The one line says what to do: `v1.1.0` (a tag's `github.ref_name`) loses its `v`."""
    if re.fullmatch(pattern, version, flags=re.ASCII):
        return version
    shape = f"the pattern {pattern}" if custom_pattern else "X.Y.Z or X.Y.Z.YYYYMMDD"
    if version[:1] in "vV" and re.fullmatch(pattern, version[1:], flags=re.ASCII):
        hint = f"drop the leading '{version[0]}': {option} {version[1:]}"
    else:
        hint = "give one of those"
        if pattern_option:
            hint += f", or accept other shapes with {pattern_option} REGEX"
    raise UsageError(f"{option} {version!r} is not {shape}; {hint}")


def validate_version_pattern(pattern: str) -> str:
    """`--version-pattern` must be a regular expression (exit 2 otherwise)."""
    try:
        re.compile(pattern)
    except re.error as error:
        raise UsageError(f"--version-pattern is not a regular expression: {error}") from None
    return pattern


def check_against_pattern(version: str, pattern: str, *, custom_pattern: bool) -> str:
    """A (safe, see validate_version) `--version` against a usable `--version-pattern`, as the
    check and preflight take them (exit 2 otherwise)."""
    validate_version_pattern(pattern)
    return check_version_shape(version, pattern, custom_pattern=custom_pattern)
