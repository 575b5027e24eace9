"""Writing files atomically: a reader sees the old file or the whole new one, never half."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from swiftpm_guard.errors import InputError


def write_atomically(items: Sequence[tuple[Path, bytes]]) -> None:
    """Write every file to a temporary sibling first, then move them all into place."""
    staged: list[tuple[str, Path]] = []
    try:
        for path, data in items:
            staged.append((_stage(path, data), path))
        for temporary, path in staged:
            os.replace(temporary, path)
    except (OSError, InputError) as error:
        for temporary, _path in staged:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
        if isinstance(error, InputError):
            raise
        raise InputError(f"cannot write: {error.strerror}", file=error.filename) from None


def _folder(path: Path) -> Path:
    """The folder `path` goes into, created when missing (`--output out/Package.swift`)."""
    directory = path.parent if str(path.parent) else Path(".")
    if directory.is_dir():
        return directory
    if directory.exists() or directory.is_symlink():
        raise InputError(f"is not a folder, cannot write {path.name} into it", file=str(directory))
    try:
        directory.mkdir(parents=True)
    except OSError as error:
        raise InputError(f"cannot create the folder for {path.name}: {error.strerror}",
                         file=str(directory)) from None
    return directory


def _stage(path: Path, data: bytes) -> str:
    directory = _folder(path)
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=directory)
    except OSError as error:  # the error would name our temporary file, not the folder
        raise InputError(f"cannot write {path.name} here: {error.strerror}",
                         file=str(directory)) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if path.exists():
            os.chmod(temporary, path.stat().st_mode & 0o777)
        else:
            os.chmod(temporary, 0o644)
    except BaseException:
        os.unlink(temporary)
        raise
    return temporary
