"""Run untrusted work (a PR's Jinja template) in a forked child with a deadline and a memory cap.

The Jinja sandbox stops attribute tricks but not `{% for %}` nests that run for hours or build
gigabytes; only a separate process can be stopped from outside. The child reports back either
the result or a GuardError's text; a child killed by the deadline or the memory cap becomes a
one-line InputError naming the file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from swiftpm_guard.errors import InputError
from swiftpm_guard.infra.bounded import call_in_child

T = TypeVar("T")

DEFAULT_SECONDS = 20.0
DEFAULT_MEMORY_BYTES = 1 << 30


def call_isolated(function: Callable[..., T], *args: Any, file: str,
                  seconds: float = DEFAULT_SECONDS,
                  memory_bytes: int = DEFAULT_MEMORY_BYTES) -> T:
    """`function(*args)` in a forked child; InputError if it overruns `seconds` or memory.

    A GuardError raised in the child is re-raised here with its text and line; anything else
    that went wrong is one InputError naming the file.
    """
    ended = call_in_child(function, args, seconds=seconds, memory_bytes=memory_bytes)
    if ended.kind == "ok":
        return ended.payload  # type: ignore[no-any-return]
    if ended.kind == "guard":
        message, _file, line, _error = ended.payload
        raise _Relayed(message, line)
    if ended.kind == "timeout":
        raise InputError(f"rendering did not finish within {seconds:g} s; stopped it",
                         file=file)
    if ended.kind == "memory":
        raise InputError(f"rendering needed more than {memory_bytes >> 20} MiB; stopped it",
                         file=file)
    if ended.kind == "recursion":
        raise InputError("rendering failed: RecursionError: nested too deeply", file=file)
    if ended.kind == "raised":
        raise InputError(f"rendering failed: {ended.payload}", file=file)
    raise InputError(f"rendering {ended.payload}", file=file)


class _Relayed(InputError):
    """An InputError raised in the child, re-raised here with its text and line intact."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line
