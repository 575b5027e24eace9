"""Fetch hosted zips the way SwiftPM does and compare the bytes with the manifest's checksum.

Every zip is streamed through SHA-256 (one socket read of at most 64 KiB at a time) on a bounded
thread pool, with a timeout per connect and read, a wall-clock deadline per request covering
connect, status line, headers and body (infra.http_deadline: a server that drips a byte every
half second is cut at it) and bounded retries for what may
pass (timeouts, resets, 5xx, 429); 404/410 are final, and a body that does not begin like a zip
(a CDN's HTML page with status 200) is caught unhashed. The spooled archive is then judged as
SwiftPM judges it (tests/integration/test_resolve_oracle.py), by the built zips' rules
(sources/zip_archive.py, in this thread: the download pool is running): a zip outside the
accepted shape, or an entry refused, is `url-not-zip`; anything but one `X.xcframework/`
with XCFramework metadata at its root is `url-no-artifact`; a symlink out of the archive or
its bundle `zip-link`; with `verify_zips` every entry's data is checked, bounded per zip
(`zip-unverified` past the bound).
"""

from __future__ import annotations

import errno
import hashlib
import http.client
import socket
import ssl
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import IO

from swiftpm_guard import __version__
from swiftpm_guard.core.model import Finding, HostedStats, Severity
from swiftpm_guard.core.option_names import option
from swiftpm_guard.core.urls import HostedZip, UrlSettings
from swiftpm_guard.core.zip_rules import extraction_problem, link_findings, shape_problem
from swiftpm_guard.errors import ZipProblem
from swiftpm_guard.infra import http_deadline
from swiftpm_guard.infra.http_deadline import Deadline
from swiftpm_guard.infra.network import opener
from swiftpm_guard.sources.zip_archive import FullCheck, read_zip_contents

#: One socket read at most.
_READ = 64 * 1024
#: Local file header, empty archive, spanned archive: the ways a zip file can begin.
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")
_MISSING = frozenset({404, 410})
_TRANSIENT = frozenset({408, 425, 429, 500, 502, 503, 504})
_BACKOFF = 0.5


class _Transient(Exception):
    """A failure worth retrying; the message says what happened."""


class _Final(Exception):
    """A failure not worth retrying (a 403, a redirect to another scheme)."""


class _Unreachable(Exception):
    """No answer from the host at all (DNS, connect, TLS): nothing about the zip is known.
    `final`: retrying cannot help (a certificate that does not verify)."""

    def __init__(self, message: str, *, final: bool = False) -> None:
        super().__init__(message)
        self.final = final


def _unreachable(reason: object) -> _Unreachable | None:
    """The host could not be reached, in words; None for any other failure."""
    if isinstance(reason, socket.gaierror):
        return _Unreachable(f"DNS: the host name does not resolve ({reason})")
    if isinstance(reason, ssl.SSLCertVerificationError | ssl.CertificateError):
        return _Unreachable(f"TLS: the certificate does not verify ({reason})", final=True)
    if isinstance(reason, ssl.SSLError):
        return _Unreachable(f"TLS: {reason}")
    if isinstance(reason, ConnectionRefusedError):
        return _Unreachable(f"connect: refused ({reason})")
    if isinstance(reason, OSError) and reason.errno in (errno.EHOSTUNREACH, errno.ENETUNREACH):
        return _Unreachable(f"connect: {reason.strerror or reason}")
    return None


@dataclass(frozen=True, slots=True)
class Fetched:
    """What one URL served: a status word, the SHA-256 if it was a zip, and details."""

    state: str  # "zip", "missing", "not-zip", "error", "exists", "unreachable", "sized",
    #             "unsized"
    sha256: str | None = None
    detail: str = ""
    size: int = 0
    no_artifact: str | None = None  # a zip SwiftPM finds no binary artifact in: why
    links: tuple[str, ...] = ()  # symlink entries that leave the archive: what each does
    unverified: str | None = None  # `verify_zips`: why not every entry was verified


class _NoOtherSchemes(urllib.request.HTTPRedirectHandler):
    """Follow redirects (CDNs and release hosts use them) to http(s) only, never file: or ftp:."""

    def redirect_request(self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str,
                         headers: http.client.HTTPMessage,
                         newurl: str) -> urllib.request.Request | None:
        if not newurl.lower().startswith(("https://", "http://")):
            raise _Final(f"redirected to a non-http(s) URL ({code})")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


