"""A package index on loopback that takes uploads the way PyPI does, for the release dry run.

    python3 scripts/local_index.py ROOT [--port N]

serves on 127.0.0.1 only (never another address), until interrupted:

- `POST /` (also `/legacy/`): the upload API twine speaks (multipart/form-data with
  `:action=file_upload`, `name`, `version`, the file as `content` and its `sha256_digest`);
  the file is stored as ROOT/<normalized name>/<filename>. Like PyPI it refuses a file that
  is already there (a version's files are never replaced), a digest that does not match,
  a file name that is not a wheel or sdist of the named project, and more than 200 MiB.
- `GET /simple/` and `GET /simple/<name>/`: the simple repository API (PEP 503) pip reads,
  each file linked with its `#sha256=` so pip checks what it downloads.
- `GET /packages/<name>/<filename>`: the file.

Any user name and password are accepted: nothing here is reachable from another machine.
`serve(root)` runs it in a thread of the calling process (scripts/release_dry_run.py and the
tests do); standard library only.
"""

from __future__ import annotations

import argparse
import email.message
import email.parser
import hashlib
import html
import re
import threading
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

MAX_UPLOAD = 200 * 1024 * 1024
FILENAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*(?:\.whl|\.tar\.gz)")
SHA256_RE = re.compile(r"[0-9a-f]{64}")


