"""What a front end hands every job: the clients and sinks a job must not make for itself."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from swiftpm_guard.infra.git import Git

if TYPE_CHECKING:
    from swiftpm_guard.core.model import CheckRunOutput
    from swiftpm_guard.infra.github import GitHubSession
    from swiftpm_guard.sinks.checks_api import CheckRunTarget, Posted


class CheckRunSink(Protocol):
    """Where a rehearsal's check run goes instead of the Checks API."""

    def record(self, target: CheckRunTarget, output: CheckRunOutput,
               skipped: str | None) -> Posted:
        """Keep the check run `target` would get; `skipped`: why the action would create
        none (a dry run). Returns what posting it would have returned."""
        ...

    def record_comment(self, body: str) -> str:
        """Keep the pull-request comment the step would post (input pr-comment); returns
        where it was kept."""
        ...


def _quiet(_line: str) -> None:
    return None


@dataclass(frozen=True, slots=True)
class Adapters:
    """Made once by the front end (tests make their own) and passed down to every job.

    `log` takes progress lines without a prefix; `notice` a line the reader must see though it
    is no finding (the action: a `::notice`; None: the log); `github` is the API session (the
    action's: the CLI has none); `git` the one git every job runs (`run_git`: its contained
    environment and the run's proxy); `proxy` the one proxy the run was given.
    """

    log: Callable[[str], None] = _quiet
    notice: Callable[[str], None] | None = None
    github: GitHubSession | None = None
    #: Every git of the run derives from this one (infra.git.Git.derive).
    git: Git = field(default_factory=Git, repr=False)
    #: A rehearsal's sink for the check run (None: the Checks API through `github`).
    check_runs: CheckRunSink | None = None
    #: A rehearsal on the developer's own clone: other refs are read from that clone, as the
    #: CLI reads them, never from the server URL the action's git would ask.
    own_clone: bool = False
    #: Input proxy / --proxy (validated http(s)://host:port): the only proxy any client of a
    #: job may use; None: none at all, whatever the environment's proxy variables say.
    proxy: str | None = None


#: No log, no API session, the process's environment: what a job gets when given nothing.
QUIET = Adapters()


def run_git(proxy: str | None, environ: Mapping[str, str] | None = None) -> Git:
    """The run's one Git, for a front end to put in its Adapters (front ends reach infra only
    through jobs): `environ` (the process's) filtered by infra.git, through `proxy` only."""
    return Git(environ=os.environ if environ is None else environ, proxy=proxy)


def noticed(adapters: Adapters) -> Callable[[str], None]:
    """Where a notice goes: the front end's notice, else its log."""
    return adapters.notice or adapters.log
