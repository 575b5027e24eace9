"""Run a function in a forked child with a deadline and a memory cap, and say how it ended.

Grammar libraries written in C can crash (a segfault takes the whole process with it) or go
quadratic on hostile input, and a PR's Jinja template can loop for hours. In a child, a crash
is an exit status and a runaway is a kill; the caller gets a value either way and decides what
it means (a finding, a bad-input error).

A bare `os.fork` and a pipe, not multiprocessing: a check forks twice (bash, Swift), and
multiprocessing's import and process bookkeeping cost more than the parses themselves; the child
here also never flushes the parent's buffered output, never runs its atexit handlers, and never
returns into the parent's stack.
"""

from __future__ import annotations

import faulthandler
import os
import select
import signal
import time
from collections.abc import Callable
from typing import Any, Generic, NamedTuple, TypeVar

from swiftpm_guard.infra.child_reply import Ended, ended_from, reply_for, write_all
from swiftpm_guard.infra.spawned import EXIT_GRACE_SECONDS, Spawned

T = TypeVar("T")

DEFAULT_MEMORY_BYTES = 1 << 30
#: A reply is what our own code computed from capped input; more than this is a runaway.
MAX_REPLY_BYTES = 256 << 20


class Bounded(NamedTuple, Generic[T]):
    """`value` when the child finished; else `failure` says why in a few words."""

    value: T | None
    failure: str | None = None


def run_bounded(function: Callable[..., T], *args: Any, seconds: float,
                memory_bytes: int = DEFAULT_MEMORY_BYTES) -> Bounded[T]:
    """`function(*args)` in a forked child: its result, or why there is none.

    The result travels back pickled, so keep it to plain data and frozen values.
    """
    ended = call_in_child(function, args, seconds=seconds, memory_bytes=memory_bytes)
    if ended.kind == "ok":
        return Bounded(ended.payload)
    return Bounded(None, describe(ended, seconds=seconds, memory_bytes=memory_bytes))


def describe(ended: Ended, *, seconds: float, memory_bytes: int) -> str:
    """A few words on why a child gave no result ("did not finish within 10 s")."""
    if ended.kind == "timeout":
        return f"did not finish within {seconds:g} s"
    if ended.kind == "memory":
        return f"needed more than {memory_bytes >> 20} MiB"
    if ended.kind == "recursion":
        return "nested too deeply"
    if ended.kind == "guard":
        return f"failed ({ended.payload[0]})"
    if ended.kind == "raised":
        return f"failed ({ended.payload})"
    return str(ended.payload)


def call_in_child(function: Callable[..., Any], args: tuple[Any, ...], *, seconds: float,
                  memory_bytes: int = DEFAULT_MEMORY_BYTES) -> Ended:
    """Fork, run `function(*args)` in the child under the caps, and say how it ended."""
    child = start_in_child(function, args, seconds=seconds, memory_bytes=memory_bytes)
    try:
        return child.wait()
    finally:
        child.cancel()


def start_in_child(function: Callable[..., Any], args: tuple[Any, ...], *, seconds: float,
                   memory_bytes: int = DEFAULT_MEMORY_BYTES) -> Child:
    """Fork now and run `function(*args)` in the child; `wait()` for how it ended.

    The deadline counts from now. Started before the parent's own slow work (its imports),
    the child's work runs beside it on another core instead of after it. Where there is no
    fork (Windows runners, with the composite action) the child is a spawned interpreter.
    """
    if not hasattr(os, "fork"):
        return Spawned(function, args, seconds=seconds, memory_bytes=memory_bytes)
    read_fd, write_fd = os.pipe()
    deadline = time.monotonic() + seconds
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_fd)
        _serve(write_fd, function, args, memory_bytes)
    os.close(write_fd)
    return Running(pid, read_fd, deadline)


