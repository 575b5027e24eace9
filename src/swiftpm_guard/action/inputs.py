"""The action's inputs as the runner passes them, and the small validators each one needs.

The runner passes `with:` inputs as `INPUT_<NAME>` with the name upper-cased and its hyphens
kept (`INPUT_TEMPLATE-REF`); other launchers turn them into underscores, so both are read.
A bad input is a one-line UsageError (exit 2) naming the input and the value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from swiftpm_guard.core.checks import DEFAULT_VERSION_PATTERN
from swiftpm_guard.core.git_names import DEFAULT_AUTHOR, Identity
from swiftpm_guard.core.numbers import parse_id
from swiftpm_guard.core.text_lines import split_lines
from swiftpm_guard.core.versions import check_version_shape, validate_version
from swiftpm_guard.errors import UsageError
from swiftpm_guard.infra.swift_locate import validate_swift_option
from swiftpm_guard.sources.git_repository import DEFAULT_PATTERN, validate_pattern

#: Every input with its default; action.yml declares the same names and defaults (tested).
INPUTS: dict[str, str] = {
    "mode": "auto",
    "template": "Package.swift.template",
    "template-ref": "swiftpm",
    "version": "",
    "artifacts": "",
    "checksums": "",
    "frameworks": "",
    "frameworks-from": "",
    "frameworks-ref": "",
    "run-id": "",
    "artifact-name": "",
    "debug-suffix": "_debug",
    "branch-prefix": "swiftpm-",
    "check-name": "SwiftPM manifest",
    "pr-conclusion": "auto",
    "github-token": "",  # action.yml: ${{ github.token }}
    "push-token": "",
    "publish-refs": "",  # empty: the repository's default branch and release/*
    "exclude-paths": ".github/",
    "update": "false",
    "verify-absent": "false",
    "absent-on-403": "false",
    "dry-run": "false",
    "swift": "auto",
    "author": DEFAULT_AUTHOR,
    "allow-overwrite": "false",
    "verify-urls": "false",
    "resolve": "false",
    "base-url": "",
    "branches": DEFAULT_PATTERN,
}
#: Every output the action writes (action.yml declares the same, tested).
OUTPUTS = (
    "consistent",
    "products",
    "binary-targets",
    "report",
    "manifest",
    "branch",
    "pushed",
    "not-pushed-reason",
    "json",
)
MODES = ("auto", "check", "publish", "audit", "preflight")
PR_CONCLUSIONS = ("auto", "neutral", "failure")

def read_input(env: Mapping[str, str], name: str) -> str:
    """`INPUT_NAME-WITH-HYPHENS` (the runner) or `INPUT_NAME_WITH_UNDERSCORES`, else default."""
    upper = name.upper()
    for key in (f"INPUT_{upper}", f"INPUT_{upper.replace('-', '_')}"):
        value = env.get(key)
        if value is not None and value.strip():
            return value.strip()
    return INPUTS[name]


def token_from(env: Mapping[str, str]) -> str | None:
    return read_input(env, "github-token") or None


def push_token_from(env: Mapping[str, str]) -> str | None:
    """Input push-token: used only by git (a PAT cannot create check runs)."""
    return read_input(env, "push-token") or None


def words_of(value: str) -> tuple[str, ...]:
    """An input listing items separated by spaces, commas or newlines; `#` comments skipped."""
    return tuple(
        word
        for line in lines_of(value)
        for word in re.split(r"[\s,]+", line)
        if word
    )


def lines_of(value: str) -> tuple[str, ...]:
    """A multi-line input: one item per line; blank lines and `#` comments skipped."""
    return tuple(
        line.strip()
        for line in split_lines(value)
        if line.strip() and not line.strip().startswith("#")
    )


def boolean(name: str, value: str) -> bool:
    lowered = value.lower()
    if lowered not in ("true", "false"):
        raise UsageError(f"input {name} must be true or false, got {value!r}")
    return lowered == "true"


def choice(name: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise UsageError(f"input {name} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def swift_option(value: str) -> str:
    try:
        return validate_swift_option(value)
    except UsageError:
        raise UsageError(
            f"input swift {value!r} is not auto, off, or the path of an executable file"
        ) from None


def author(value: str) -> str:
    """The commit identity for publishing: from this input, never from a git config."""
    try:
        return str(Identity.parse(value))
    except UsageError:
        raise UsageError(f"input author {value!r} must look like 'Name <email@host>'") from None


def branches(value: str) -> str:
    try:
        return validate_pattern(value)
    except UsageError:
        raise UsageError(
            f"input branches {value!r} is not a branch glob (letters, digits, '._-+/', "
            "'*' and '?'; no '..', no leading '-')"
        ) from None


_SUFFIX = re.compile(r"[A-Za-z0-9_]{0,32}")
_PREFIX = re.compile(r"[A-Za-z0-9._/-]{0,100}")


def version(value: str) -> str | None:
    if not value:
        return None
    try:
        validate_version(value)
    except UsageError:
        raise UsageError(
            f"input version {value!r} is not a safe version string "
            "(letters, digits, '.', '_', '+', '-'; no '..')"
        ) from None
    # `v1.1.0` is what `github.ref_name` gives on a tag: bad usage with a hint, not a finding.
    return check_version_shape(value, DEFAULT_VERSION_PATTERN, option="input version",
                               pattern_option=None)


def run_id(value: str) -> int | None:
    return parse_id(value, what="input run-id") if value else None


def artifact_name(value: str) -> str | None:
    if value and (len(value) > 256 or re.search(r"[\x00-\x1f/\\]", value)):
        raise UsageError(f"input artifact-name {value!r} is not an artifact name")
    return value or None


def debug_suffix(value: str) -> str:
    if not _SUFFIX.fullmatch(value):
        raise UsageError(f"input debug-suffix {value!r} is not [A-Za-z0-9_]*")
    return value


def branch_prefix(value: str) -> str:
    if not _PREFIX.fullmatch(value) or ".." in value or value.startswith(("-", "/")):
        raise UsageError(f"input branch-prefix {value!r} cannot start a branch name")
    return value


def check_name(value: str) -> str:
    if len(value) > 255 or re.search(r"[\x00-\x1f]", value):
        raise UsageError(
            f"input check-name {value[:80]!r} must be one line of at most 255 characters"
        )
    return value


def resolve_swift(enabled: bool, swift: str) -> str | None:
    """Input resolve: the swift that resolves a consumer (the one input swift finds), or None.

    The Docker action has no swift: `resolve: true` there is bad input, said at once, not a
    proof silently skipped. The composite action on macOS has Xcode's.
    """
    if not enabled:
        return None
    from swiftpm_guard.infra.swift_locate import locate_swift

    found, why = locate_swift(swift)
    if found is None:
        raise UsageError(f"input resolve needs a swift on the runner ({why}): use the composite "
                         "action where Xcode or a Swift toolchain is installed, or give input "
                         "swift the path of one")
    return found
