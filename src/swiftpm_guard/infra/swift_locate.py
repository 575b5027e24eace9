"""Which `swift` a job runs, if any: the `--swift auto|off|PATH` option against PATH.

Apart from `infra.swiftpm`, which runs it: most checks (Linux runners) have no swift to run.
"""

from __future__ import annotations

import os

from swiftpm_guard.core.option_names import option
from swiftpm_guard.errors import UsageError

#: Where the Docker action's image has SwiftPM (the Dockerfile installs Debian's swiftlang).
IMAGE_SWIFT = "/usr/bin/swift"


def locate_swift(mode: str) -> tuple[str | None, str]:
    """`auto` → swift on PATH or None; `off` → None; a path → that executable. Plus why."""
    if mode == "off":
        return None, f"{option('swift')} off"
    if mode == "auto":
        found = on_path("swift")
        if found is None:
            return None, f"no swift on PATH ({option('swift')} auto)"
        return found, f"swift on PATH: {found}"
    validate_swift_option(mode)
    return os.path.abspath(mode), f"{option('swift')} {mode}"


def image_swift(mode: str, swift: str = IMAGE_SWIFT) -> str:
    """The Docker action's input swift: `auto` is the image's own swift, by absolute path, or
    `off` in an image without one; never a swift on PATH, which the runner takes from the job
    (entrypoint.py). Any other value is the user's."""
    if mode != "auto":
        return mode
    return swift if os.path.isfile(swift) and os.access(swift, os.X_OK) else "off"


def validate_swift_option(mode: str) -> str:
    """`auto`, `off`, or an executable file (exit 2 otherwise)."""
    if mode in ("auto", "off"):
        return mode
    if not os.path.isfile(mode) or not os.access(mode, os.X_OK):
        raise UsageError(f"{option('swift')} {mode!r} is not auto, off, or an executable file")
    return mode


def on_path(name: str) -> str | None:
    """The first executable file `name` in a PATH folder, as `shutil.which` finds it on POSIX.

    Except that an empty PATH entry is skipped rather than read as the working folder: a
    release job's working folder is a checkout of code under review.
    """
    path = os.environ.get("PATH")
    if path is None:
        path = os.defpath
    for folder in path.split(os.pathsep):
        if not folder:
            continue
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None
