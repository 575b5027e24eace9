"""Every name and value a user gives that reaches git, URLs or paths, validated (pure).

Versions, branch names and prefixes, refs and globs, paths inside a repository, the remote,
the commit identity, the token, ids and the `publish-refs` / `exclude-paths` rules come from
users or workflow inputs. Each is checked against a conservative subset of what git and the
file system accept, so a bad value is a one-line UsageError (exit 2) instead of an option, a
different ref, a different transport or an injected header."""

from __future__ import annotations

import base64
import fnmatch
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from urllib.parse import urlsplit

from swiftpm_guard.core.option_names import option
from swiftpm_guard.errors import InputError, UsageError
from swiftpm_guard.redact import redact_userinfo, shown_location

DEFAULT_BRANCH_PREFIX = "swiftpm-"
#: The published branches an audit reads by default.
DEFAULT_BRANCH_GLOB = f"{DEFAULT_BRANCH_PREFIX}*"
DEFAULT_TEMPLATE_REF = "swiftpm"
#: The action's input `mode` (action.settings; `rehearse --mode`, which must not load them).
MODES = ("auto", "check", "publish", "audit", "preflight")
DEFAULT_AUTHOR = "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>"

#: The one ref rule's characters, a subset of git-check-ref-format's: no space, control,
#: `~^:?*[\`, `@{`, so nothing to escape. Within them the rule is git's own (the integration
#: test runs `git check-ref-format` as the oracle), plus: never a leading '-' (an option).
_REF_CHARS = re.compile(r"[A-Za-z0-9._/+-]+")
_PREFIX_CHARS = re.compile(r"[A-Za-z0-9._/+-]{1,100}")
REF_MAX = 255
#: The one path rule's characters: plain relative paths, no shell or glob characters.
_PATH_CHARS = re.compile(r"[A-Za-z0-9._/@+-]+")
PATH_MAX = 400
_IDENTITY = re.compile(r"(?P<name>[^<>]+?)\s*<(?P<email>[^<>\s]+@[^<>\s]+)>")
#: A token goes into an HTTP header: printable ASCII without spaces, or it could inject one.
_TOKEN_CHARS = re.compile(r"[\x21-\x7e]{1,4096}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def check_ref_name(ref: str, *, option: str) -> str:
    """A full ref name (`refs/heads/…`) git will accept as is; UsageError otherwise."""
    problem = ref_problem(ref)
    if problem:
        raise UsageError(f"{option} {ref!r} is not a usable git ref name: {problem}")
    return ref


def ref_problem(ref: str) -> str | None:
    """The one ref rule, for a full ref (`refs/heads/x`) and a branch name (`x`) alike: why
    git would refuse `ref` or it could pass for an option, else None."""
    if not ref or len(ref) > REF_MAX:
        return f"must be 1 to {REF_MAX} characters"
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
            f"{option('branch-prefix')} {prefix!r} must be 1-100 of letters, digits and "
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
    return check_ref_name(full, option=option("template-ref"))


def path_problem(path: str) -> str | None:
    """The one path rule, for every path a user names inside the repository or the workspace
    (a template, a folder to leave out, a file or folder to read): why it could escape, pass
    for an option or mean two things, else None. `path` as `repo_path` leaves it."""
    if not path or len(path) > PATH_MAX:
        return f"must be 1 to {PATH_MAX} characters"
    if not _PATH_CHARS.fullmatch(path):
        return "only letters, digits and '._/@+-' are allowed"
    if path.startswith(("/", "-")):
        return "must be relative and not start with '-'"
    if any(part in ("", ".", "..") for part in path.split("/")):
        return "no '.', '..' or empty parts"
    return None


def repo_path(value: str, what: str, *, folder: bool = False) -> str:
    """`value` under the one path rule, without a leading `./` (how a workflow often writes
    a relative path); a trailing '/' is kept when `folder` (it names a folder), else
    dropped. UsageError naming `what` otherwise."""
    path = value.removeprefix("./")
    trailing = "/" if path.endswith("/") and len(path) > 1 else ""
    problem = path_problem(path.removesuffix(trailing))
    if problem:
        raise UsageError(f"{what} {value!r} must be a relative path inside the repository "
                         f"({problem}; a trailing '/' names a folder)")
    return path if folder else path.removesuffix(trailing)


def tree_path(path: str) -> str:
    """A path inside the template ref (the one path rule)."""
    return repo_path(path, option("template"))


def manifest_path(template: str) -> str:
    """`Package.swift.template` → `Package.swift`; `x/Package@swift-5.9.swift.j2` → …`.swift`."""
    path = PurePosixPath(template)
    for suffix in (".template", ".j2"):
        if path.name.endswith(suffix) and len(path.name) > len(suffix):
            return str(path.with_name(path.name.removesuffix(suffix)))
    raise UsageError(
        f"{option('template')} {template!r} must end with '.template' or '.j2' (it is "
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
            raise UsageError(f"{option('author')} {text!r} must look like 'Name <email@host>'")
        return cls(match.group("name").strip(), match.group("email"))

    def __str__(self) -> str:
        return f"{self.name} <{self.email}>"


#: What each use of a remote accepts. Publishing and preflight push or read over a path,
#: `file://` or http(s) (the token is a header); an audit also reads over ssh and git://.
PUSH_KINDS = frozenset({"path", "file", "http"})
ALL_KINDS = frozenset({"path", "file", "http", "ssh", "git"})
#: `scheme://` as git spells its URLs (RFC 3986 scheme characters).
_URL = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://")
#: The schemes git's URL syntax knows (transport.c, connect.c) and the kind each is.
_SCHEME_KINDS = {"http": "http", "https": "http", "ssh": "ssh", "git+ssh": "ssh",
                 "ssh+git": "ssh", "git": "git", "file": "file", "ftp": "ftp", "ftps": "ftp"}
#: `<transport>::<address>`: a remote helper git would start (`ext::sh -c …`).
_HELPER = re.compile(r"[A-Za-z0-9][A-Za-z0-9+.-]*::")
_SCP_USER = re.compile(r"[A-Za-z0-9._~+-]{1,64}")
_HOST = re.compile(r"[A-Za-z0-9][A-Za-z0-9.-]{0,252}")


@dataclass(frozen=True, slots=True)
class Remote:
    """A repository git talks to, parsed once from what a user wrote, as git would read it.

    Every form git accepts is recognised: `scheme://…` URLs, scp-like `[user@]host:path`
    (git's rule: a `:` before any `/`), `file://` and paths. A value git would read otherwise
    than it looks (`https:user:secret@host/x`, git's ssh to a host named `https`; `u:secret@h:/x`,
    ssh to host `u`; `repo:1`, ssh to host `repo`), a password in it, or a remote-helper
    `x::y` is refused in one line that shows it redacted. `str(remote)` is the only way one is
    printed.
    """

    url: str  # what git is given: never carries a password
    kind: str  # "path", "file", "http", "ssh" or "git"
    origin: str | None = None  # `scheme://host[:port]/` of an http(s) remote
    secure: bool = field(default=True)  # https, or plain http to a loopback address

    @classmethod
    def parse(cls, value: str, *, cwd: str | None = None, option: str = "--repo",
              kinds: frozenset[str] = PUSH_KINDS) -> Remote:
        # Every message below quotes `shown`, never `value`: it may hold a password.
        shown = shown_location(value)
        if not value or len(value) > 2048 or _CONTROL.search(value) or value != value.strip():
            raise UsageError(f"{option} {shown!r} is empty, too long or holds control characters")
        if value.startswith("-"):
            raise UsageError(f"{option} {shown!r} must not start with '-'")
        if _HELPER.match(value):
            raise UsageError(f"{option} {shown!r}: a remote helper (`transport::address`) is "
                             "not accepted")
        url = _URL.match(value)
        if url is not None:
            remote = cls._url(value, url.group("scheme").lower(), shown, option)
        elif _scp_like(value):
            remote = cls._scp(value, shown, option)
        else:
            remote = cls._path(value, cwd, option)
        if remote.kind not in kinds:
            raise UsageError(f"{option} {shown!r} is {_KIND_WORDS[remote.kind]}; only "
                             f"{_accepted(kinds)} is accepted")
        return remote

    @classmethod
    def _url(cls, value: str, scheme: str, shown: str, option: str) -> Remote:
        kind = _SCHEME_KINDS.get(scheme)
        if kind is None or kind == "ftp":
            raise UsageError(f"{option} {shown!r}: scheme '{scheme}' is not one of "
                             "file, git, http, https, ssh")
        if kind == "http":
            return cls._http(value, shown, option)
        if kind == "file":
            return cls._file(value, shown, option)
        try:
            parts = urlsplit(value)
            _port = parts.port
        except ValueError as error:
            raise UsageError(f"{option} {shown!r} is not a valid URL: {error}") from None
        user, at, _host = parts.netloc.rpartition("@")
        if at and (":" in user or kind == "git"):
            raise UsageError(f"{option} must not carry a password in the URL; use a credential "
                             "helper or an ssh key")
        if not parts.hostname or parts.query or parts.fragment or " " in value:
            raise UsageError(f"{option} {shown!r} needs a host and no query or fragment")
        return cls(value, kind)

    @classmethod
    def _http(cls, value: str, shown: str, option: str) -> Remote:
        try:
            parts = urlsplit(value)
            port = parts.port
        except ValueError as error:
            raise UsageError(f"{option} {shown!r} is not a valid URL: {error}") from None
        if "@" in parts.netloc:
            raise UsageError(
                f"{option} must not carry credentials in the URL; give the token "
                "through --token-env (it travels as an HTTP header)"
            )
        if not parts.hostname or parts.query or parts.fragment or " " in value:
            raise UsageError(f"{option} {shown!r} needs a host and no query or fragment")
        netloc = parts.hostname if port is None else f"{parts.hostname}:{port}"
        if ":" in parts.hostname:  # IPv6 literal
            netloc = f"[{parts.hostname}]" + ("" if port is None else f":{port}")
        scheme = parts.scheme.lower()
        secure = scheme == "https" or _is_loopback(parts.hostname)
        return cls(value, "http", origin=f"{scheme}://{netloc}/", secure=secure)

    @classmethod
    def _file(cls, value: str, shown: str, option: str) -> Remote:
        try:
            parts = urlsplit(value)
        except ValueError as error:  # a stray `[` or `]`: "Invalid IPv6 URL"
            raise UsageError(f"{option} {shown!r} is not a valid URL: {error}") from None
        if parts.netloc not in ("", "localhost") or not parts.path.startswith("/"):
            raise UsageError(f"{option} {shown!r}: a file:// URL needs an absolute local path")
        if parts.query or parts.fragment:
            raise UsageError(f"{option} {shown!r} must not have a query or fragment")
        return cls(value, "file")

    @classmethod
    def _scp(cls, value: str, shown: str, option: str) -> Remote:
        """git's scp-like ssh form, `[user@]host:path`, when it means what it looks like."""
        head, _colon, path = value.partition(":")
        user, at, host = head.rpartition("@")
        if host.lower() in _SCHEME_KINDS:
            raise UsageError(f"{option} {shown!r} reads as an ssh remote on host '{host}' (a URL "
                             "needs '://' after its scheme)")
        if "@" in path and not at:
            raise UsageError(f"{option} {shown!r} reads as an ssh remote on host '{_clip(head)}' "
                             "whose path holds an '@' (a password?); write a URL or a path")
        if not path or not _HOST.fullmatch(host) or (at and not _SCP_USER.fullmatch(user)):
            raise UsageError(f"{option} {shown!r} reads as an ssh remote (host:path) but is "
                             "none; a relative path with a ':' is written ./like:this")
        return cls(value, "ssh")

    @classmethod
    def _path(cls, value: str, cwd: str | None, option: str) -> Remote:
        # An absolute path never has a colon before its first slash, so git cannot take it
        # for `host:path` (ssh). The caller says what a relative one is relative to (core
        # reads no environment, the working folder included).
        if not value.startswith("/") and cwd is None:
            raise UsageError(f"{option} {shown_location(value)!r}: a relative path needs a "
                             "working folder")
        return cls(posixpath.normpath(posixpath.join(cwd or "/", value)), "path")

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

    def __str__(self) -> str:
        return redact_userinfo(self.url)


_KIND_WORDS = {"path": "a path", "file": "a file:// URL", "http": "an http(s) URL",
               "ssh": "an ssh remote", "git": "a git:// URL"}


def _accepted(kinds: frozenset[str]) -> str:
    order = ["path", "file", "http", "ssh", "git"]
    words = [_KIND_WORDS[kind] for kind in order if kind in kinds]
    return ", ".join(words[:-1]) + f" or {words[-1]}" if len(words) > 1 else words[0]


def _scp_like(value: str) -> bool:
    """git's own test (connect.c, url_is_local_not_ssh): a `:` before any `/` is ssh."""
    colon = value.find(":")
    slash = value.find("/")
    return colon > 0 and (slash < 0 or colon < slash)


def _clip(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def strip_userinfo(value: str) -> tuple[str, bool]:
    """A `scheme://` URL without its userinfo, and whether it had one (the workspace clone's
    origin may carry a token an old checkout wrote; we never use it)."""
    url = _URL.match(value)
    if url is None:
        return value, False
    head, rest = value[: url.end()], value[url.end() :]
    authority, slash, tail = rest.partition("/")
    if "@" not in authority:
        return value, False
    return head + authority.rpartition("@")[2] + slash + tail, True


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        import ipaddress  # only for a remote's host

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


#: Characters a version may hold whatever --version-pattern says: it reaches URLs, branch
#: names and file names, so anything else is refused before it gets there.
_SAFE_VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z._+-]{0,63}")


def validate_version(version: str) -> str:
    """Refuse versions that could escape a path, URL or ref (exit 2, before anything runs)."""
    if not _SAFE_VERSION.fullmatch(version) or ".." in version or version.endswith("."):
        raise UsageError(f"{option('version')} {version!r} is not a safe version string "
                         "(letters, digits, '.', '_', '+', '-'; no '..')")
    return version


def check_version_shape(version: str, pattern: str, *, option: str = option("version"),
                        custom_pattern: bool = False,
                        pattern_option: str | None = "--version-pattern") -> str:
    """Bad usage, not a finding: a version outside the pattern would only produce a finding
    per zip. The one line says what to do: `v1.1.0` (a tag's `github.ref_name`) loses its `v`."""
    if re.fullmatch(pattern, version, flags=re.ASCII):
        return version
    shape = f"the pattern {pattern}" if custom_pattern else "X.Y.Z or X.Y.Z.YYYYMMDD"
    if version[:1] in "vV" and re.fullmatch(pattern, version[1:], flags=re.ASCII):
        hint = f"drop the leading '{version[0]}': {option} {version[1:]}"
    else:
        hint = "give one of those"
        if pattern_option:
            hint += f", or accept other shapes with {pattern_option} REGEX"
    raise UsageError(f"{option} {version!r} is not {shape}; {hint}")


def validate_version_pattern(pattern: str) -> str:
    """`--version-pattern` must be a regular expression (exit 2 otherwise)."""
    try:
        re.compile(pattern)
    except re.error as error:
        raise UsageError(f"--version-pattern is not a regular expression: {error}") from None
    return pattern


def check_against_pattern(version: str, pattern: str, *, custom_pattern: bool) -> str:
    """A (safe, see validate_version) `--version` against a usable `--version-pattern`, as the
    check and preflight take them (exit 2 otherwise)."""
    validate_version_pattern(pattern)
    return check_version_shape(version, pattern, custom_pattern=custom_pattern)


_ASCII_DIGITS = re.compile(r"[0-9]{1,19}")


def is_ascii_number(text: str) -> bool:
    """Whether `text` is 1-19 ASCII digits (what `isdigit()` should have meant)."""
    return _ASCII_DIGITS.fullmatch(text) is not None


def parse_id(text: str, *, what: str) -> int:
    """A positive id such as a run id; UsageError naming `what` for anything else."""
    if not is_ascii_number(text) or int(text) == 0:
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise UsageError(f"{what} must be a number, got {shown!r} (ASCII digits 0-9, not 0)")
    return int(text)


#: What publish-refs means when it is not given: the default branch, then release lines.
DEFAULT_BRANCH = "the repository's default branch"
DEFAULT_PUBLISH_GLOBS = ("release/*",)
DEFAULT_EXCLUDED = (".github/",)
#: `exclude-paths: none` (the CLI's `--exclude none`): publish the template branch whole.
NO_EXCLUSION = "none"
#: A glob's parts: plain ref characters, `*`, `?`, or one character class (`[0-9]`, `[!ab]`).
_GLOB_PARTS = re.compile(r"(?:[A-Za-z0-9._/*?+-]|\[!?[A-Za-z0-9._+-]+\])+")


def validate_ref_glob(pattern: str, what: str = "input publish-refs") -> str:
    """A branch glob (or `refs/…` glob): `*`, `?` and character classes (`[0-9]`, `[!x]`) over
    ref characters; never an option."""
    if (len(pattern) > REF_MAX or not _GLOB_PARTS.fullmatch(pattern)
            or pattern.startswith(("-", "/")) or ".." in pattern
            or "//" in pattern or pattern.endswith((".", "/", ".lock"))):
        raise UsageError(
            f"{what} {pattern!r} is not a branch glob (letters, digits, '._-+/', '*', '?' and "
            "classes such as '[0-9]'; no '..', no leading '-')"
        )
    return pattern


def validate_ref_or_glob(value: str, what: str) -> str:
    """A branch name, or a glob when it holds `*`, `?` or `[`."""
    if any(c in value for c in "*?["):
        return validate_ref_glob(value, what)
    return validate_ref(value, what)


def ref_matches(ref: str, patterns: tuple[str, ...]) -> str | None:
    """The first pattern `ref` (a full ref, `refs/heads/…`) matches, else None."""
    branch = ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None
    for pattern in patterns:
        if pattern.startswith("refs/"):
            if fnmatch.fnmatchcase(ref, pattern):
                return pattern
        elif branch is not None and fnmatch.fnmatchcase(branch, pattern):
            return pattern
    return None


def validate_excluded(paths: tuple[str, ...], what: str = "input exclude-paths") -> tuple[str, ...]:
    """Tree paths to leave out; `none` alone means nothing is left out."""
    if paths == (NO_EXCLUSION,):
        return ()
    return tuple(repo_path(path, what, folder=True) for path in paths)


def is_excluded(path: str, excluded: tuple[str, ...]) -> bool:
    """`path` is one of `excluded` or lies under one of its folders."""
    for item in excluded:
        folder = item.rstrip("/")
        if path == folder or path.startswith(folder + "/"):
            return True
    return False


def validate_ref(value: str, what: str) -> str:
    """A branch name under the one ref rule."""
    problem = ref_problem(value)
    if problem:
        raise UsageError(f"{what} {value!r} is not a valid branch name: {problem}")
    return value


_VAR_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_JOB_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


_CONTEXT = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*){1,5}")


def validate_plain_expression(value: str, what: str) -> str:
    """A context path (`needs.set-version.outputs.version`): no function, no operator."""
    if not _CONTEXT.fullmatch(value) or len(value) > 200:
        raise UsageError(f"{what} {value!r} is not a context path such as "
                         "needs.set-version.outputs.version (no functions, no operators)")
    return value


@dataclass(frozen=True, slots=True)
class WorkflowSpec:
    path: str
    job: str
    var: str
    #: Expressions (`needs.set-version.outputs.version`) the user vouches render as one plain
    #: word: accepted inside a quoted string outside the array, like `github.sha`.
    plain: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, spec: str) -> WorkflowSpec:
        """`WORKFLOW.yml:JOB:VAR` (the path may itself hold colons)."""
        parts = spec.rsplit(":", 2)
        if len(parts) != 3 or not all(parts):
            raise InputError(f"{option('frameworks-from')} expects WORKFLOW.yml:JOB:VAR, got "
                             f"{spec!r}")
        path, job, var = parts
        if not _JOB_RE.fullmatch(job):
            raise InputError(f"job id {job!r} is not a valid workflow job id")
        if not _VAR_RE.fullmatch(var):
            raise InputError(f"{var!r} is not a bash variable name")
        return cls(path, job, var)
