"""Smart HTTP git on loopback: `git http-backend` as CGI behind a small threaded http.server.

Bound to 127.0.0.1 on an ephemeral port; every CGI run has a timeout and every socket a read
timeout, so a stuck client or backend ends by itself. When `token` is set, a request without
the exact `Authorization: Basic base64(x-access-token:<token>)` header gets 401, like GitHub.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

CGI_TIMEOUT = 60
SOCKET_TIMEOUT = 60


def backend_path() -> str:
    exec_path = subprocess.run(
        ["git", "--exec-path"], capture_output=True, text=True, check=True, timeout=10
    ).stdout.strip()
    backend = Path(exec_path) / "git-http-backend"
    if not backend.exists():
        raise RuntimeError(f"git-http-backend not found in {exec_path}")
    return str(backend)


class GitHttpServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, project_root: Path, token: str | None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.project_root = project_root
        self.token = token
        self.backend = backend_path()
        self.lock = threading.Lock()
        self.authorizations: list[str | None] = []  # every request's header, in order
        self.requests: list[str] = []  # "METHOD path?query status"

    def url(self, repo: str) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/{repo}"

    def expected_authorization(self) -> str | None:
        if self.token is None:
            return None
        pair = base64.b64encode(f"x-access-token:{self.token}".encode()).decode()
        return f"Basic {pair}"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = SOCKET_TIMEOUT
    server: GitHttpServer

    def log_message(self, format: str, *args: object) -> None:
        pass  # keep test output clean; requests are recorded on the server

    def do_GET(self) -> None:
        self._cgi()

    def do_POST(self) -> None:
        self._cgi()

    def _body(self) -> bytes:
        return read_body(self)

    def _cgi(self) -> None:
        server = self.server
        authorization = self.headers.get("Authorization")
        path, _, query = self.path.partition("?")
        body = self._body()
        expected = server.expected_authorization()
        with server.lock:
            server.authorizations.append(authorization)
        if expected is not None and authorization != expected:
            self._reply(401, {"WWW-Authenticate": 'Basic realm="git"'}, b"unauthorized\n")
            return
        status, headers, payload = http_backend(self, server.backend, server.project_root, path,
                                                query, body)
        with server.lock:
            server.requests.append(f"{self.command} {self.path} {status}")
        self._reply(status, headers, payload)

    def _reply(self, status: int, headers: dict[str, str], payload: bytes) -> None:
        self.send_response(status)
        for name, value in headers.items():
            if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def read_body(handler: BaseHTTPRequestHandler) -> bytes:
    """A request's body, chunked (git's large pushes) or by Content-Length."""
    if handler.headers.get("Transfer-Encoding", "").lower() == "chunked":
        chunks = []
        while True:
            size = int(handler.rfile.readline().split(b";")[0].strip(), 16)
            if size == 0:
                handler.rfile.readline()
                return b"".join(chunks)
            chunks.append(handler.rfile.read(size))
            handler.rfile.readline()
    length = int(handler.headers.get("Content-Length") or 0)
    return handler.rfile.read(length) if length else b""


def http_backend(handler: BaseHTTPRequestHandler, backend: str, project_root: Path, path: str,
                 query: str, body: bytes) -> tuple[int, dict[str, str], bytes]:
    """One request answered by `git http-backend` (CGI): status, headers and payload."""
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "GIT_PROJECT_ROOT": str(project_root),
        "GIT_HTTP_EXPORT_ALL": "1",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "REQUEST_METHOD": handler.command,
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "CONTENT_TYPE": handler.headers.get("Content-Type", ""),
        "CONTENT_LENGTH": str(len(body)),
        "REMOTE_ADDR": handler.client_address[0],
        "REMOTE_USER": "publisher",  # authorised by the caller; lets receive-pack run
        "GIT_COMMITTER_NAME": "server",
        "GIT_COMMITTER_EMAIL": "server@example.invalid",
    }
    for header, variable in (
        ("Content-Encoding", "HTTP_CONTENT_ENCODING"),
        ("Git-Protocol", "HTTP_GIT_PROTOCOL"),
    ):
        if handler.headers.get(header):
            env[variable] = handler.headers[header]
    try:
        result = subprocess.run([backend], input=body, env=env, capture_output=True,
                                timeout=CGI_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        return 504, {}, b"backend timed out\n"
    head, separator, payload = result.stdout.partition(b"\r\n\r\n")
    if not separator:
        head, _, payload = result.stdout.partition(b"\n\n")
    status, headers = 200, {}
    for line in head.decode("latin-1").splitlines():
        name, _, value = line.partition(":")
        if name.lower() == "status":
            status = int(value.split()[0])
        elif name:
            headers[name.strip()] = value.strip()
    return status, headers, payload


@contextmanager
def git_http_server(project_root: Path, token: str | None = None) -> Iterator[GitHttpServer]:
    """Serve every repository under `project_root` until the block ends."""
    if shutil.which("git") is None:
        raise RuntimeError("git is required for the HTTP remote tests")
    server = GitHttpServer(project_root, token)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@contextmanager
def serve_git(root: Path) -> Iterator[str]:
    """Yield the base URL (`http://127.0.0.1:PORT/`) serving every repository under `root`."""
    with git_http_server(root) as server:
        yield server.url("")


class RedirectServer(ThreadingHTTPServer):
    """Answers every request with a redirect to the same path under `target` (another origin).

    Records every request's `Authorization` header, so a test can tell whether a client that
    was redirected away had already sent it here (it may: this is the origin it trusts).
    """

    daemon_threads = True

    def __init__(self, target: str, status: int = 302) -> None:
        super().__init__(("127.0.0.1", 0), _RedirectHandler)
        self.target = target.rstrip("/")
        self.status = status
        self.requests: list[str] = []

    def url(self, repo: str) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/{repo}"


class _RedirectHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = SOCKET_TIMEOUT
    server: RedirectServer

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self._redirect()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        self._redirect()

    def _redirect(self) -> None:
        self.server.requests.append(f"{self.command} {self.path}")
        self.send_response(self.server.status)
        self.send_header("Location", self.server.target + self.path)
        self.send_header("Content-Length", "0")
        self.end_headers()


@contextmanager
def redirect_server(target: str, status: int = 302) -> Iterator[RedirectServer]:
    """A loopback server redirecting every request to `target` + its path, until the block ends."""
    server = RedirectServer(target, status)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
