"""The one way the package starts git (`Git`): found in the system's folders, given one
environment built here, in a repository it names, under a deadline.

In a Docker action the job's `PATH`, `TMPDIR`, proxies and the workspace clone's `.git` are all
written by earlier steps of the same job (a pull request's build), so none of them decides
anything here: git is resolved from SYSTEM_PATH (a developer's own CLI run outside Actions
keeps their PATH first), its environment is an allow-list of the caller's variables (no token, no
`INPUT_*`, no proxy, no TMPDIR), our settings go in git's command-line scope
(`GIT_CONFIG_COUNT`/`KEY_<n>`/`VALUE_<n>`, which wins over every config file), and a token's
`http.<origin>.extraHeader` goes into a 0600 config file in a private 0700 folder named by
`GIT_CONFIG_GLOBAL` for that one process and deleted when it ends: never an environment
variable that every child of git inherits. git sends a header on every request of the process,
also to where a redirect leads, so any configuration carrying one also forbids redirects
(`contain_credentials`): the token reaches the exact origin it was meant for, or nothing does.
The callers never run git in the workspace clone in the action (sources.refs reads other refs in
scratch repositories of its own); the neutral settings below are defence in depth.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from swiftpm_guard.core.lines import split_lines
from swiftpm_guard.errors import (
    GitError,
    GitFailed,
    GitTimeout,
    InfrastructureError,
    Overrun,
    UsageError,
)
from swiftpm_guard.infra import process
from swiftpm_guard.infra.process import Done
from swiftpm_guard.redact import redact_userinfo
from swiftpm_guard.workflow_commands import neutralise

#: Where an image or a Debian host keeps git when the job's PATH is useless.
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


#: Where git puts the token: any key of this form carries a header to send.
_HEADER_KEY_SUFFIX = ".extraheader"


def carries_credentials(entries: Iterable[tuple[str, str]]) -> bool:
    """Whether git configuration `entries` send an HTTP header (a token) to a remote."""
    return any(key.lower().endswith(_HEADER_KEY_SUFFIX) for key, _value in entries)


def contain_credentials(entries: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """`entries`, plus `http.followRedirects=false` last when any of them sends a header.

    Last, because in git's command-line scope the last value of a key wins: nothing earlier
    (an inherited GIT_CONFIG_* entry, a caller's list) can turn redirects back on.
    """
    pairs = list(entries)
    headers = [key for key, _value in pairs if key.lower().endswith(_HEADER_KEY_SUFFIX)]
    if headers:
        pairs.append(("http.followRedirects", "false"))
        # A URL-scoped setting beats the plain one in git, whatever its scope: repeat ours at
        # the very URL each header is for, so `http.<that url>.followRedirects=true` set
        # anywhere else cannot win either.
        for key in headers:
            scope = key[: -len(_HEADER_KEY_SUFFIX)]
            if scope.lower() != "http":
                pairs.append((f"{scope}.followRedirects", "false"))
    return pairs


#: All a git we run inherits from the caller's environment: the home folder, the time zone,
#: the user, and the ssh agent a developer's ssh remote needs (PATH is ours, see
#: git_environment). An allow-list, so no `INPUT_*`, no token (GITHUB_TOKEN,
#: ACTIONS_RUNTIME_TOKEN, …), no `GIT_*` (GIT_DIR, GIT_SSH_COMMAND, GIT_ASKPASS,
#: GIT_TRACE_CURL), no `LD_PRELOAD`, no proxy (a proxy is an explicit setting: `Git.proxy`) and
#: no TMPDIR reaches git or anything it starts.
INHERITED = frozenset({"HOME", "TZ", "USER", "LOGNAME", "SSH_AUTH_SOCK", "SSH_AGENT_PID"})
#: Variables of our own a caller may add (the commit identity, a temporary index).
OWN_VARIABLES = frozenset({
    "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
    "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "GIT_INDEX_FILE",
})
#: Every configuration key from which git would start a program for the commands we run
#: (fetch, ls-remote, ls-tree, cat-file, rev-parse, for-each-ref, remote get-url, init,
#: read-tree, update-index, hash-object, write-tree, commit-tree, push), set last in the
#: command-line scope, which wins over every file git reads (the repository's own .git/config
#: included). Filters (`filter.*`), `diff.*`, `merge.*` drivers and textconv need no entry:
#: none of those commands converts content (hash-object reads stdin, so no filter applies).
#: Remote names (`remote.*.uploadpack`, `.vcs`, `.proxy`) are never used: we fetch by URL.
NEUTRAL_CONFIG = (
    ("core.hooksPath", os.devnull),  # every hook: reference-transaction on fetch, …
    ("core.fsmonitor", "false"),  # a program (or daemon) that index-reading commands start
    ("core.askPass", ""),  # asked before any prompt, GIT_TERMINAL_PROMPT=0 or not
    ("fetch.recurseSubmodules", "false"),  # a submodule's git would read its own config
    ("submodule.recurse", "false"),
    ("gc.auto", "0"),  # auto gc runs the pre-auto-gc hook and repacks
    ("maintenance.auto", "false"),
    ("commit.gpgSign", "false"),  # commit-tree would start gpg.program
    ("core.attributesFile", os.devnull),
)
#: A server that drips its answer is dropped: under 1 KB/s for 30 s ends the transfer (git's
#: only other bound is each process's deadline, minutes long).
BOUNDED_CONFIG = (("http.lowSpeedLimit", "1000"), ("http.lowSpeedTime", "30"))
#: Without the user's own config: no credential helper (the list is reset), no ssh.
ISOLATED_CONFIG = (("credential.helper", ""),)
#: Transports: ssh, git:// and `ext::` run programs or ask an agent; only a user's own CLI
#: run (user_config) may use ssh and git://.
_ISOLATED_PROTOCOLS = "file:http:https"
_USER_PROTOCOLS = "file:git:http:https:ssh"


def _in_actions(base: Mapping[str, str]) -> bool:
    return base.get("GITHUB_ACTIONS") == "true"


def git_environment(base: Mapping[str, str], *, safe_directories: Iterable[str] = (),
                    config: Iterable[tuple[str, str]] = (), user_config: bool = False,
                    variables: Mapping[str, str] | None = None,
                    credentials_file: str | None = None) -> dict[str, str]:
    """The one environment every git we run gets, built from `base` (the caller's).

    Only INHERITED variables of `base`, then our settings: `PATH` of the system's folders,
    `LC_ALL=C` (we read git's English messages), no prompt, the allowed transports, `config`
    in git's command-line scope (a header among them is left out: it goes in
    `credentials_file`, see `credentials_config`; a header forbids redirects, see
    contain_credentials), `safe.directory` for exactly the folders named, and NEUTRAL_CONFIG
    last. The system and global config are ignored unless `user_config` asks for them *and*
    nothing carries a credential *and* this is not a GitHub Actions job, whose `$HOME` and
    `PATH` every earlier step (a pull request's build) may have written to; only then does git
    keep the caller's PATH too. Pure: the caller passes `os.environ` (or a test's mapping).
    """
    pairs = list(config)
    secret = carries_credentials(pairs)
    if secret and credentials_file is None:
        raise ValueError("a header goes to git only through a credentials file")
    trusted = user_config and not secret and not _in_actions(base)
    env = {key: value for key, value in base.items() if key in INHERITED}
    env["PATH"] = base.get("PATH", SYSTEM_PATH) if trusted else SYSTEM_PATH
    # GIT_OPTIONAL_LOCKS=0: a read never rewrites the index (and never waits on its lock).
    env.update(LC_ALL="C", GIT_TERMINAL_PROMPT="0", GIT_ATTR_NOSYSTEM="1", GIT_OPTIONAL_LOCKS="0",
               GIT_ALLOW_PROTOCOL=_USER_PROTOCOLS if trusted else _ISOLATED_PROTOCOLS)
    if not trusted:
        env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=credentials_file or os.devnull)
    for key in variables or {}:
        if key not in OWN_VARIABLES:
            raise ValueError(f"{key} is not one of the variables git may be given")
    env.update(variables or {})
    entries = [
        *(pair for pair in contain_credentials(
            [("safe.directory", path) for path in safe_directories] + pairs)
          if not carries_credentials([pair])),
        *NEUTRAL_CONFIG,
        *BOUNDED_CONFIG,
        *(() if trusted else ISOLATED_CONFIG),
    ]
    for index, (key, value) in enumerate(entries):
        _one_line(key, value)
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    env["GIT_CONFIG_COUNT"] = str(len(entries))
    return env


def _one_line(key: str, value: str) -> None:
    if not key or any(c in key + value for c in "\n\r\0"):
        raise UsageError(f"git config {key!r}: names and values must be one line")


def credentials_config(entries: Iterable[tuple[str, str]]) -> str:
    """The header entries of `entries` as a git config file's text (what GIT_CONFIG_GLOBAL
    names for one process): `[http "<origin>"] extraHeader = "<value>"`, quoted."""
    lines = []
    for key, value in entries:
        if not carries_credentials([(key, value)]):
            continue
        _one_line(key, value)
        section, _, name = key.rpartition(".")
        head, _, sub = section.partition(".")
        title = f'{head} "{_quoted(sub)}"' if sub else head
        lines.append(f'[{title}]\n\t{name} = "{_quoted(value)}"\n')
    return "".join(lines)


def _quoted(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


@contextlib.contextmanager
def credentials_file(entries: Sequence[tuple[str, str]]) -> Iterator[str | None]:
    """A 0600 config file holding the header entries of `entries`, in a private 0700 folder
    that is removed when the block ends; None (and no file) when none carries a header."""
    text = credentials_config(entries)
    if not text:
        yield None
        return
    folder = tempfile.mkdtemp(prefix="swiftpm-guard-git-")  # mode 0700, ours
    try:
        path = os.path.join(folder, "config")
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
        yield path
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def find_git(environ: Mapping[str, str] | None = None) -> str:
    """The absolute path of git. In a GitHub Actions job only from the system's folders
    (SYSTEM_PATH), never the job's PATH (an earlier step may have put a `git` first on it);
    a developer's own CLI run outside Actions keeps their PATH first (a git installed only
    there, a wrapper of theirs), then the system's."""
    base = os.environ if environ is None else environ
    searches = [SYSTEM_PATH]
    if not _in_actions(base) and base.get("PATH"):
        searches.insert(0, base["PATH"])
    for search in searches:
        found = shutil.which("git", path=search)
        if found:
            return found
    raise InfrastructureError(f"git is not installed (searched {SYSTEM_PATH})")


