"""A loopback HTTP server that answers every request one byte each `interval` seconds, the
status line and headers included, for at most `seconds` (then it closes): what a socket
timeout never stops. It stops itself when the with-block ends.
"""

from __future__ import annotations

import socket
import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

ANSWER = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
          b"X-Padding: " + b"x" * 4096 + b"\r\n\r\n{}")


@dataclass
class DripServer:
    url: str
    stopping: threading.Event
    #: How many requests came in (each answered by its own dripping thread).
    requests: list[float] = field(default_factory=list)


def _read_request(conn: socket.socket) -> bool:
    conn.settimeout(10)
    seen = b""
    try:
        while b"\r\n\r\n" not in seen and len(seen) < 1 << 16:
            chunk = conn.recv(4096)
            if not chunk:
                return False
            seen += chunk
    except OSError:
        return False
    return True


def _drip(conn: socket.socket, server: DripServer, interval: float, seconds: float) -> None:
    ends = time.monotonic() + seconds
    with conn:
        if not _read_request(conn):
            return
        server.requests.append(time.monotonic())
        for byte in ANSWER:
            if server.stopping.wait(interval) or time.monotonic() > ends:
                return
            try:
                conn.sendall(bytes([byte]))
            except OSError:
                return  # the client hung up: what the test wants


@contextmanager
def serve_drip(*, interval: float = 0.5, seconds: float = 60.0,
               tls: ssl.SSLContext | None = None) -> Iterator[DripServer]:
    """`http(s)://127.0.0.1:PORT` dripping its answer; every thread ends with the block."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    port = listener.getsockname()[1]
    scheme = "https" if tls else "http"
    server = DripServer(f"{scheme}://127.0.0.1:{port}", threading.Event())
    threads: list[threading.Thread] = []

    def accept() -> None:
        while not server.stopping.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            if tls is not None:
                try:
                    conn.settimeout(10)
                    conn = tls.wrap_socket(conn, server_side=True)
                except OSError:
                    conn.close()
                    continue
            worker = threading.Thread(target=_drip, args=(conn, server, interval, seconds),
                                      daemon=True)
            threads.append(worker)
            worker.start()

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    try:
        yield server
    finally:
        server.stopping.set()
        acceptor.join(5)
        listener.close()
        for worker in threads:
            worker.join(5)