class _HTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(http_deadline.HTTPConnection, req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(http_deadline.HTTPSConnection, req,
                            context=self._context)  # type: ignore[attr-defined]


def _opener(settings: UrlSettings) -> urllib.request.OpenerDirector:
    """urllib with its connections under the current Deadline, redirects to http(s) only, and
    no proxy, CA bundle or netrc from the environment: only input proxy (infra.network)."""
    return opener(settings.proxy, _NoOtherSchemes(), _HTTPHandler(), https=_HTTPSHandler)


def _late(settings: UrlSettings) -> _Transient:
    return _Transient(f"no complete answer within {settings.deadline:g} s")


def _request(url: str, method: str = "GET") -> urllib.request.Request:
    return urllib.request.Request(url, method=method, headers={
        "User-Agent": f"swiftpm-guard/{__version__}",
        "Accept-Encoding": "identity",  # the checksum is of the stored bytes
    })


def _with_retries(attempt: Callable[[], Fetched], settings: UrlSettings) -> Fetched:
    tries = settings.retries + 1
    for number in range(tries):
        try:
            return attempt()
        except _Final as error:
            return Fetched("error", detail=str(error))
        except _Unreachable as error:
            if error.final or number + 1 == tries:
                more = "" if error.final else \
                    f" (after {tries} attempt{'s' if tries != 1 else ''})"
                return Fetched("unreachable", detail=f"{error}{more}")
            time.sleep(_BACKOFF * 2**number)
        except _Transient as error:
            if number + 1 == tries:
                return Fetched("error", detail=f"{error} (after {tries} attempts)")
            time.sleep(_BACKOFF * 2**number)
    raise AssertionError("unreachable")


def _status_failure(error: urllib.error.HTTPError) -> Exception:
    error.close()
    if error.code in _TRANSIENT:
        return _Transient(f"HTTP {error.code} {error.reason}")
    return _Final(f"HTTP {error.code} {error.reason}")


def _download(url: str, settings: UrlSettings) -> Fetched:
    """One attempt: stream the body through SHA-256, stopping early if it is not a zip, all
    of it (redirects included) within the download's deadline."""
    def read(response: http.client.HTTPResponse, deadline: Deadline) -> Fetched:
        content_type = response.headers.get("Content-Type", "")
        return _hash_stream(response, deadline, settings, content_type)

    return _within_deadline(_request(url), settings, read)


def _within_deadline(request: urllib.request.Request, settings: UrlSettings,
                     read: Callable[[http.client.HTTPResponse, Deadline], Fetched]) -> Fetched:
    """`_opened` with the whole exchange (redirects included) inside the download's deadline;
    a failure after it passed says so."""
    with http_deadline.bounded(settings.deadline) as deadline:
        try:
            return _opened(request, settings, lambda response: read(response, deadline))
        except (_Transient, _Final):
            if deadline.expired:
                raise _late(settings) from None
            raise


def _opened(request: urllib.request.Request, settings: UrlSettings,
            read: Callable[[http.client.HTTPResponse], Fetched]) -> Fetched:
    """`read` of the answer to `request`; failures sorted into missing, final, transient and
    unreachable."""
    try:
        with _opener(settings).open(request, timeout=settings.timeout) as response:
            return read(response)
    except urllib.error.HTTPError as error:
        if error.code in _MISSING:
            error.close()
            return Fetched("missing", detail=f"HTTP {error.code}")
        raise _status_failure(error) from None
    except (_Transient, _Final):
        raise
    except (TimeoutError, urllib.error.URLError, http.client.HTTPException, OSError) as error:
        reason = getattr(error, "reason", None) or error
        if isinstance(reason, TimeoutError) or "timed out" in str(reason):
            raise _Transient(f"timed out after {settings.timeout:g} s") from None
        raise _unreachable(reason) or _Transient(f"{type(reason).__name__}: {reason}") from None


def _size(url: str, settings: UrlSettings) -> Fetched:
    """One attempt: the size a GET of `url` serves, its body not read. Asked with a GET of
    `Range: bytes=0-0` (the total in Content-Range), not HEAD: GitHub's release downloads
    redirect to storage URLs signed for GET, which refuse HEAD (403). A host that ignores the
    range answers the whole: its Content-Length is the size, and the connection is closed
    unread. Neither: "unsized"."""
    request = _request(url)
    request.add_header("Range", "bytes=0-0")
    return _within_deadline(request, settings, lambda response, _deadline: _announced(response))


def _announced(response: http.client.HTTPResponse) -> Fetched:
    if response.status == 206:  # Content-Range: bytes 0-0/TOTAL (`*`: not known)
        total = response.headers.get("Content-Range", "").rpartition("/")[2].strip()
        said = "Content-Range"
    else:
        total = response.headers.get("Content-Length", "").strip()
        said = "Content-Length"
    if total.isdigit() and total.isascii():
        return Fetched("sized", size=int(total))
    return Fetched("unsized", detail=f"HTTP {response.status} without a size in its {said}")


def _hash_stream(response: http.client.HTTPResponse, deadline: Deadline, settings: UrlSettings,
                 content_type: str) -> Fetched:
    if not settings.archive_contents:
        return _hash_into(response, deadline, settings, content_type, None)
    with tempfile.TemporaryFile(prefix="swiftpm-guard-zip.") as spool:
        fetched = _hash_into(response, deadline, settings, content_type, spool)
        if fetched.state != "zip":
            return fetched
        spool.seek(0)
        try:
            contents = read_zip_contents(spool,
                                         full=FullCheck() if settings.verify_zips else None)
        except ZipProblem as error:
            return Fetched("not-zip", fetched.sha256,
                           detail=f"not a readable zip archive ({error})", size=fetched.size)
        damaged = extraction_problem(contents)
        if damaged is not None:  # SwiftPM: "invalid archive returned from …"
            return Fetched("not-zip", fetched.sha256,
                           detail=f"an entry is refused (SwiftPM's unzip may read it "
                                  f"another way, or refuse it): "
                                  f"{damaged}", size=fetched.size)
        return Fetched("zip", fetched.sha256, size=fetched.size,
                       no_artifact=shape_problem(contents),
                       links=tuple(f.message for f in link_findings(contents, "")),
                       unverified=contents.unverified)


def _hash_into(response: http.client.HTTPResponse, deadline: Deadline, settings: UrlSettings,
               content_type: str, spool: IO[bytes] | None) -> Fetched:
    digest = hashlib.sha256()
    head = b""
    size = 0
    while True:
        data = response.read1(_READ)
        if deadline.expired:  # the socket was shut: what ends here is no body's end
            raise _late(settings)
        count = len(data)
        if not count:
            break
        if len(head) < 4:
            head += data[:4 - len(head)]
            if len(head) == 4 and head not in _ZIP_MAGIC:
                return _not_zip(data[:64] if size == 0 else head, content_type)
        digest.update(data)
        if spool is not None:
            spool.write(data)
        size += count
    announced = response.headers.get("Content-Length", "")
    if announced.isdigit() and int(announced) != size:
        # http.client returns a short body without complaint when the connection drops.
        raise _Transient(f"connection closed after {size} of {announced} bytes")
    if head not in _ZIP_MAGIC:
        return _not_zip(head, content_type)
    return Fetched("zip", digest.hexdigest(), size=size)


def _not_zip(first: bytes, content_type: str) -> Fetched:
    shown = first[:40].decode("ascii", "replace").replace("\n", " ").strip()
    kind = f"Content-Type {content_type}, " if content_type else ""
    what = f"begins {shown!r}" if first else "is empty"
    return Fetched("not-zip", detail=f"{kind}body {what}")


def _exists(url: str, settings: UrlSettings) -> Fetched:
    """HEAD (GET when HEAD is refused): does anything answer at this URL? Each request
    within the download deadline."""
    for method in ("HEAD", "GET"):
        with http_deadline.bounded(settings.deadline) as deadline:
            try:
                return _answers(url, method, settings)
            except _Transient:
                if deadline.expired:
                    raise _late(settings) from None
                raise
            except _Refused:
                continue
    raise _Final("HEAD and GET both refused")


class _Refused(Exception):
    """HEAD is not allowed here: try GET."""


def _answers(url: str, method: str, settings: UrlSettings) -> Fetched:
    try:
        with _opener(settings).open(_request(url, method), timeout=settings.timeout) as response:
            return Fetched("exists", detail=f"HTTP {response.status}")
    except urllib.error.HTTPError as error:
        if error.code in _MISSING:
            error.close()
            return Fetched("missing", detail=f"HTTP {error.code}")
        if error.code == 403 and settings.absent_on_403:
            error.close()  # the host says so for a missing key (S3 without list rights)
            return Fetched("missing", detail="HTTP 403 (counted as absent)")
        if error.code in (405, 501) and method == "HEAD":
            error.close()
            raise _Refused from None
        raise _status_failure(error) from None
    except (_Transient, _Final):
        raise
    except (TimeoutError, urllib.error.URLError, http.client.HTTPException, OSError) as error:
        reason = getattr(error, "reason", None) or error
        raise _unreachable(reason) or _Transient(
            f"{type(reason).__name__}: {reason}") from None


def fetch_all(urls: Sequence[str], settings: UrlSettings,
              probe: Callable[[str, UrlSettings], Fetched] = _download) -> dict[str, Fetched]:
    """Each distinct URL fetched once, `settings.jobs` at a time."""
    distinct = list(dict.fromkeys(urls))
    if not distinct:
        return {}
    down: dict[str, Fetched] = {}  # host → how it could not be reached: asked once, not per zip

    def fetch(url: str) -> Fetched:
        host = urllib.parse.urlsplit(url).netloc
        if host in down:
            return down[host]
        got = _with_retries(lambda: probe(url, settings), settings)
        if got.state == "unreachable":
            down[host] = got
        return got

    with ThreadPoolExecutor(max_workers=min(settings.jobs, len(distinct))) as pool:
        return dict(zip(distinct, pool.map(fetch, distinct), strict=True))


def _finding(code: str, target: HostedZip, message: str) -> Finding:
    return Finding(code=code, severity=Severity.ERROR, subject=target.name, message=message,
                   file=target.location.file, line=target.location.line)


def verify_with_stats(targets: Sequence[HostedZip],
                      settings: UrlSettings) -> tuple[list[Finding | None], HostedStats]:
    """The finding for each target, in order (None: the URL serves the promised zip), and
    what it took: distinct URLs fetched, how many served the promised zip, bytes, wall time.
    A host that could not be reached is a `url-error` finding here (the audit's way)."""
    results, stats, unreachable = verify_reachable(targets, settings)
    said = dict(unreachable)
    return [_finding("url-error", t, f"{t.url}: {said[t.url]}") if t.url in said else r
            for t, r in zip(targets, results, strict=True)], stats


def verify_reachable(targets: Sequence[HostedZip], settings: UrlSettings
                     ) -> tuple[list[Finding | None], HostedStats, list[tuple[str, str]]]:
    """As `verify_with_stats`, with the URLs whose host could not be reached at all (DNS,
    connect, TLS) apart, as (url, why): those say nothing about the zips."""
    started = time.monotonic()
    fetched = fetch_all([t.url for t in targets], settings)
    results = [_judge(target, fetched[target.url]) for target in targets]
    failed = {t.url for t, r in zip(targets, results, strict=True) if r is not None}
    unreachable = [(url, got.detail) for url, got in fetched.items()
                   if got.state == "unreachable"]
    failed |= {url for url, _why in unreachable}
    stats = HostedStats(urls=len(fetched), verified=len(fetched.keys() - failed),
                        bytes=sum(f.size for f in fetched.values()),
                        seconds=time.monotonic() - started)
    return results, stats, unreachable


def served_sizes(urls: Sequence[str], settings: UrlSettings) -> dict[str, Fetched]:
    """What each distinct URL would serve, in bytes, without downloading it (`_size`):
    "sized" with `size`, else why not ("unsized", "missing", "error", "unreachable")."""
    return fetch_all(urls, settings, probe=_size)


def _judge(target: HostedZip, result: Fetched) -> Finding | None:
    if result.state == "unreachable":
        return None  # nothing is known about the zip: the caller says so (verify_reachable)
    if result.state == "missing":
        return _finding("url-missing", target, f"{target.url} answers {result.detail}: no zip "
                                               f"for '{target.name}' is hosted there")
    if result.state == "error":
        return _finding("url-error", target, f"{target.url}: {result.detail}")
    # SwiftPM compares the checksum before it extracts: served bytes that were hashed and are
    # not the built ones are that, whether or not they are also a readable zip.
    if (target.sha256 is not None and result.sha256 is not None
            and result.sha256 != target.sha256):
        unreadable = f" (nor a readable zip: {result.detail})" if result.state == "not-zip" else ""
        return _finding("url-checksum", target,
                        f"{target.url} serves {result.size} bytes with SHA-256 "
                        f"{result.sha256}, not {target.sha256}; SwiftPM rejects it{unreadable}")
    if result.state == "not-zip":
        return _finding("url-not-zip", target,
                        f"{target.url} does not serve a zip ({result.detail})")
    if result.no_artifact is not None:
        return _finding("url-no-artifact", target,
                        f"{target.url} serves a zip SwiftPM finds no binary artifact in: "
                        f"{result.no_artifact}")
    if result.links:
        more = f" (and {len(result.links) - 1} more)" if len(result.links) > 1 else ""
        return _finding("zip-link", target, f"{target.url} serves a zip in which "
                                            f"{result.links[0]}{more}")
    if result.unverified is not None:
        return _finding("zip-unverified", target,
                        f"{target.url}: {option('verify-zips')} could not verify every entry: "
                        f"{result.unverified}")
    return None


#: Why a zip URL that exists stops an upload, when nothing more is known.
OVERWRITE = "uploading would overwrite a published archive"


def verify_absent(targets: Sequence[HostedZip], settings: UrlSettings, *,
                  why: str = OVERWRITE) -> list[Finding]:
    """Before an upload: none of this version's zip URLs may exist yet (no overwrites);
    `why` ends each `url-exists` message (what the caller knows of the version's branch)."""
    fetched = fetch_all([t.url for t in targets], settings, probe=_exists)
    findings: list[Finding] = []
    for target in targets:
        result = fetched[target.url]
        if result.state == "exists":
            findings.append(_finding("url-exists", target,
                                     f"{target.url} already exists ({result.detail}); {why}"))
        elif result.state in ("error", "unreachable"):
            findings.append(_finding("url-error", target,
                                     f"cannot tell whether {target.url} exists: "
                                     f"{result.detail}"))
    return findings
