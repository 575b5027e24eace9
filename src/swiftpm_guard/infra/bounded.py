"""Run a parser in a forked child with a deadline and a memory cap, and say how it ended.

Grammar libraries written in C can crash (a segfault takes the whole process with it) or go
quadratic on hostile input. In a child, a crash is an exit status and a runaway is a kill; the
caller gets a value either way and decides what it means (a finding, a bad-input error).
"""

from __future__ import annotations

import faulthandler
import multiprocessing
import os
import resource
import signal
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Generic, TypeVar

T = TypeVar("T")

DEFAULT_MEMORY_BYTES = 1 << 30


@dataclass(frozen=True, slots=True)
class Bounded(Generic[T]):
    """`value` when the child finished; else `failure` says why in a few words."""

    value: T | None
    failure: str | None = None


def _child(channel: Connection, function: Callable[..., Any], args: tuple[Any, ...],
           memory_bytes: int) -> None:
    # A crash here is an answer for the parent; no "Fatal Python error" dump in the log.
    faulthandler.disable()
    try:
        with open("/proc/self/statm") as stream:
            used = int(stream.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        limit = used + memory_bytes
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        channel.send(("ok", function(*args)))
    except MemoryError:
        channel.send(("failed", f"needed more than {memory_bytes >> 20} MiB"))
    except RecursionError:
        channel.send(("failed", "nested too deeply"))
    except Exception as error:  # any failure is an answer, never a traceback on stderr
        channel.send(("failed", f"failed ({type(error).__name__}: {error})"))
    finally:
        channel.close()


def run_bounded(function: Callable[..., T], *args: Any, seconds: float,
                memory_bytes: int = DEFAULT_MEMORY_BYTES) -> Bounded[T]:
    """`function(*args)` in a forked child: its result, or why there is none.

    The result travels back pickled, so keep it to plain data (tuples, strings, numbers).
    """
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(sender, function, args, memory_bytes),
                              daemon=True)
    process.start()
    sender.close()
    try:
        if not receiver.poll(seconds):
            return Bounded(None, f"did not finish within {seconds:g} s")
        try:
            status, payload = receiver.recv()
        except EOFError:
            process.join(timeout=5)
            return Bounded(None, _death(process.exitcode))
    finally:
        receiver.close()
        if process.is_alive():
            process.kill()
        process.join(timeout=10)
    if status != "ok":
        return Bounded(None, str(payload))
    return Bounded(payload)


def _death(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"crashed ({signal.Signals(-code).name})"
        except ValueError:
            return f"crashed (signal {-code})"
    return f"died (exit status {code})"
