"""Which repository publish, preflight and audit talk to, and what they send there.

Always `{server_url}/{repository}.git`: the workspace clone's `origin` is what an earlier step
of the job last wrote into `.git/config`, so it names nothing the action trusts (and git never
reads that config to find out). The token goes only where the server URL points, as an HTTP
header git reads from a private file, never in a URL, argv or an environment variable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from swiftpm_guard.core.names import Remote, authorization_header, strip_userinfo
from swiftpm_guard.errors import UsageError
from swiftpm_guard.infra.git import Git
from swiftpm_guard.sources.refs import Upstream


@dataclass(frozen=True, slots=True)
class RepositoryRemote:
    url: str  # what git is given: an http(s):// URL without credentials
    where: str  # how it was chosen, for the log and the summary
    token: str | None = field(default=None, repr=False)
    #: Which input the token came from (push-token, else github-token), for messages.
    token_source: str = "input github-token"

    def git_config(self) -> list[tuple[str, str]]:
        """The token header for git processes that talk to this remote (none without one)."""
        origin = Remote.parse(self.url).origin
        if self.token is None or origin is None:
            return []
        return [(f"http.{origin}.extraHeader", authorization_header(self.token))]

    def upstream(self, head: str | None) -> Upstream:
        """Where a check reads other refs: this repository, with this token."""
        return Upstream(self.url, tuple(self.git_config()), head)


def repository_remote(*, server_url: str, repository: str, token: str | None,
                      push_token: str | None, log: Callable[[str], None]) -> RepositoryRemote:
    """The remote to publish to or audit, and the token it may receive."""
    remote = Remote.parse(f"{server_url}/{repository}.git")
    # git gets push-token when there is one (a PAT from an environment, say): github-token
    # stays for the API, where a PAT could not create check runs anyway.
    chosen, name = token, "github-token"
    if push_token is not None:
        chosen, name = push_token, "push-token"
    sent = chosen if remote.kind == "http" else None
    if sent is not None and not remote.secure:
        raise UsageError(
            f"refusing to send input {name} over plain http to {remote.origin}; use https"
        )
    log(f"repository {remote} (GITHUB_SERVER_URL)")
    if sent is not None:
        log(f"git sends input {name} (as a header, to {remote.origin} only)")
    return RepositoryRemote(remote.url, "GITHUB_SERVER_URL", sent, f"input {name}")


def upstream_of(*, server_url: str, repository: str, token: str | None,
                push_token: str | None, head: str | None) -> Upstream:
    """Where a check reads other refs with git: the repository at the server URL (with the
    token when it may go there; never the clone's origin) at the event's commit `head`."""
    try:
        remote = repository_remote(server_url=server_url, repository=repository, token=token,
                                   push_token=push_token, log=lambda _line: None)
    except UsageError:  # plain http: read without a token (the API reads a private one)
        remote = RepositoryRemote(f"{server_url}/{repository}.git", "GITHUB_SERVER_URL")
    return remote.upstream(head)


def own_clone_remote(root: Path, git: Git, log: Callable[[str], None]) -> RepositoryRemote:
    """A rehearsal's remote: the developer's own clone's origin, with no token (nothing is
    pushed: a rehearsed publish is a dry run)."""
    from swiftpm_guard.sources.refs import clone_origin

    url = clone_origin(git, root)
    if url is None:
        raise UsageError(f"{root}: the clone has no usable origin to rehearse against")
    log(f"repository {strip_userinfo(url)[0]} (the clone's origin: a rehearsal)")
    return RepositoryRemote(url, "the clone's origin")
