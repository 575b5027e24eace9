"""Where a release may be published from, and which paths a published branch leaves out.

Pure rules. `publish-refs` are globs over branch names (`release/*`) or, written in full, over
refs (`refs/tags/v*`); the default is the repository's default branch and `release/*`, so a
`workflow_dispatch` on a feature branch checks but never claims a version's branch.
`exclude-paths` are tree paths (a trailing `/` names a folder) dropped from every published
commit: `.github/` by default, because a workflow file on a published branch runs there.
"""

from __future__ import annotations

import fnmatch
import re

from swiftpm_guard.errors import UsageError

#: What publish-refs means when it is not given: the default branch, then release lines.
DEFAULT_BRANCH = "the repository's default branch"
DEFAULT_PUBLISH_GLOBS = ("release/*",)
DEFAULT_EXCLUDED = (".github/",)
#: `exclude-paths: none` (the CLI's `--exclude none`): publish the template branch whole.
NO_EXCLUSION = "none"
_GLOB = re.compile(r"[A-Za-z0-9._/*?+-]{1,200}")
_PATH = re.compile(r"[A-Za-z0-9._/@+-]{1,400}")


def validate_ref_glob(pattern: str, what: str = "input publish-refs") -> str:
    """A branch glob (or `refs/…` glob): never an option, no `..`."""
    if not _GLOB.fullmatch(pattern) or pattern.startswith(("-", "/")) or ".." in pattern:
        raise UsageError(
            f"{what} {pattern!r} is not a branch glob (letters, digits, '._-+/', '*' and '?'; "
            "no '..', no leading '-')"
        )
    return pattern


def ref_matches(ref: str, patterns: tuple[str, ...]) -> str | None:
    """The first pattern `ref` (a full ref, `refs/heads/…`) matches, else None."""
    branch = ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None
    for pattern in patterns:
        if pattern.startswith("refs/"):
            if fnmatch.fnmatchcase(ref, pattern):
                return pattern
        elif branch is not None and fnmatch.fnmatchcase(branch, pattern):
            return pattern
    return None


def validate_excluded(paths: tuple[str, ...], what: str = "input exclude-paths") -> tuple[str, ...]:
    """Tree paths to leave out; `none` alone means nothing is left out."""
    if paths == (NO_EXCLUSION,):
        return ()
    for path in paths:
        parts = path.rstrip("/").split("/")
        if (
            not _PATH.fullmatch(path)
            or path.startswith(("/", "-"))
            or any(p in ("", ".", "..") for p in parts)
        ):
            raise UsageError(
                f"{what} {path!r} is not a path inside the repository (a trailing '/' names a "
                "folder; no '.', '..' or empty parts)"
            )
    return paths


def is_excluded(path: str, excluded: tuple[str, ...]) -> bool:
    """`path` is one of `excluded` or lies under one of its folders."""
    for item in excluded:
        folder = item.rstrip("/")
        if path == folder or path.startswith(folder + "/"):
            return True
    return False
