"""Everything publishing hands to git, validated before any git process runs (pure).

Branch names, the template ref, the remote, the commit identity, the token and the paths
inside the template ref all come from users or workflow inputs. Each is checked here against
a conservative subset of what git accepts, so a bad value is a one-line UsageError (exit 2)
instead of an option, a different ref, a different transport or an injected header.
"""

from __future__ import annotations

import base64
import ipaddress
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from urllib.parse import urlsplit

from swiftpm_guard.errors import UsageError
from swiftpm_guard.redact import shown_location

DEFAULT_BRANCH_PREFIX = "swiftpm-"
#: The published branches an audit reads by default.
DEFAULT_BRANCH_GLOB = f"{DEFAULT_BRANCH_PREFIX}*"
DEFAULT_TEMPLATE_REF = "swiftpm"
DEFAULT_AUTHOR = "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>"

#: A subset of git-check-ref-format: no space, control, `~^:?*[\`, `@{`, so nothing to escape.
_REF_CHARS = re.compile(r"[A-Za-z0-9._/+-]+")
_PREFIX_CHARS = re.compile(r"[A-Za-z0-9._/+-]{1,100}")
_REF_MAX = 200
#: Paths inside the template ref: plain relative paths, no shell or glob characters.
_TREE_PATH_CHARS = re.compile(r"[A-Za-z0-9._/@+-]+")
_IDENTITY = re.compile(r"(?P<name>[^<>]+?)\s*<(?P<email>[^<>\s]+@[^<>\s]+)>")
#: A token goes into an HTTP header: printable ASCII without spaces, or it could inject one.
_TOKEN_CHARS = re.compile(r"[\x21-\x7e]{1,4096}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
#: git's scp-like ssh syntax with a user (`user[:password]@host:path`): `@`, then `:`, no `/`.
_SCP_LIKE = re.compile(r"[^/]*@[^/]*:")


def check_ref_name(ref: str, *, option: str) -> str:
    """A full ref name (`refs/heads/…`) git will accept as is; UsageError otherwise."""
    problem = _ref_problem(ref)
    if problem:
        raise UsageError(f"{option} {ref!r} is not a usable git ref name: {problem}")
    return ref


def _ref_problem(ref: str) -> str | None:
    if not ref or len(ref) > _REF_MAX:
        return f"must be 1 to {_REF_MAX} characters"
    if not _REF_CHARS.fullmatch(ref):
        return "only letters, digits and '._/+-' are allowed"
    if ref.startswith(("-", "/")) or ref.endswith(("/", ".")):
        return "must not start with '-' or '/' or end with '/' or '.'"
    if ".." in ref or "//" in ref:
        return "must not contain '..' or '//'"
    for component in ref.split("/"):
        if component.startswith(".") or component.endswith(".lock"):
            return "no path component may start with '.' or end with '.lock'"
    return None


def branch_prefix(prefix: str) -> str:
    if not _PREFIX_CHARS.fullmatch(prefix) or prefix.startswith(("-", "/", ".")):
        raise UsageError(
            f"--branch-prefix {prefix!r} must be 1-100 of letters, digits and "
            "'._/+-', not starting with '-', '/' or '.'"
        )
    return prefix


def branch_ref(prefix: str, version: str) -> str:
    """`refs/heads/<prefix><version>`, validated as a whole (the parts were validated too)."""
    branch_prefix(prefix)
    return check_ref_name(f"refs/heads/{prefix}{version}", option="branch")


def short_branch(ref: str) -> str:
    return ref.removeprefix("refs/heads/")


def template_ref(name: str) -> str:
    """`swiftpm` means `refs/heads/swiftpm`; a name starting with `refs/` is taken as is."""
    full = name if name.startswith("refs/") else f"refs/heads/{name}"
    return check_ref_name(full, option="--template-ref")


def tree_path(path: str, *, option: str = "--template") -> str:
    """A path inside the template ref: relative, normalised, no '.', '..' or empty parts."""
    parts = path.split("/")
    if (
        not path
        or len(path) > 400
        or not _TREE_PATH_CHARS.fullmatch(path)
        or any(p in ("", ".", "..") for p in parts)
        or parts[0].startswith("-")
    ):
        raise UsageError(
            f"{option} {path!r} must be a relative path inside the template ref "
            "(letters, digits, '._/@+-'; no '.', '..' or empty parts)"
        )
    return path


def manifest_path(template: str) -> str:
    """`Package.swift.template` → `Package.swift`; `x/Package@swift-5.9.swift.j2` → …`.swift`."""
    path = PurePosixPath(template)
    for suffix in (".template", ".j2"):
        if path.name.endswith(suffix) and len(path.name) > len(suffix):
            return str(path.with_name(path.name.removesuffix(suffix)))
    raise UsageError(
        f"--template {template!r} must end with '.template' or '.j2' (it is "
        "renamed to the manifest by dropping that suffix)"
    )


@dataclass(frozen=True, slots=True)
class Identity:
    name: str
    email: str

    @classmethod
    def parse(cls, text: str) -> Identity:
        match = _IDENTITY.fullmatch(text.strip())
        if match is None or _CONTROL.search(text) or len(text) > 300:
            raise UsageError(f"--author {text!r} must look like 'Name <email@host>'")
        return cls(match.group("name").strip(), match.group("email"))

    def __str__(self) -> str:
        return f"{self.name} <{self.email}>"


@dataclass(frozen=True, slots=True)
class Remote:
    """Where the branch goes: an absolute path, a `file://` URL or an `http(s)://` URL."""

    url: str  # what git is given: never carries credentials
    kind: str  # "path", "file" or "http"
    origin: str | None = None  # `scheme://host[:port]/` of an http(s) remote
    secure: bool = field(default=True)  # https, or plain http to a loopback address

    @classmethod
    def parse(cls, value: str, *, cwd: str | None = None) -> Remote:
        # Every message below quotes `shown`, never `value`: it may hold a password.
        shown = shown_location(value)
        if not value or len(value) > 2048 or _CONTROL.search(value) or value != value.strip():
            raise UsageError(f"--repo {shown!r} is empty, too long or holds control characters")
        if value.startswith("-"):
            raise UsageError(f"--repo {shown!r} must not start with '-'")
        scheme = value.split("://", 1)[0].lower() if "://" in value else ""
        if scheme in ("http", "https"):
            return cls._http(value)
        if scheme == "file":
            return cls._file(value)
        if _SCP_LIKE.match(value):
            raise UsageError(
                f"--repo {shown!r} looks like an ssh remote (user@host:path); only a path, "
                "file:// or http(s):// URL is accepted"
            )
        if scheme or "::" in value:
            raise UsageError(
                f"--repo {shown!r}: only a path, file:// or http(s):// URL is accepted"
            )
        # An absolute path never has a colon before its first slash, so git cannot take it
        # for `host:path` (ssh). The caller says what a relative one is relative to (core
        # reads no environment, the working folder included).
        if not value.startswith("/") and cwd is None:
            raise UsageError(f"--repo {value!r}: a relative path needs a working folder")
        return cls(posixpath.normpath(posixpath.join(cwd or "/", value)), "path")

    @classmethod
    def _http(cls, value: str) -> Remote:
        shown = shown_location(value)
        try:
            parts = urlsplit(value)
            port = parts.port
        except ValueError as error:
            raise UsageError(f"--repo {shown!r} is not a valid URL: {error}") from None
        if "@" in parts.netloc:
            raise UsageError(
                "--repo must not carry credentials in the URL; give the token "
                "through --token-env (it travels as an HTTP header)"
            )
        if not parts.hostname or parts.query or parts.fragment or " " in value:
            raise UsageError(f"--repo {shown!r} needs a host and no query or fragment")
        netloc = parts.hostname if port is None else f"{parts.hostname}:{port}"
        if ":" in parts.hostname:  # IPv6 literal
            netloc = f"[{parts.hostname}]" + ("" if port is None else f":{port}")
        scheme = parts.scheme.lower()
        secure = scheme == "https" or _is_loopback(parts.hostname)
        return cls(value, "http", origin=f"{scheme}://{netloc}/", secure=secure)

    @classmethod
    def _file(cls, value: str) -> Remote:
        shown = shown_location(value)
        try:
            parts = urlsplit(value)
        except ValueError as error:  # a stray `[` or `]`: "Invalid IPv6 URL"
            raise UsageError(f"--repo {shown!r} is not a valid URL: {error}") from None
        if parts.netloc not in ("", "localhost") or not parts.path.startswith("/"):
            raise UsageError(f"--repo {shown!r}: a file:// URL needs an absolute local path")
        if parts.query or parts.fragment:
            raise UsageError(f"--repo {shown!r} must not have a query or fragment")
        return cls(value, "file")

    @property
    def local_path(self) -> str | None:
        """The folder of a path or file:// remote (to check it exists before git runs)."""
        if self.kind == "path":
            return self.url
        if self.kind == "file":
            return urlsplit(self.url).path
        return None

    def package_url(self) -> str:
        """What a consumer writes in `.package(url:)` for this remote."""
        if self.kind == "path":
            return PurePosixPath(self.url).as_uri()
        return self.url


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_token(token: str, *, source: str) -> str:
    if not _TOKEN_CHARS.fullmatch(token):
        raise UsageError(
            f"the token in {source} must be printable ASCII without spaces "
            "(it is sent as an HTTP header)"
        )
    return token


def authorization_header(token: str) -> str:
    """The header GitHub's git endpoint accepts for app and Actions tokens (HTTP Basic)."""
    pair = base64.b64encode(f"x-access-token:{token}".encode()).decode("ascii")
    return f"Authorization: Basic {pair}"
