"""A loopback HTTP server for hosted zips that misbehaves on request.

Binds 127.0.0.1 port 0 in a daemon thread. Each path has a `Route`: bytes (with a status and
content type), a status only, a stall (bounded: it ends when the server stops), a redirect,
a body streamed from a generator (a 1 GB zip never sits in memory), or a number of 503s
before the bytes. `hits` counts requests per path so retries can be asserted.
"""

from __future__ import annotations

import contextlib
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Route:
    body: bytes = b""
    status: int = 200
    content_type: str = "application/zip"
    stall: float = 0.0  # seconds to wait before answering at all
    location: str | None = None  # redirect target
    stream: Callable[[], Iterable[bytes]] | None = None
    length: int | None = None  # Content-Length to announce (defaults to the body's)
    fail_first: int = 0  # answer 503 this many times first


class ZipServer:
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.hits: Counter[str] = Counter()
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self._server.server_address[1]}/"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def _answer(self, with_body: bool) -> None:
                path = self.path.split("?", 1)[0]
                with server._lock:
                    server.hits[path] += 1
                    hit = server.hits[path]
                route = server.routes.get(path)
                if route is None:
                    route = Route(b"<html>no such file</html>", 404, "text/html")
                if route.stall and server.stopping.wait(route.stall):
                    return
                if hit <= route.fail_first:
                    route = Route(b"busy", 503, "text/plain")
                self.send_response(route.status)
                if route.location:
                    self.send_header("Location", route.location)
                self.send_header("Content-Type", route.content_type)
                length = route.length if route.length is not None else len(route.body)
                self.send_header("Content-Length", str(length))
                self.send_header("Connection", "close")
                self.end_headers()
                if not with_body:
                    return
                chunks = route.stream() if route.stream else [route.body]
                try:
                    for chunk in chunks:
                        if server.stopping.is_set():
                            return
                        self.wfile.write(chunk)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading (not a zip, or a timeout): fine

            def do_GET(self) -> None:
                self._answer(True)

            def do_HEAD(self) -> None:
                self._answer(False)

        return Handler

    def url(self, path: str) -> str:
        return self.base + path.lstrip("/")


@contextlib.contextmanager
def serve_zips() -> Iterator[ZipServer]:
    server = ZipServer()
    thread = threading.Thread(target=server._server.serve_forever,
                              kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stopping.set()
        server._server.shutdown()
        server._server.server_close()
        thread.join(timeout=10)
