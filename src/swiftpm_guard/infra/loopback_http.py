"""A folder served read-only over plain HTTP on 127.0.0.1 for the length of a with-block.

For git's dumb HTTP protocol: a bare repository after `git update-server-info` is a set of
plain files, so a consumer's SwiftPM can clone it by URL with no git-http-backend. Loopback
only, an ephemeral port, a socket timeout per request, nothing logged.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

#: A request that stalls this long is dropped; the resolve then fails and says so.
REQUEST_SECONDS = 30.0


class _Handler(SimpleHTTPRequestHandler):
    timeout = REQUEST_SECONDS

    def log_message(self, format: str, *args: object) -> None:
        return  # the runner's log is not the place for a loopback server's lines


@contextmanager
def serve_folder(folder: Path) -> Iterator[str]:
    """`http://127.0.0.1:PORT/` serving `folder` until the block ends."""
    handler = functools.partial(_Handler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                              name="swiftpm-guard-loopback-http", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=REQUEST_SECONDS)
