"""A loopback HTTP server for hosted zips that misbehaves on request.

Binds 127.0.0.1 port 0 in a daemon thread. Each path has a `Route`: bytes (with a status and
content type), a status only, a stall (bounded: it ends when the server stops), a redirect,
a body streamed from a generator (a 1 GB zip never sits in memory), or a number of 503s
before the bytes; a body's `Range: bytes=A-B` is honoured unless the route says not.
`hits` counts requests per path so retries can be asserted, `sent` the body bytes written. With `tls`
(a server SSLContext, e.g. from support/tls.py) it serves HTTPS at `https://127.0.0.1:PORT/`.
"""

from __future__ import annotations

import contextlib
import re
import ssl
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
    ranges: bool = True  # honour `Range: bytes=A-B` on a body (206, Content-Range)
    sized: bool = True  # announce the size (Content-Length, Content-Range's total)


class _TLSServer(ThreadingHTTPServer):
    """Handshakes in the handler's thread, so one client that never finishes blocks nobody."""

    context: ssl.SSLContext

    def get_request(self):  # type: ignore[no-untyped-def]
        sock, address = super().get_request()
        return self.context.wrap_socket(sock, server_side=True,
                                        do_handshake_on_connect=False), address

    def finish_request(self, request, client_address):  # type: ignore[no-untyped-def]
        request.settimeout(30)
        try:
            request.do_handshake()
        except (ssl.SSLError, OSError):
            return  # a client that does not trust the CA gives up here
        super().finish_request(request, client_address)


class ZipServer:
    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.routes: dict[str, Route] = {}
        self.hits: Counter[str] = Counter()
        self.sent: Counter[str] = Counter()
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        if tls is None:
            self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        else:
            self._server = _TLSServer(("127.0.0.1", 0), self._handler())
            self._server.context = tls
        self._server.daemon_threads = True
        scheme = "https" if tls is not None else "http"
        self.base = f"{scheme}://127.0.0.1:{self._server.server_address[1]}/"

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
                body, status, span = route.body, route.status, None
                wanted = re.fullmatch(r"bytes=([0-9]+)-([0-9]+)", self.headers.get("Range", ""))
                if wanted and route.ranges and route.stream is None and status == 200:
                    first, last = int(wanted[1]), min(int(wanted[2]), len(body) - 1)
                    body, status = body[first:last + 1], 206
                    span = f"bytes {first}-{last}/{len(route.body) if route.sized else '*'}"
                self.send_response(status)
                if route.location:
                    self.send_header("Location", route.location)
                self.send_header("Content-Type", route.content_type)
                if span is not None:
                    self.send_header("Content-Range", span)
                length = route.length if route.length is not None and span is None else len(body)
                if route.sized:
                    self.send_header("Content-Length", str(length))
                self.send_header("Connection", "close")
                self.end_headers()
                if not with_body:
                    return
                chunks = route.stream() if route.stream else [body]
                try:
                    for chunk in (c for c in chunks if c):
                        if server.stopping.is_set():
                            return
                        self.wfile.write(chunk)
                        with server._lock:
                            server.sent[path] += len(chunk)
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
def serve_zips(tls: ssl.SSLContext | None = None) -> Iterator[ZipServer]:
    server = ZipServer(tls)
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
