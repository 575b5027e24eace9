"""The one exception hierarchy: bad input and broken infrastructure, never findings.

`cli.main` catches `GuardError` once and prints `str(error)` as a single line.
"""

from __future__ import annotations

import errno

from swiftpm_guard.redact import redact_userinfo
from swiftpm_guard.workflow_commands import neutralise


class GuardError(Exception):
    """Base of every error the tool reports as one line instead of a traceback."""

    exit_code = 2

    def __str__(self) -> str:
        # Messages quote outside text (YAML errors, file content): keep them on one line,
        # never a URL's password and never a workflow command, whichever path built them.
        return neutralise(redact_userinfo(" ".join(super().__str__().split())))


class UsageError(GuardError):
    """The command line or action inputs are wrong (exit 2)."""


class InputError(GuardError):
    """An input file or value cannot be used (exit 2); names file, line and value."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None) -> None:
        self.file = file
        self.line = line
        where = file if file is not None else ""
        if file is not None and line is not None:
            where = f"{file}:{line}"
        super().__init__(f"{where}: {message}" if where else message)


class Missing(InputError):
    """What a ref does not have at all (the workflow file, the job, the array): a release line
    that predates it is skipped with a word rather than failing the whole check."""


class InfrastructureError(GuardError):
    """Something outside the inputs failed: git, the network, an API (exit 3)."""

    exit_code = 3


class GitError(InfrastructureError):
    """git failed for a reason that is not the user's input (exit 3)."""


class GitFailed(GitError):
    """git exited non-zero: `line` is its last error line made safe to show, `stderr` all
    it said (for hints)."""

    def __init__(self, command: str, line: str, stderr: bytes) -> None:
        super().__init__(f"git {command} failed: {line}")
        self.line = line
        self.stderr = stderr


class Overrun(InfrastructureError):
    """A program we ran passed its deadline (`timeout`) or printed more than its cap; its
    whole process group was stopped (exit 3)."""

    def __init__(self, program: str, why: str, *, timeout: bool) -> None:
        super().__init__(f"{program} {why}; stopped it")
        self.timeout = timeout


class GitTimeout(InfrastructureError):
    """git (and whatever it started) was stopped after its deadline (exit 3)."""

    def __init__(self, command: str, seconds: float) -> None:
        super().__init__(f"git {command} did not finish within {seconds:.0f} s; stopped it")
        self.seconds = seconds


class GitHubApiError(InfrastructureError):
    """An API call failed for good: a non-retryable status or an exhausted budget (exit 3)."""

    def __init__(self, message: str, *, status: int | None = None, retried: bool = False) -> None:
        super().__init__(message)
        self.status = status
        #: True when the failure was worth retrying (5xx, rate limit) but the budget ran out.
        self.retried = retried

    @property
    def not_writable(self) -> bool:
        """Read-only token (fork PRs, Dependabot), bad credentials, or no such repository."""
        return self.status in (401, 403, 404) and not self.retried


# Signals raised and caught inside the package: each becomes a finding or one of the errors
# above where it is caught, never reaching the user as itself.


class ZipProblem(Exception):
    """The file is not a zip in the accepted shape (the message says where)."""


class RulesUnreadable(Exception):
    """A branch's rules could not be read (401, 403, 404, or the API failing for good): the
    audit says it could not tell; the message says why, in one line."""


class UnreadableOutput(ValueError):
    """SwiftPM exited in a way that is neither a result nor an error we can read."""


class TooDeep(ValueError):
    """The text nests deeper than the cap (the message says how deep that is)."""


#: What a failing system call on a hostile path means, in words for a one-line error.
_OS_PROBLEMS = {
    errno.ENOENT: "not found",
    errno.ENOTDIR: "not found (a part of the path is not a folder)",
    errno.ELOOP: "is a symbolic link loop",
    errno.ENAMETOOLONG: "has a file name too long for the file system",
    errno.EACCES: "cannot be read: permission denied",
    errno.EISDIR: "is a directory, expected a file",
}


def os_problem(error: BaseException) -> str:
    """A short phrase for why a path could not be used ("is a symbolic link loop").

    For OSError by errno, RuntimeError (3.11's `Path.resolve` on a loop) and ValueError (an
    embedded NUL byte), the three ways a path given by someone else fails in Python.
    """
    if isinstance(error, OSError) and error.errno in _OS_PROBLEMS:
        return _OS_PROBLEMS[error.errno]
    if isinstance(error, OSError):
        return f"cannot be used: {error.strerror or error}"
    if isinstance(error, RuntimeError):
        return _OS_PROBLEMS[errno.ELOOP]
    return "is not a usable path"
