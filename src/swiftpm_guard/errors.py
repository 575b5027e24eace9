"""The one exception hierarchy: bad input and broken infrastructure, never findings.

`cli.main` catches `GuardError` once and prints `str(error)` as a single line.
"""

from __future__ import annotations

from swiftpm_guard.core.redact import redact_userinfo


class GuardError(Exception):
    """Base of every error the tool reports as one line instead of a traceback."""

    exit_code = 2

    def __str__(self) -> str:
        # Messages quote outside text (YAML errors, file content): keep them on one line.
        # And never a URL's password, whichever path built the message.
        return redact_userinfo(" ".join(super().__str__().split()))


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


class InfrastructureError(GuardError):
    """Something outside the inputs failed: git, the network, an API (exit 3)."""

    exit_code = 3
