"""A wall-clock deadline for an HTTP request: connect, status line, headers and body.

A socket timeout bounds one wait, so a server that sends a byte every half second never trips
it. Here every socket a request opens or reuses is watched while a `Deadline` is current on
the thread; when it passes, a timer shuts each one down and the blocked read returns at once
(end of file or an error), which the caller reports as the deadline it is (`expired`). One
implementation for urllib (the hosted zips) and requests (the GitHub API through PyGithub):
each only needs connection classes that call `watch` on the sockets they use.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

_current = threading.local()


class Deadline:
    """Sockets watched until `seconds` from now; at that moment each is shut down."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._ends = time.monotonic() + seconds
        self._lock = threading.Lock()
        self._watched: list[socket.socket] = []
        self._expired = False
        self._timer = threading.Timer(max(seconds, 0.0), self._expire)
        self._timer.daemon = True
        self._timer.start()

    @property
    def expired(self) -> bool:
        return self._expired

    def left(self) -> float:
        return max(self._ends - time.monotonic(), 0.0)

    def cap(self, timeout: float | None) -> float:
        """A connect or read timeout no longer than the time left (never 0: that is
        non-blocking)."""
        left = max(self.left(), 0.001)
        return left if timeout is None else min(timeout, left)

    def watch(self, sock: socket.socket) -> None:
        """Shut `sock` down when the deadline passes (at once if it has). A duplicate of its
        descriptor is held: the library may close its own meanwhile, and the number be reused
        by another file, never shut by mistake."""
        try:
            copy = socket.socket(fileno=os.dup(sock.fileno()))
        except OSError:
            return  # closed already: nothing left to wait on
        with self._lock:
            self._watched.append(copy)
            if self._expired:
                _shut(copy)

    def _expire(self) -> None:
        with self._lock:
            self._expired = True
            for sock in self._watched:
                _shut(sock)

    def close(self) -> None:
        self._timer.cancel()
        with self._lock:
            for sock in self._watched:
                sock.close()
            self._watched.clear()


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # the peer or the library closed it first
        sock.shutdown(socket.SHUT_RDWR)


@contextlib.contextmanager
def bounded(seconds: float) -> Iterator[Deadline]:
    """A Deadline current on this thread for the block (the sockets opened or reused in it
    are watched); the previous one, if any, is current again afterwards."""
    deadline = Deadline(seconds)
    outer = getattr(_current, "deadline", None)
    _current.deadline = deadline
    try:
        yield deadline
    finally:
        _current.deadline = outer
        deadline.close()


def current() -> Deadline | None:
    """The Deadline current on this thread, if any."""
    found: Deadline | None = getattr(_current, "deadline", None)
    return found


def watch_current(sock: Any) -> None:
    """Watch `sock` with the current Deadline (no Deadline, or no socket: nothing to do)."""
    deadline = current()
    if deadline is not None and isinstance(sock, socket.socket):
        deadline.watch(sock)


# -- http.client (urllib): each connection's socket watched from the moment it exists ----------


def _create_connection(address: tuple[str, int], timeout: Any = None,
                       source_address: Any = None, **kwargs: Any) -> socket.socket:
    """`socket.create_connection` with its timeout cut to the time left, its socket watched."""
    deadline = current()
    if deadline is not None:
        timeout = deadline.cap(timeout if isinstance(timeout, int | float) else None)
    sock = socket.create_connection(address, timeout, source_address, **kwargs)
    watch_current(sock)
    return sock


class HTTPConnection(http.client.HTTPConnection):
    """http.client's connection under the current Deadline (none current: as it was)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._create_connection = _create_connection


class HTTPSConnection(http.client.HTTPSConnection):
    """http.client's TLS connection under the current Deadline (its TLS handshake too)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._create_connection = _create_connection
