"""How git is found, what environment it runs in, and how it is run, whatever the job passed.

In a Docker action the job's `PATH` may be anything, so git is resolved by absolute path (the
job's PATH, else the image's system folders). Every git process gets one environment, built
here (`git_environment`): an allow-list of the caller's variables, so no token and no `INPUT_*`
reaches git, a hook, or anything they start, and in git's command-line scope (`GIT_CONFIG_COUNT`
/`KEY_<n>`/`VALUE_<n>`, which wins over every config file, the repository's own included) our
settings: `safe.directory` for exactly the folder named, a token's `http.<origin>.extraHeader`
(never a config file that would outlive the process), and every key from which git would start
a program neutralised. git sends a header on every request of the process, also to where a
redirect leads, so any configuration carrying one also forbids redirects
(`contain_credentials`): the token reaches the exact origin it was meant for, or nothing does.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from swiftpm_guard.errors import InfrastructureError, UsageError

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


#: All a git we run inherits from the caller's environment: where programs and the home folder
#: are, the time zone, the temporary folder, proxies, and the ssh agent a developer's ssh remote
#: needs. An allow-list, so no `INPUT_*`, no token (GITHUB_TOKEN, ACTIONS_RUNTIME_TOKEN, …), no
#: `GIT_*` (GIT_DIR, GIT_SSH_COMMAND, GIT_ASKPASS, GIT_TRACE_CURL) and no `LD_PRELOAD` reaches
#: git or anything it starts.
INHERITED = frozenset({
    "PATH", "HOME", "TZ", "TMPDIR", "USER", "LOGNAME",
    "SSH_AUTH_SOCK", "SSH_AGENT_PID",
    "http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy",
    "NO_PROXY",
})
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
#: Without the user's own config: no credential helper (the list is reset), no ssh.
ISOLATED_CONFIG = (("credential.helper", ""),)
#: Transports: ssh, git:// and `ext::` run programs or ask an agent; only a user's own CLI
#: run (user_config) may use ssh and git://.
_ISOLATED_PROTOCOLS = "file:http:https"
_USER_PROTOCOLS = "file:git:http:https:ssh"


def git_environment(base: Mapping[str, str], *, safe_directories: Iterable[str] = (),
                    config: Iterable[tuple[str, str]] = (), user_config: bool = False,
                    variables: Mapping[str, str] | None = None) -> dict[str, str]:
    """The one environment every git we run gets, built from `base` (the caller's).

    Only INHERITED variables of `base`, then our settings: `LC_ALL=C` (we read git's English
    messages), no prompt, the allowed transports, `config` in git's command-line scope
    (GIT_CONFIG_COUNT/KEY/VALUE, never argv or a file; a header forbids redirects, see
    contain_credentials), `safe.directory` for exactly the folders named, and NEUTRAL_CONFIG
    last. The system and global config are ignored unless `user_config` asks for them *and*
    nothing carries a credential *and* this is not a GitHub Actions job, whose `$HOME` every
    earlier step (a pull request's build) may have written to. Pure: the caller passes
    `os.environ` (or a test's mapping).
    """
    pairs = list(config)
    trusted = (user_config and not carries_credentials(pairs)
               and base.get("GITHUB_ACTIONS") != "true")
    env = {key: value for key, value in base.items() if key in INHERITED}
    # GIT_OPTIONAL_LOCKS=0: a read never rewrites the index (and never waits on its lock).
    env.update(LC_ALL="C", GIT_TERMINAL_PROMPT="0", GIT_ATTR_NOSYSTEM="1", GIT_OPTIONAL_LOCKS="0",
               GIT_ALLOW_PROTOCOL=_USER_PROTOCOLS if trusted else _ISOLATED_PROTOCOLS)
    if not trusted:
        env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    for key in variables or {}:
        if key not in OWN_VARIABLES:
            raise ValueError(f"{key} is not one of the variables git may be given")
    env.update(variables or {})
    entries = [
        *contain_credentials([("safe.directory", path) for path in safe_directories] + pairs),
        *NEUTRAL_CONFIG,
        *(() if trusted else ISOLATED_CONFIG),
    ]
    for index, (key, value) in enumerate(entries):
        if not key or any(c in key + value for c in "\n\r\0"):
            raise UsageError(f"git config {key!r}: names and values must be one line")
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    env["GIT_CONFIG_COUNT"] = str(len(entries))
    return env


def find_git(job_path: str | None) -> str:
    """The absolute path of git: from the job's PATH when it has one, else the system's."""
    for search in (job_path, SYSTEM_PATH):
        if search:
            found = shutil.which("git", path=search)
            if found:
                return found
    raise InfrastructureError(f"git is not installed (searched the job's PATH and {SYSTEM_PATH})")


class GitTimeout(InfrastructureError):
    """git (and whatever it started) was stopped after its deadline (exit 3)."""

    def __init__(self, command: str, seconds: float) -> None:
        super().__init__(f"git {command} did not finish within {seconds:.0f} s; stopped it")
        self.seconds = seconds


@dataclass(frozen=True, slots=True)
class GitSetup:
    """What one git process is given besides its argv: the caller's environment (filtered
    by git_environment), our configuration, and the folders vouched for."""

    environ: Mapping[str, str] = field(default_factory=dict, repr=False)
    config: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    safe_directories: tuple[str, ...] = ()
    user_config: bool = False
    variables: Mapping[str, str] = field(default_factory=dict)

    def environment(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        return git_environment(self.environ, safe_directories=self.safe_directories,
                               config=self.config, user_config=self.user_config,
                               variables={**self.variables, **(extra or {})})


def run_git(args: Sequence[str], setup: GitSetup, *, timeout: float,
            cwd: str | Path | None = None, stdin: bytes | None = None,
            variables: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run git (by absolute path) with `args`, a deadline and `setup`'s environment; never
    raises on a git failure. The only place the package starts git.

    git runs in its own session so that a timeout stops git *and* the helpers it started
    (git-remote-http, ssh, upload-pack), not just the git process: GitTimeout then. A git that
    cannot be found or started is an InfrastructureError. The exit code is the caller's.
    """
    env = setup.environment(variables)
    argv = [find_git(setup.environ.get("PATH")), *args]
    # Never in the caller's folder (a workspace whose .git/config we did not ask for).
    folder = cwd if cwd is not None else os.path.realpath(tempfile.gettempdir())
    try:
        process = subprocess.Popen(
            argv,
            cwd=folder,
            env=env,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as error:
        raise InfrastructureError(f"cannot run git: {error.strerror or error}") from None
    try:
        out, err = process.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise GitTimeout(_subcommand(args), timeout) from None
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def _subcommand(args: Sequence[str]) -> str:
    """`fetch` of `-C /w fetch …` or `--git-dir x fetch …`, for messages."""
    rest = list(args)
    while rest and rest[0].startswith("-"):
        option = rest.pop(0)
        if option in ("-C", "-c", "--git-dir") and rest:
            rest.pop(0)
    return rest[0] if rest else ""
