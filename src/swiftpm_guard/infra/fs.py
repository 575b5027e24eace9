"""Opening input files: never blocking, regular files only, one-line errors naming the input.

A path from a user or a folder may be a FIFO (an `open()` would wait forever), a device, a
folder, a link loop, a name too long, or a file swapped for a FIFO after the listing. So files
open with `O_NONBLOCK`, are `fstat`ed on the descriptor and refused unless regular; then the
flag is cleared. Every OSError, RuntimeError (a loop in 3.11's `Path.resolve`) or ValueError (a
NUL) becomes an InputError naming the input, here at the source.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
from collections.abc import Iterator
from io import BufferedReader
from pathlib import Path

from swiftpm_guard.errors import InputError, os_problem

_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
#: One phrasing for every path error, shared with the sinks (errors.os_problem).
problem = os_problem


def display_name(name: str) -> str:
    """A file name as text for reports: undecodable bytes (kept by surrogateescape) become
    U+FFFD, so JSON, Markdown and the log can always be written in UTF-8."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words, for "… is a FIFO, expected a regular file"."""
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


@contextlib.contextmanager
def open_regular(
    path: Path | str, *, display: str, what: str, follow_symlinks: bool = True
) -> Iterator[BufferedReader]:
    """A binary stream on `path` if it is a regular file; InputError at once otherwise.

    `follow_symlinks=False` refuses a link at the last component too (O_NOFOLLOW): for files
    found by walking a tree, where a link could be swapped in after the walk looked.
    """
    flags = _OPEN_FLAGS | (0 if follow_symlinks else os.O_NOFOLLOW)
    try:
        descriptor = os.open(path, flags)
    except (OSError, ValueError) as error:
        raise InputError(f"{what} {problem(error)}", file=display) from None
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(f"{what} is {file_kind(mode)}, expected a regular file",
                             file=display)
        flags = fcntl.fcntl(descriptor, fcntl.F_GETFL)
        fcntl.fcntl(descriptor, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)
        stream = os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise
    with stream:
        try:
            yield stream
        except OSError as error:  # a read failing half-way (EIO, a vanished network mount)
            raise InputError(f"{what} {problem(error)}", file=display) from None


def read_bytes(
    path: Path | str, *, display: str, max_bytes: int, what: str, follow_symlinks: bool = True
) -> bytes:
    """The whole file, at most `max_bytes` (larger is an InputError)."""
    with open_regular(path, display=display, what=what, follow_symlinks=follow_symlinks) as stream:
        data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise InputError(f"{what} is larger than {max_bytes} bytes; refusing to read it",
                         file=display)
    return data


def is_directory(path: Path | str, *, display: str, what: str) -> bool:
    """Whether `path` is (or links to) a folder; False when absent; InputError when unusable."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except (OSError, ValueError) as error:
        raise InputError(f"{what} {problem(error)}", file=display) from None


def path_exists(path: Path | str, *, display: str, what: str) -> bool:
    """Whether `path` (followed through links) exists; False when absent or dangling."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except (OSError, ValueError) as error:
        raise InputError(f"{what} {problem(error)}", file=display) from None
    return True


def resolved(path: Path, *, display: str, what: str) -> Path:
    """`path` with every symlink followed; InputError for a loop or an unusable name."""
    try:
        return path.resolve(strict=False)
    except (OSError, RuntimeError, ValueError) as error:
        raise InputError(f"{what} {problem(error)}", file=display) from None


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


def exists_in(root: Path, relative: str) -> bool:
    """Whether a relative path names something under `root` (False for anything unusable)."""
    if relative.startswith("/") or ".." in Path(relative).parts:
        return False
    try:
        return (root / relative).exists()
    except (OSError, ValueError):
        return False


def walk(root: Path, *, max_depth: int, display: str,
         what: str) -> Iterator[tuple[Path, list[str], list[str]]]:
    """`os.walk` top-down without recursion (a folder nested thousands deep is a
    RecursionError there) and without following links: (folder, its folder names, the names
    of everything else), sorted. A tree deeper than `max_depth` folders, or one that cannot be
    listed, is an InputError naming `display`."""
    pending = [(root, 0)]
    while pending:
        folder, depth = pending.pop()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
            kinds = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
        except (OSError, ValueError) as error:
            raise InputError(f"{what} {problem(error)}", file=display) from None
        folders = [name for name, is_folder in kinds if is_folder]
        others = [name for name, is_folder in kinds if not is_folder]
        yield folder, folders, others
        if folders and depth >= max_depth:
            raise InputError(f"{what} nests deeper than {max_depth} folders", file=display)
        pending.extend((folder / name, depth + 1) for name in reversed(folders))
