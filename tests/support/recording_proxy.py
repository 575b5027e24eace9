"""A loopback HTTP proxy that records every request it is sent (issue 32's proxy tests).

Binds 127.0.0.1 port 0 in a daemon thread. Each request is recorded as (method, target,
headers), a `CONNECT` too. With `forward`, a plain-http request in absolute form
(`GET http://127.0.0.1:PORT/x`) is passed on to its loopback target and the answer relayed
(redirects included, unfollowed); everything else, and every request without `forward`, is
answered 502: a client that used this proxy by mistake fails loudly. Targets other than
127.0.0.1 and localhost are refused (the tests never leave loopback).
"""

from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

_LOOPBACK = ("127.0.0.1", "localhost")
_HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "proxy-authorization",
               "transfer-encoding", "te", "trailer", "upgrade"}


@dataclass(frozen=True)
class Seen:
    method: str
    target: str
    headers: dict[str, str]


class RecordingProxy:
    def __init__(self, forward: bool) -> None:
        self.forward = forward
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def text(self) -> str:
        """Everything recorded, as one string to search for a token."""
        return "\n".join(f"{s.method} {s.target} {s.headers}" for s in self.seen)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                return

            def _record(self) -> bytes:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with proxy._lock:
                    proxy.seen.append(Seen(self.command, self.path, dict(self.headers)))
                return body

            def _refuse(self) -> None:
                self.send_response(502)
                self.send_header("Content-Length", "0")
                self.send_header("Connection", "close")
                self.end_headers()

            def _relay(self) -> None:
                body = self._record()
                target = urlsplit(self.path)
                if not proxy.forward or target.scheme != "http" or target.hostname not in _LOOPBACK:
                    self._refuse()
                    return
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() not in _HOP_BY_HOP}
                path = target.path + (f"?{target.query}" if target.query else "")
                upstream = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
                try:
                    upstream.request(self.command, path or "/", body=body or None,
                                     headers=headers)
                    answer = upstream.getresponse()
                    data = answer.read()
                finally:
                    upstream.close()
                self.send_response(answer.status, answer.reason)
                for key, value in answer.getheaders():
                    if key.lower() not in _HOP_BY_HOP and key.lower() != "content-length":
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            def do_CONNECT(self) -> None:
                self._record()
                self._refuse()

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = do_HEAD = _relay

        return Handler


@contextmanager
def recording_proxy(*, forward: bool = False) -> Iterator[RecordingProxy]:
    proxy = RecordingProxy(forward)
    thread = threading.Thread(target=proxy._server.serve_forever,
                              kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        proxy._server.shutdown()
        proxy._server.server_close()
        thread.join(timeout=10)
