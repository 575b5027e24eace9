"""Writing files atomically: a reader sees the old file or the whole new one, never half."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from swiftpm_guard.errors import InputError


def write_atomically(items: Sequence[tuple[Path, bytes]]) -> None:
    """Write every file to a temporary sibling first, then move them all into place."""
    staged: list[tuple[str, Path]] = []
    current: Path | None = None
    try:
        for path, data in items:
            current = path
            staged.append((_stage(path, data), path))
        for temporary, path in staged:
            current = path
            os.replace(temporary, path)
    except (OSError, ValueError, InputError) as error:
        for temporary, _path in staged:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
        if isinstance(error, InputError):  # already names the folder or the file
            raise
        # Name the file asked for, not the temporary sibling the error is about.
        reason = getattr(error, "strerror", None) or "not a usable path"
        raise InputError(f"cannot write: {reason}", file=str(current)) from None


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
    import tempfile  # only when writing: it imports shutil and random

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


# -- before anything irreversible ----------------------------------------------------------------

#: What a run writes into its output folder (the action: `.swiftpm-guard/`).
OUTPUT_FILES = ("report.json", "Package.swift")


def prepare_output_dir(workspace: Path, name: str, *, files: Sequence[str] = OUTPUT_FILES,
                       append_to: Sequence[tuple[Path | None, str]] = ()) -> Path:
    """The output folder `workspace/name`, created, with every later write known to work:
    called before a push, which cannot be taken back. `name` must be a plain folder (a pull
    request can commit `.swiftpm-guard` as a link) that a file can be created in, none of
    `files` in it a folder or a link, and each of `append_to` (the summary, the outputs file) a
    regular file that opens for appending at once. InputError naming the path otherwise."""
    folder = workspace / name
    try:
        folder.mkdir(exist_ok=True)
        status = os.lstat(folder)
    except OSError as error:
        raise InputError(f"cannot create the output folder: {error.strerror}", file=name) \
            from None
    if not stat.S_ISDIR(status.st_mode):
        # Also a symlink to a folder: lstat does not follow it.
        raise InputError("exists in the workspace and is not a plain folder", file=name)
    for item in files:
        _writable_target(folder / item, f"{name}/{item}")
    _can_create_in(folder, name)
    for path, what in append_to:
        if path is not None:
            _appendable(path, what)
    return folder


def _writable_target(path: Path, shown: str) -> None:
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as error:
        raise InputError(f"cannot use: {error.strerror}", file=shown) from None
    if stat.S_ISDIR(status.st_mode) or stat.S_ISLNK(status.st_mode):
        kind = "folder" if stat.S_ISDIR(status.st_mode) else "symbolic link"
        raise InputError(f"is a {kind}; the report cannot be written there", file=shown)


def _can_create_in(folder: Path, shown: str) -> None:
    import tempfile

    try:
        handle, probe = tempfile.mkstemp(prefix=".probe.", dir=folder)
    except OSError as error:
        raise InputError(f"cannot write in the output folder: {error.strerror}", file=shown) \
            from None
    os.close(handle)
    os.unlink(probe)


def _appendable(path: Path, what: str) -> None:
    os.close(_open_append(path, what))


def append_text(path: Path, text: str, what: str) -> None:
    """Append to a runner file (step outputs, job summary) opened the bounded way: never
    blocking on a FIFO, refused unless a regular file."""
    descriptor = _open_append(path, what, create=True)
    try:
        fcntl.fcntl(descriptor, fcntl.F_SETFL,
                    fcntl.fcntl(descriptor, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        data = text.encode("utf-8")
        while data:
            data = data[os.write(descriptor, data):]
    except OSError as error:
        raise InputError(f"cannot write the {what}: {error.strerror}", file=str(path)) from None
    finally:
        os.close(descriptor)


def _open_append(path: Path, what: str, *, create: bool = False) -> int:
    flags = os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(path, flags | (os.O_CREAT if create else 0), 0o644)
    except OSError as error:
        # ENXIO: a FIFO nobody reads (O_NONBLOCK opens fail instead of waiting).
        reason = "a FIFO nobody reads" if error.errno == errno.ENXIO else error.strerror
        raise InputError(f"cannot append to the {what}: {reason}", file=str(path)) from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise InputError(f"the {what} is not a regular file", file=str(path))
    return descriptor
