"""How git is found, what environment it runs in, and how it is run, whatever the job passed.

In a Docker action the job's `PATH` may be anything, so git is resolved by absolute path (the
job's PATH, else the image's system folders). The workspace belongs to the runner's user, so
`safe.directory` names it; that, the commit identity and a token's `http.<origin>.extraHeader`
travel in git's environment (`GIT_CONFIG_COUNT`/`KEY_<n>`/`VALUE_<n>`), never a config file that
would outlive the process. git sends such a header on every request of the process, also to
where a redirect leads, so any configuration carrying one also forbids redirects
(`contain_credentials`): the token reaches the exact origin it was meant for, or nothing does.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from collections.abc import Iterable, Mapping, Sequence
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


def git_environment(base: Mapping[str, str], *, safe_directories: Iterable[str] = (),
                    config: Iterable[tuple[str, str]] = ()) -> dict[str, str]:
    """`base` plus per-process git configuration; entries already in `base` are kept.

    Pure: the caller passes `os.environ` (or a test's mapping) and gives the result to
    `subprocess.run(..., env=...)`.
    """
    env = dict(base)
    count_text = env.get("GIT_CONFIG_COUNT", "").strip() or "0"
    if not count_text.isdigit():
        raise UsageError(f"GIT_CONFIG_COUNT={count_text!r} in the environment is not a count")
    count = int(count_text)
    entries = contain_credentials(
        [("safe.directory", path) for path in safe_directories] + list(config)
    )
    for key, value in entries:
        if not key or any(c in key + value for c in "\n\r\0"):
            raise UsageError(f"git config {key!r}: names and values must be one line")
        env[f"GIT_CONFIG_KEY_{count}"] = key
        env[f"GIT_CONFIG_VALUE_{count}"] = value
        count += 1
    env["GIT_CONFIG_COUNT"] = str(count)
    # A missing credential must fail the command, never wait for a terminal that is not there.
    env["GIT_TERMINAL_PROMPT"] = "0"
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


def run_git(argv: Sequence[str], *, env: Mapping[str, str], timeout: float,
            cwd: str | Path | None = None,
            stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run `argv` (git by absolute path first) with a deadline; never raises on a git failure.

    git runs in its own session so that a timeout stops git *and* the helpers it started
    (git-remote-http, ssh, upload-pack), not just the git process: GitTimeout then. A git that
    cannot be started at all is an InfrastructureError. The exit code is the caller's to judge.
    """
    try:
        process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
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
        command = next((a for a in argv[1:] if not a.startswith("-")), "")
        raise GitTimeout(command, timeout) from None
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)