@dataclass(frozen=True, slots=True)
class Git:
    """git as the package runs it: what one git process is given besides its argv.

    `environ` is the caller's environment (filtered by git_environment), `git_dir` the
    repository (`--git-dir`: always one of our own in the action), `config` our settings (a
    header among them travels in a credentials file), `safe_directories` the folders vouched
    for, `proxy` an explicit `http.proxy` (never one from the environment). `run` is the only
    way the package starts git; the operations below it (ls-remote, rev-parse, ls-tree,
    cat-file) are the only readers of git's output formats.
    """

    environ: Mapping[str, str] = field(default_factory=lambda: os.environ, repr=False)
    git_dir: str | None = None
    config: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    safe_directories: tuple[str, ...] = ()
    user_config: bool = False
    variables: Mapping[str, str] = field(default_factory=dict)
    proxy: str | None = None

    def derive(self, git_dir: str | Path | None = None, *,
               config: Iterable[tuple[str, str]] = (), user_config: bool | None = None,
               safe_directories: Iterable[str] = (),
               variables: Mapping[str, str] | None = None) -> Git:
        """This git (the run's environment and proxy) in `git_dir`, with `config`,
        `safe_directories` and `variables` added to its own; `user_config` when given."""
        return dataclasses.replace(
            self, git_dir=None if git_dir is None else str(git_dir),
            config=(*self.config, *config),
            user_config=self.user_config if user_config is None else user_config,
            safe_directories=(*self.safe_directories, *safe_directories),
            variables={**self.variables, **(variables or {})})

    def settings(self) -> list[tuple[str, str]]:
        return [*self.config, *((("http.proxy", self.proxy),) if self.proxy else ())]

    def environment(self, extra: Mapping[str, str] | None = None, *,
                    credentials: str | None = None) -> dict[str, str]:
        return git_environment(self.environ, safe_directories=self.safe_directories,
                               config=self.settings(), user_config=self.user_config,
                               variables={**self.variables, **(extra or {})},
                               credentials_file=credentials)

    def run(self, args: Sequence[str], *, timeout: float, cwd: str | Path | None = None,
            stdin: bytes | None = None, variables: Mapping[str, str] | None = None) -> Done:
        """git `args` in this repository, by absolute path, under a deadline (infra.process),
        never in the caller's folder; never raises on git's own failure. The only place the
        package starts git: a timeout is GitTimeout, a git that cannot start an
        InfrastructureError."""
        where = ["--git-dir", self.git_dir] if self.git_dir is not None else []
        argv = [find_git(self.environ), *where, *args]
        # Never in the caller's folder (a workspace whose .git/config we did not ask for).
        folder = cwd if cwd is not None else os.path.realpath(tempfile.gettempdir())
        with credentials_file(self.settings()) as credentials:
            env = self.environment(variables, credentials=credentials)
            try:
                return process.run(argv, env=env, cwd=folder, timeout=timeout, stdin=stdin)
            except Overrun as overrun:
                if overrun.timeout:
                    raise GitTimeout(_subcommand(args), timeout) from None
                raise GitError(f"git {_subcommand(args)}: {overrun}") from None

    def output(self, args: Sequence[str], *, timeout: float,
               stdin: bytes | None = None) -> bytes:
        """The output of git `args`; GitFailed when git fails."""
        done = self.run(args, timeout=timeout, stdin=stdin)
        if done.returncode != 0:
            raise GitFailed(_subcommand(args), self.last_line(done, args), done.stderr)
        return done.stdout

    def last_line(self, done: Done, args: Sequence[str] = ()) -> str:
        """git's last error line (else its last line) as one safe line: no header this Git
        sends, no userinfo of a URL among `args` or anywhere, no workflow command."""
        text = done.stderr.decode("utf-8", "replace")
        for key, value in self.config:
            if carries_credentials([(key, value)]):
                text = text.replace(value, "***")
        lines = [line.strip() for line in split_lines(_without_userinfo(text, args))
                 if line.strip()]
        fatal = [line for line in lines if line.startswith(("fatal:", "error:", "remote: error"))]
        last = (fatal or lines or [f"exit status {done.returncode}"])[-1][:500]
        return neutralise(redact_userinfo(last))

    # -- operations ------------------------------------------------------------------------------

    def ls_remote(self, url: str, *patterns: str, timeout: float,
                  heads: bool = False) -> dict[str, str]:
        """`{ref: object id}` of the remote's refs (its branches only with `heads`)."""
        listing = self.output(["ls-remote", "--heads" if heads else "--refs",
                               "--end-of-options", url, *patterns], timeout=timeout)
        return parse_ls_remote(listing)

    def rev_parse(self, name: str, *, timeout: float) -> str | None:
        """The object id `name` names; None when there is none."""
        done = self.run(["rev-parse", "--verify", "--quiet", "--end-of-options", name],
                        timeout=timeout)
        found = done.stdout.decode("ascii", "replace").strip()
        return found if done.returncode == 0 and is_object_id(found) else None

    def ls_tree(self, treeish: str, *paths: str, timeout: float, recursive: bool = False,
                trees: bool = False, sizes: bool = False, full_tree: bool = False,
                errors: str = "surrogateescape") -> list[TreeEntry]:
        """`git ls-tree` of `treeish` (limited to `paths`): `recursive` into sub-trees,
        listing the `trees` walked too, with blob `sizes`; paths decoded with `errors`."""
        flags = [flag for flag, wanted in (("-r", recursive), ("-t", trees), ("-l", sizes),
                                           ("--full-tree", full_tree)) if wanted]
        listing = self.output(["ls-tree", "-z", *flags, treeish, "--", *paths], timeout=timeout)
        entries = []
        for record in filter(None, listing.split(b"\0")):
            meta, _tab, path = record.partition(b"\t")
            mode, kind, sha, *size = meta.decode("ascii", "replace").split()
            known = int(size[0]) if size and size[0] != "-" else None
            entries.append(TreeEntry(mode, kind, sha, known, path.decode("utf-8", errors)))
        return entries

    def objects(self, names: Sequence[str], *,
                timeout: float) -> dict[str, tuple[str, bytes] | None]:
        """`{name: (type, content)}` through one `git cat-file --batch`; None for a name that
        names no object."""
        wanted, data = self._batch("--batch", names, timeout)
        found: dict[str, tuple[str, bytes] | None] = {}
        position = 0
        for name in wanted:
            end = data.index(b"\n", position)
            header = data[position:end].decode("utf-8", "replace").split(" ")
            size = int(header[2]) if len(header) == 3 else -1  # else "<name> missing"
            found[name] = (header[1], data[end + 1:end + 1 + size]) if size >= 0 else None
            position = end + 1 + (size + 1 if size >= 0 else 0)
        return found

    def sizes(self, names: Sequence[str], *, timeout: float) -> dict[str, int]:
        """`{name: size}` through one `git cat-file --batch-check`; missing names left out."""
        wanted, data = self._batch("--batch-check", names, timeout)
        lines = split_lines(data.decode("utf-8", "replace"))
        return {name: int(fields[2]) for name, line in zip(wanted, lines, strict=True)
                if len(fields := line.split(" ")) == 3}

    def _batch(self, mode: str, names: Sequence[str], timeout: float) -> tuple[list[str], bytes]:
        """`git cat-file <mode>` over `names`, each asked once (in order)."""
        wanted = list(dict.fromkeys(names))
        if not wanted:
            return [], b""
        stdin = "".join(f"{name}\n" for name in wanted).encode()
        return wanted, self.output(["cat-file", mode], timeout=timeout, stdin=stdin)


