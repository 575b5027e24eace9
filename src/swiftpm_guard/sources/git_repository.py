"""A git repository to read published branches from: a local one in place, or a remote's
matching branches fetched shallowly (tips only) into a temporary bare repository; and the one
way this package's readers run git on it (a deadline, the environment, redacted errors).
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import re
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from swiftpm_guard.core.git_names import DEFAULT_BRANCH_GLOB
from swiftpm_guard.core.text_lines import split_lines
from swiftpm_guard.errors import InfrastructureError, InputError, UsageError
from swiftpm_guard.infra.git import (
    GitTimeout,
    carries_credentials,
    find_git,
    git_environment,
    run_git,
)
from swiftpm_guard.limits import GIT_AUDIT_SECONDS
from swiftpm_guard.redact import shown_location
from swiftpm_guard.sources.files import is_directory, resolved

DEFAULT_PATTERN = DEFAULT_BRANCH_GLOB
GIT_TIMEOUT = GIT_AUDIT_SECONDS
_GLOB_RE = re.compile(r"[A-Za-z0-9._/*?+-]{1,200}")
_URL_RE = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*)://(?P<rest>.*)", re.DOTALL)
_SCP_RE = re.compile(r"[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s]+")
_REMOTE_SCHEMES = frozenset({"http", "https", "ssh", "git", "file"})


def validate_pattern(pattern: str) -> str:
    """A branch glob: `*` and `?` over the characters of ref names; never an option."""
    if (not _GLOB_RE.fullmatch(pattern) or pattern.startswith(("-", "/")) or ".." in pattern
            or "//" in pattern or pattern.endswith((".", "/", ".lock"))):
        raise UsageError(f"--branches {pattern!r} is not a branch glob (letters, digits, "
                         "'.', '_', '-', '+', '/', '*' and '?'; no '..', no leading '-')")
    return pattern


def classify_repo(repo: str) -> tuple[str, str]:
    """("remote", url) or ("local", absolute path); refuses options and inline credentials."""
    shown = shown_location(repo)  # quoted in messages instead of `repo`: it may hold a secret
    if not repo or repo.startswith("-") or any(c in repo for c in "\0\n\r"):
        raise UsageError(f"--repo {shown!r} is not a repository path or URL")
    url = _URL_RE.fullmatch(repo)
    if url:
        scheme = url.group("scheme")
        if scheme not in _REMOTE_SCHEMES:
            raise UsageError(f"--repo {shown!r}: scheme '{scheme}' is not one of "
                             f"{', '.join(sorted(_REMOTE_SCHEMES))}")
        authority = url.group("rest").split("/", 1)[0]
        if scheme == "file" and authority not in ("", "localhost"):
            raise UsageError(f"--repo {shown!r}: a file:// URL needs an absolute local path")
        if ":" in authority.rpartition("@")[0]:  # any scheme: ssh://user:password@ too
            raise UsageError("--repo must not carry a password in the URL; use a credential "
                             "helper or an http.extraHeader in git's configuration")
        return "remote", repo
    if _SCP_RE.fullmatch(repo) and not os.path.exists(repo):  # never raises, unlike Path
        return "remote", repo
    path = resolved(Path(repo), display=shown, what="repository")
    if not is_directory(path, display=shown, what="repository"):
        raise InputError("repository not found", file=shown)
    return "local", str(path)


#: Variables that make git print HTTP headers; dropped when a header carries a token.
_TRACE_VARS = ("GIT_TRACE", "GIT_TRACE_CURL", "GIT_CURL_VERBOSE", "GIT_TRACE_PACKET")


def _env(config: Iterable[tuple[str, str]] = ()) -> dict[str, str]:
    """The caller's environment plus `config` in git's command-line scope (see infra.git)."""
    pairs = list(config)
    env = dict(os.environ)
    env.update(GIT_TERMINAL_PROMPT="0", LC_ALL="C", GIT_OPTIONAL_LOCKS="0")
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    if carries_credentials(pairs):
        for name in _TRACE_VARS:
            env.pop(name, None)
        # With a token on board, only our configuration counts: no inherited GIT_CONFIG_*
        # entries, no system or global file (they could re-enable redirects for the URL or
        # add a header of their own).
        for name in [n for n in env if n.startswith("GIT_CONFIG")]:
            env.pop(name)
        env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    return git_environment(env, config=pairs)


def git(args: Sequence[str], *, git_dir: str | None = None, stdin: bytes | None = None,
         timeout: float = GIT_TIMEOUT, config: Iterable[tuple[str, str]] = ()) -> bytes:
    """Run git with an argument list and a deadline (infra.git.run_git); output or a clear error."""
    # By absolute path: in the action's container the job's PATH may not lead to git.
    git = find_git(os.environ.get("PATH"))
    argv = [git, *(["--git-dir", git_dir] if git_dir else []), *args]
    try:
        result = run_git(argv, env=_env(config), timeout=timeout, stdin=stdin)
    except GitTimeout:
        raise InfrastructureError(f"git {args[0]} took longer than {timeout:.0f} s; "
                                  "stopped it") from None
    if result.returncode != 0:
        message = split_lines(result.stderr.decode("utf-8", "replace").strip())
        last = message[-1] if message else f"exit code {result.returncode}"
        raise InfrastructureError(f"git {args[0]} failed: {_without_userinfo(last, args)}")
    return result.stdout


def _without_userinfo(message: str, args: Sequence[str]) -> str:
    """git's message with the userinfo of any URL among `args` hidden, however git quotes it
    (`strange hostname 'user:secret@host'` has no scheme left for a generic redaction)."""
    for arg in args:
        head, separator, rest = arg.partition("://")
        text = rest if separator else head
        userinfo = text[: text.rfind("@")] if "@" in text.split("/", 1)[0] else ""
        for secret in sorted({userinfo, *userinfo.split(":")}, key=len, reverse=True):
            if len(secret) >= 3:
                message = message.replace(secret, "***")
    return message


@contextlib.contextmanager
def opened_repository(repo: str, pattern: str = DEFAULT_PATTERN, *,
                      timeout: float = GIT_TIMEOUT,
                      config: Sequence[tuple[str, str]] = ()) -> Iterator[str]:
    """A git directory whose `refs/heads/` holds the matching branches.

    A local repository is read in place; a remote one is fetched shallowly (tips only, only
    the matching branches) into a temporary bare repository that is deleted afterwards.
    `config` goes to the git processes that talk to the remote (an http.<url>.extraHeader
    with a token, say), in git's command-line scope: never in argv or a file.
    """
    kind, where = classify_repo(repo)
    if kind == "local":
        try:
            git_dir = _local_git_dir(where, timeout)
        except InfrastructureError:
            raise InputError("not a git repository", file=repo) from None
        yield git_dir
        return
    with tempfile.TemporaryDirectory(prefix="swiftpm-guard-audit-") as temporary:
        mirror = str(Path(temporary) / "mirror.git")
        git(["init", "--quiet", "--bare", mirror], timeout=timeout)
        listing = git(["ls-remote", "--heads", where], timeout=timeout, config=config)
        branches = [b for b in _remote_heads(listing) if fnmatch.fnmatchcase(b, pattern)]
        if branches:
            refspecs = "".join(f"+refs/heads/{b}:refs/heads/{b}\n" for b in branches)
            git(["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--depth=1",
                  "--stdin", where], git_dir=mirror, stdin=refspecs.encode(), timeout=timeout,
                 config=config)
        yield mirror


def _local_git_dir(path: str, timeout: float) -> str:
    # A clone owned by another user (a runner's workspace, read as root) is refused as
    # "dubious ownership" unless vouched for; later calls name the git dir explicitly, which
    # git does not question.
    out = git(["-C", path, "rev-parse", "--absolute-git-dir"], timeout=timeout,
               config=[("safe.directory", str(Path(path).resolve()))])
    return out.decode("utf-8", "surrogateescape").strip()


def _remote_heads(listing: bytes) -> list[str]:
    heads = []
    for line in split_lines(listing.decode("utf-8", "replace")):
        _oid, _tab, ref = line.partition("\t")
        if ref.startswith("refs/heads/"):
            heads.append(ref[len("refs/heads/"):])
    return heads


def list_branches(git_dir: str, pattern: str, *,
                  timeout: float = GIT_TIMEOUT) -> list[tuple[str, str]]:
    """(branch, commit) for every local branch matching the glob, by name."""
    out = git(["for-each-ref", "--format=%(objectname) %(objecttype) %(refname)",
                "refs/heads/"], git_dir=git_dir, timeout=timeout)
    found = []
    for line in split_lines(out.decode("utf-8", "replace")):
        oid, kind, ref = line.split(" ", 2)
        name = ref[len("refs/heads/"):]
        if kind == "commit" and fnmatch.fnmatchcase(name, pattern):
            found.append((name, oid))
    return sorted(found)
