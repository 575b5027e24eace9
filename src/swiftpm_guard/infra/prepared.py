"""A bounded child forked in advance: it prepares (imports a grammar) beside the parent's own
start-up and then serves one call, with the call's own deadline and memory cap."""

from __future__ import annotations

import contextlib
import faulthandler
import os
import select
import time
from collections.abc import Callable
from typing import Any

from swiftpm_guard.infra.bounded import DEFAULT_MEMORY_BYTES, Running, call_in_child
from swiftpm_guard.infra.child_reply import Ended, reply_for, write_all


def prepare_child(prepare: Callable[[], Any]) -> Prepared:
    """Fork now; the child runs `prepare()` (its imports, a grammar) at once, then waits for
    the one call it will serve. Started early, its preparation runs beside the parent's."""
    return Prepared(prepare)


class Prepared:
    """A child made ready in advance for one `call`; `cancel()` if it is not needed.

    The call's deadline and memory cap count from the call, not from the preparation. Where
    there is no fork nothing is prepared: the call starts a child of its own.
    """

    def __init__(self, prepare: Callable[[], Any]) -> None:
        self._running: Running | None = None
        self._pid: int | None = None
        self._requests = self._replies = -1
        if not hasattr(os, "fork"):
            return
        request_read, self._requests = os.pipe()
        self._replies, reply_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            os.close(self._requests)
            os.close(self._replies)
            _serve_prepared(request_read, reply_write, prepare)
        os.close(request_read)
        os.close(reply_write)
        self._pid = pid

    def call(self, function: Callable[..., Any], args: tuple[Any, ...], *, seconds: float,
             memory_bytes: int = DEFAULT_MEMORY_BYTES) -> Ended:
        """`function(*args)` in the prepared child, as `call_in_child` would run it."""
        if self._pid is None or self._requests < 0:
            return call_in_child(function, args, seconds=seconds, memory_bytes=memory_bytes)
        import pickle

        deadline = time.monotonic() + seconds
        request = pickle.dumps((function, args, memory_bytes), protocol=pickle.HIGHEST_PROTOCOL)
        sent = _write_by(self._requests, request, deadline)
        self._requests = -1  # closed by _write_by: the child reads to end of file
        self._running = Running(self._pid, self._replies, deadline)
        self._pid = None
        if not sent:
            self._running.cancel()
            return Ended("timeout")
        return self._running.wait()

    def cancel(self) -> None:
        """Stop the child: unused, it sees an empty request and exits; after its call, it is
        reaped (see `Running`). Nothing is left running or unreaped."""
        if self._running is not None:
            self._running.cancel()
        if self._pid is None:
            return
        os.close(self._requests)
        self._requests = -1
        Running(self._pid, self._replies, time.monotonic()).cancel()
        self._pid = None


def _serve_prepared(requests: int, channel: int, prepare: Callable[[], Any]) -> None:
    """The prepared child's life: prepare, read one request to end of file, answer, `_exit`."""
    import pickle

    code = 0
    try:
        faulthandler.disable()
        with contextlib.suppress(BaseException):  # the call finds out for itself, and says so
            prepare()
        chunks = []
        while chunk := os.read(requests, 1 << 20):
            chunks.append(chunk)
        if chunks:
            function, args, memory_bytes = pickle.loads(b"".join(chunks))
            write_all(channel, reply_for(function, args, memory_bytes))
    except BaseException:
        code = 70
    finally:
        os._exit(code)


def _write_by(channel: int, data: bytes, deadline: float) -> bool:
    """Write all of `data` and close, unless the deadline passes first (False)."""
    os.set_blocking(channel, False)
    poller = select.poll()
    poller.register(channel, select.POLLOUT)
    view = memoryview(data)
    try:
        while view:
            left = deadline - time.monotonic()
            if left <= 0 or not poller.poll(left * 1000):
                return False
            try:
                view = view[os.write(channel, view):]
            except BlockingIOError:
                continue
        return True
    except BrokenPipeError:  # the child is gone: its exit status will say how
        return True
    finally:
        os.close(channel)