def normalize(name: str) -> str:
    """PEP 503's normalized project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_multipart(body: bytes, boundary: bytes) -> dict[str, tuple[str | None, bytes]]:
    """multipart/form-data fields by name: (filename or None, bytes). The first of a repeated
    name wins (the upload API repeats only metadata this index does not read)."""
    fields: dict[str, tuple[str | None, bytes]] = {}
    delimiter = b"\r\n--" + boundary
    parts = (b"\r\n" + body).split(delimiter)
    if len(parts) < 3 or not parts[-1].startswith(b"--"):
        raise ValueError("not a complete multipart/form-data body")
    for part in parts[1:-1]:
        if not part.startswith(b"\r\n"):
            raise ValueError("a multipart delimiter is not followed by a line break")
        head, separator, content = part[2:].partition(b"\r\n\r\n")
        if not separator:
            raise ValueError("a multipart part has no header end")
        headers = email.parser.BytesHeaderParser().parsebytes(head + b"\r\n\r\n")
        name = headers.get_param("name", header="content-disposition")
        if not isinstance(name, str):
            raise ValueError("a multipart part has no name")
        fields.setdefault(name, (headers.get_filename(), content))
    return fields


@dataclass(frozen=True)
class Upload:
    project: str
    version: str
    filename: str
    sha256: str


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet: the dry run prints what happened itself

    def _send(self, status: HTTPStatus, body: bytes, content_type: str = "text/plain") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _refuse(self, status: HTTPStatus, message: str) -> None:
        # PyPI puts the reason in the status line too; twine shows it.
        self.send_response(status, message)
        body = (message + "\n").encode()
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        if urlsplit(self.path).path not in ("/", "/legacy/"):
            return self._refuse(HTTPStatus.NOT_FOUND, "uploads go to / or /legacy/")
        length = self.headers.get("Content-Length", "")
        if not length.isdigit():
            return self._refuse(HTTPStatus.LENGTH_REQUIRED, "Content-Length is required")
        if int(length) > MAX_UPLOAD:
            self.close_connection = True
            return self._refuse(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "upload too large")
        body = self.rfile.read(int(length))
        message = email.message.Message()
        message["Content-Type"] = self.headers.get("Content-Type", "")
        boundary = message.get_param("boundary")
        if message.get_content_type() != "multipart/form-data" or not isinstance(boundary, str):
            return self._refuse(HTTPStatus.BAD_REQUEST, "expected multipart/form-data")
        try:
            fields = parse_multipart(body, boundary.encode("latin-1"))
            upload = self.server.index.store(fields)
        except ValueError as error:
            return self._refuse(HTTPStatus.BAD_REQUEST, str(error))
        except FileExistsError as error:
            return self._refuse(HTTPStatus.BAD_REQUEST, f"File already exists: {error}")
        self._send(HTTPStatus.OK, f"stored {upload.filename}\n".encode())

    def do_GET(self) -> None:
        path = unquote(urlsplit(self.path).path)
        index = self.server.index
        if path == "/simple/":
            links = "".join(f'<a href="{html.escape(p)}/">{html.escape(p)}</a>\n'
                            for p in index.projects())
            return self._page("Simple index", links)
        match = re.fullmatch(r"/simple/([^/]+)/?", path)
        if match:
            project = match.group(1)
            if normalize(project) != project or not path.endswith("/"):
                self.send_response(HTTPStatus.MOVED_PERMANENTLY)
                self.send_header("Location", f"/simple/{normalize(project)}/")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return None
            files = index.files(project)
            if not files:
                return self._refuse(HTTPStatus.NOT_FOUND, f"no project {project}")
            links = "".join(
                f'<a href="../../packages/{project}/{html.escape(name)}#sha256={digest}">'
                f"{html.escape(name)}</a><br>\n" for name, digest in files)
            return self._page(f"Links for {project}", links)
        match = re.fullmatch(r"/packages/([^/]+)/([^/]+)", path)
        if match and FILENAME_RE.fullmatch(match.group(2)):
            file = index.root / normalize(match.group(1)) / match.group(2)
            if file.is_file():
                return self._send(HTTPStatus.OK, file.read_bytes(), "application/octet-stream")
        return self._refuse(HTTPStatus.NOT_FOUND, "not found")

    do_HEAD = do_GET

    def _page(self, title: str, links: str) -> None:
        text = (f"<!DOCTYPE html>\n<html><head><meta name=\"pypi:repository-version\" "
                f"content=\"1.0\"><title>{title}</title></head><body>\n{links}</body></html>\n")
        self._send(HTTPStatus.OK, text.encode(), "text/html; charset=utf-8")


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, index: LocalIndex, port: int) -> None:
        self.index = index
        super().__init__(("127.0.0.1", port), _Handler)


class LocalIndex:
    """The index's files under `root` and, once `start`ed, its server on 127.0.0.1."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.uploads: list[Upload] = []
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self._server is not None, "not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def projects(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if p.is_dir())

    def files(self, project: str) -> list[tuple[str, str]]:
        folder = self.root / normalize(project)
        if not folder.is_dir():
            return []
        return [(f.name, hashlib.sha256(f.read_bytes()).hexdigest())
                for f in sorted(folder.iterdir()) if f.is_file() and not f.name.startswith(".")]

    def store(self, fields: dict[str, tuple[str | None, bytes]]) -> Upload:
        def text(name: str) -> str:
            value = fields.get(name)
            if value is None or value[0] is not None:
                raise ValueError(f"missing form field {name!r}")
            return value[1].decode("utf-8", "replace").strip()

        if text(":action") != "file_upload":
            raise ValueError(":action must be file_upload")
        project, version = text("name"), text("version")
        filename, data = fields.get("content", (None, b""))
        if filename is None:
            raise ValueError("missing the file (form field 'content')")
        filename = filename.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
        if not FILENAME_RE.fullmatch(filename):
            raise ValueError(f"{filename!r} is not a wheel or sdist file name")
        stem = filename.removesuffix(".tar.gz").removesuffix(".whl")
        file_project, _, rest = stem.partition("-")
        if normalize(file_project) != normalize(project) or (
                rest != version and not rest.startswith(f"{version}-")):
            raise ValueError(f"{filename!r} is not a file of {project} {version}")
        digest = hashlib.sha256(data).hexdigest()
        claimed = fields.get("sha256_digest")
        if claimed is not None and claimed[1].decode("ascii", "replace").strip() != digest:
            raise ValueError("sha256_digest does not match the uploaded file")
        folder = self.root / normalize(project)
        with self._lock:
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / filename
            if target.exists():
                raise FileExistsError(filename)
            partial = folder / f".{filename}.partial"
            partial.write_bytes(data)
            partial.rename(target)
            upload = Upload(project, version, filename, digest)
            self.uploads.append(upload)
        return upload

    def start(self, port: int = 0) -> LocalIndex:
        self._server = _Server(self, port)
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.2}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._server = self._thread = None


def serve(root: Path, port: int = 0) -> LocalIndex:
    return LocalIndex(root).start(port)


def main() -> int:
    parser = argparse.ArgumentParser(description="A package index on 127.0.0.1 for dry runs.")
    parser.add_argument("root", type=Path)
    parser.add_argument("--port", type=int, default=0)
    options = parser.parse_args()
    index = serve(options.root, options.port)
    print(f"local index at {index.url}/ (uploads), {index.url}/simple/ (pip)", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        index.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
