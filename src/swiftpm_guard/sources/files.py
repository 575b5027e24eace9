"""Reading whole text inputs and naming paths in the workspace, on top of `infra.fs`.

Every input file is opened by `infra.fs.open_regular` (never blocking, regular files only,
one-line errors naming the input); this module adds what only sources need: strict UTF-8 text
and paths that must stay inside the workspace. The `infra.fs` names are re-exported so sources
import one module.
"""

from __future__ import annotations

from pathlib import Path

from swiftpm_guard.errors import InputError
from swiftpm_guard.infra.fs import (
    display_name,
    file_kind,
    is_directory,
    open_regular,
    path_exists,
    problem,
    read_bytes,
    resolved,
)

__all__ = [
    "display_name",
    "file_kind",
    "inside",
    "is_directory",
    "open_regular",
    "path_exists",
    "problem",
    "read_bytes",
    "read_text",
    "resolved",
]


def read_text(path: Path | str, *, display: str, max_bytes: int, what: str) -> str:
    """Return the file's text exactly (line endings kept); one-line InputError otherwise."""
    data = read_bytes(path, display=display, max_bytes=max_bytes, what=what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError(f"{what} is not UTF-8 (byte 0x{data[error.start]:02x} at offset "
                         f"{error.start})", file=display, line=line) from None


def inside(root: Path, relative: str) -> Path:
    """`root/relative` with links followed, required to stay inside `root` (the workspace).

    What action inputs name (`artifacts`, `checksums`, `@list`, `template`) may be a symlink
    loop, a name too long or a link out of the workspace: each is one InputError naming the
    input, never a RuntimeError from `Path.resolve` (Python 3.11 raises one for a loop).
    """
    base = resolved(root, display=str(root), what="workspace")
    path = resolved(base / relative, display=relative, what="path")
    if not path.is_relative_to(base):
        raise InputError("resolves outside the workspace (a symlink?)", file=relative)
    return path