@dataclass(frozen=True, slots=True)
class TreeEntry:
    """One entry of a git tree: `mode` as git gives it, `kind` "blob", "tree" or "commit" (a
    submodule), `size` of a blob when asked for, `path` from the listed tree's root."""

    mode: str
    kind: str
    sha: str
    size: int | None
    path: str

    @property
    def what(self) -> str:
        """"file", "symlink", "submodule" or "dir", as the template readers name kinds."""
        if self.kind == "blob":
            return "symlink" if self.mode == "120000" else "file"
        return "submodule" if self.kind == "commit" else "dir"


def parse_tree(data: bytes, oid_bytes: int) -> list[TreeEntry]:
    """A tree object's entries (`<mode> <name>\\0<raw object id>`, repeated); the mode as
    stored (`40000` for a tree)."""
    entries = []
    i = 0
    while i < len(data):
        space = data.index(b" ", i)
        nul = data.index(b"\0", space)
        mode = data[i:space].decode("ascii", "replace")
        kind = {"40000": "tree", "160000": "commit"}.get(mode, "blob")
        entries.append(TreeEntry(mode, kind, data[nul + 1:nul + 1 + oid_bytes].hex(), None,
                                 data[space + 1:nul].decode("utf-8", "surrogateescape")))
        i = nul + 1 + oid_bytes
    return entries


def parse_ls_remote(listing: bytes) -> dict[str, str]:
    """`{ref: object id}` of `git ls-remote` output (`<oid>\\t<ref>` lines); peeled `^{}`
    lines and anything that is not an object id are left out."""
    refs: dict[str, str] = {}
    for line in listing.decode("utf-8", "replace").splitlines():
        oid, _tab, ref = line.partition("\t")
        if ref and not ref.endswith("^{}") and is_object_id(oid):
            refs[ref] = oid
    return refs


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


_HEX = frozenset("0123456789abcdef")


def is_object_id(text: str) -> bool:
    """A full SHA-1 or SHA-256 object name in lower-case hex."""
    return len(text) in (40, 64) and set(text) <= _HEX


def _subcommand(args: Sequence[str]) -> str:
    """`fetch` of `-C /w fetch …` or `--git-dir x fetch …`, for messages."""
    rest = list(args)
    while rest and rest[0].startswith("-"):
        option = rest.pop(0)
        if option in ("-C", "-c", "--git-dir") and rest:
            rest.pop(0)
    return rest[0] if rest else ""