class Running:
    """A child started by `start_in_child`: `wait()` for its answer, then `cancel()` (which
    kills it if it is still working, and reaps it either way; the owner calls it once done).

    A child that has answered is left to exit while the caller goes on: reaping it at once
    would wait for it to unmap its memory, a millisecond on a check's critical path.
    """

    def __init__(self, pid: int, channel: int, deadline: float) -> None:
        self._pid: int | None = pid
        self._channel = channel
        self._deadline = deadline
        self._ended: Ended | None = None

    def wait(self) -> Ended:
        """How the child ended; at the deadline it is killed and the answer is `timeout`."""
        if self._ended is not None:
            return self._ended
        import pickle  # noqa: F401 (loaded while the child works, not once its answer is here)

        reply: bytes | None = None
        try:
            reply = _read_reply(self._channel, self._deadline)
        finally:
            os.close(self._channel)
            self._channel = -1
            if reply is None or reply is _OVERSIZE:  # no answer (or our own interrupt)
                self.cancel()
        if reply is _OVERSIZE:
            self._ended = Ended("raised",
                                f"answered with more than {MAX_REPLY_BYTES >> 20} MiB")
        else:
            self._ended = ended_from(reply, self._death)
        return self._ended

    def _death(self) -> str:
        """How a child that closed its pipe without answering ended (it is reaped here)."""
        pid, self._pid = self._pid, None
        return _death(_reap(pid, EXIT_GRACE_SECONDS)) if pid is not None else "died"

    def cancel(self) -> None:
        """Kill the child if it is still working, and reap it (an answered child is given
        EXIT_GRACE_SECONDS to exit by itself); nothing is left running or unreaped."""
        if self._channel >= 0:
            os.close(self._channel)
            self._channel = -1
        if self._pid is not None:
            pid, self._pid = self._pid, None
            answered = self._ended is not None and self._ended.kind != "timeout"
            _reap(pid, EXIT_GRACE_SECONDS if answered else 0.0)
        if self._ended is None:
            self._ended = Ended("timeout")


#: A started child, forked or spawned.
Child = Running | Spawned


def _serve(channel: int, function: Callable[..., Any], args: tuple[Any, ...],
           memory_bytes: int) -> None:
    """The child's whole life: run, write one pickled reply, `_exit` whatever happens."""
    code = 0
    try:
        # A crash here is an answer for the parent; no "Fatal Python error" dump in the log.
        faulthandler.disable()
        write_all(channel, reply_for(function, args, memory_bytes))
    except BaseException:
        code = 70
    finally:
        os._exit(code)


#: What `_read_reply` returns for a reply over MAX_REPLY_BYTES (compared by identity).
_OVERSIZE = b"\0oversize"


def _read_reply(channel: int, deadline: float) -> bytes | None:
    """Everything the child wrote, up to end of file; None when the deadline passed first."""
    poller = select.poll()
    poller.register(channel, select.POLLIN)
    chunks: list[bytes] = []
    size = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not poller.poll(left * 1000):
            return None
        chunk = os.read(channel, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_REPLY_BYTES:
            return _OVERSIZE
        chunks.append(chunk)


def _reap(pid: int, grace: float) -> int:
    """The child's wait status, killing it if it has not exited within `grace` seconds."""
    if grace > 0 and _exits_within(pid, grace):
        return os.waitpid(pid, 0)[1]
    os.kill(pid, signal.SIGKILL)
    return os.waitpid(pid, 0)[1]


def _exits_within(pid: int, grace: float) -> bool:
    """Whether the child exits (or has exited) within `grace` seconds; it is not reaped.

    A pidfd wakes us the moment it exits (a child that has answered is unmapping its memory:
    a millisecond, which polling with sleeps would round up); elsewhere, short polls.
    """
    try:
        handle = os.pidfd_open(pid)
    except (AttributeError, OSError):  # not Linux 5.3+, or no pidfd for this process
        return _polled_exit(pid, grace)
    try:
        poller = select.poll()
        poller.register(handle, select.POLLIN)
        return bool(poller.poll(grace * 1000))
    finally:
        os.close(handle)


def _polled_exit(pid: int, grace: float) -> bool:
    stop = time.monotonic() + grace
    pause = 0.00005
    while os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
        if time.monotonic() >= stop:
            return False
        time.sleep(pause)
        pause = min(pause * 2, 0.01)
    return True


def _death(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            return f"crashed ({signal.Signals(number).name})"
        except ValueError:
            return f"crashed (signal {number})"
    return f"died (exit status {os.waitstatus_to_exitcode(status)})"
