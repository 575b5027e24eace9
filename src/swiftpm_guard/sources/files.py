"""Reading a whole text input: size-capped, strict UTF-8, errors that name the file."""

from __future__ import annotations

from pathlib import Path

from swiftpm_guard.errors import InputError


def read_text(path: Path, *, display: str, max_bytes: int, what: str) -> str:
    """Return the file's text exactly (line endings kept); one-line InputError otherwise."""
    try:
        with path.open("rb") as stream:
            data = stream.read(max_bytes + 1)
    except FileNotFoundError:
        raise InputError(f"{what} not found", file=display) from None
    except IsADirectoryError:
        raise InputError(f"{what} is a directory, expected a file", file=display) from None
    except OSError as error:
        raise InputError(f"cannot read {what}: {error.strerror}", file=display) from None
    if len(data) > max_bytes:
        raise InputError(f"{what} is larger than {max_bytes} bytes; refusing to read it",
                         file=display)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError(f"{what} is not UTF-8 (byte 0x{data[error.start]:02x} at offset "
                         f"{error.start})", file=display, line=line) from None
