"""Run untrusted work (a PR's Jinja template) in a forked child with a deadline and a memory cap.

The Jinja sandbox stops attribute tricks but not `{% for %}` nests that run for hours or build
gigabytes; only a separate process can be stopped from outside. The child reports back either
the result or a GuardError's text; a child killed by the deadline or the memory cap becomes a
one-line InputError naming the file.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import resource
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from swiftpm_guard.errors import GuardError, InputError

T = TypeVar("T")

DEFAULT_SECONDS = 20.0
DEFAULT_MEMORY_BYTES = 1 << 30


def _address_space() -> int:
    with open("/proc/self/statm") as stream:
        return int(stream.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _child(channel: Connection, function: Callable[..., Any], args: tuple[Any, ...],
           memory_bytes: int) -> None:
    try:
        limit = _address_space() + memory_bytes
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        channel.send(("ok", function(*args)))
    except GuardError as error:
        file, line = getattr(error, "file", None), getattr(error, "line", None)
        channel.send(("error", (str(error), file, line)))
    except MemoryError:
        channel.send(("memory", None))
    except BaseException as error:
        # An escaping exception would make multiprocessing print `Process ForkProcess-1:` and
        # a traceback on our stderr, and the parent would only see the pipe close ("died").
        with contextlib.suppress(Exception):
            channel.send(("crash", f"{type(error).__name__}: {error}".strip().rstrip(":")))
    finally:
        channel.close()


def call_isolated(function: Callable[..., T], *args: Any, file: str,
                  seconds: float = DEFAULT_SECONDS,
                  memory_bytes: int = DEFAULT_MEMORY_BYTES) -> T:
    """`function(*args)` in a forked child; InputError if it overruns `seconds` or memory."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(sender, function, args, memory_bytes),
                               daemon=True)
    process.start()
    sender.close()
    try:
        if not receiver.poll(seconds):
            raise InputError(f"rendering did not finish within {seconds:g} s; stopped it",
                             file=file)
        try:
            status, payload = receiver.recv()
        except EOFError:
            raise InputError("rendering died (killed or out of memory)", file=file) from None
    finally:
        receiver.close()
        if process.is_alive():
            process.kill()
        process.join(timeout=10)
    if status == "memory":
        raise InputError(f"rendering needed more than {memory_bytes >> 20} MiB; stopped it",
                         file=file)
    if status == "crash":
        raise InputError(f"rendering failed: {payload}", file=file)
    if status == "error":
        message, _file, line = payload
        raise _Relayed(message, line)
    return payload  # type: ignore[no-any-return]


class _Relayed(InputError):
    """An InputError raised in the child, re-raised here with its text and line intact."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line
