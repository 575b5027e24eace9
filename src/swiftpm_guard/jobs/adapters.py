"""What a front end hands every job: the clients and sinks a job must not make for itself."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from swiftpm_guard.infra.github import GitHubSession


def _quiet(_line: str) -> None:
    return None


@dataclass(frozen=True, slots=True)
class Adapters:
    """Made once by the front end (tests make their own) and passed down to every job.

    `log` takes progress lines without a prefix; `notice` a line the reader must see though it
    is no finding (the action: a `::notice`; None: the log); `github` is the API session (the
    action's: the CLI has none); `environ` is the environment git and SwiftPM inherit.
    """

    log: Callable[[str], None] = _quiet
    notice: Callable[[str], None] | None = None
    github: GitHubSession | None = None
    environ: Mapping[str, str] | None = field(default=None, repr=False)


#: No log, no API session, the process's environment: what a job gets when given nothing.
QUIET = Adapters()


def noticed(adapters: Adapters) -> Callable[[str], None]:
    """Where a notice goes: the front end's notice, else its log."""
    return adapters.notice or adapters.log
