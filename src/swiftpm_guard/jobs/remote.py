"""Which repository publish, preflight and audit talk to, and what they send there.

The workspace clone's `origin` first (what actions/checkout fetched: right on GHES and behind
mirrors); without a clone, or when it is reachable only over ssh, `{server_url}/{repository}.git`.
The token goes only where the server URL points, as an HTTP header in git's environment, never
in a URL, argv or a config file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from swiftpm_guard.core.names import (
    ALL_KINDS,
    PUSH_KINDS,
    Remote,
    authorization_header,
    strip_userinfo,
)
from swiftpm_guard.errors import UsageError
from swiftpm_guard.sources.refs import workspace_origin


@dataclass(frozen=True, slots=True)
class RepositoryRemote:
    url: str  # what git is given: a path, file:// or http(s):// URL without credentials
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


def _origin_remote(workspace: Path, log: Callable[[str], None]) -> Remote | None:
    """The workspace clone's origin, read by the one remote type; None (and why, in the log)
    when it is not one publish and audit can use."""
    origin = workspace_origin(workspace)
    if origin is None:
        return None
    clean, had_userinfo = strip_userinfo(origin)
    if had_userinfo:
        # Never echoed: the URL held a secret. The github-token input is what is used.
        log("the workspace clone's origin URL carries credentials; ignoring them")
    try:
        found = Remote.parse(clean, cwd=str(workspace), option="origin", kinds=ALL_KINDS)
    except UsageError:
        log("the workspace clone's origin is not a path, file:// or http(s):// URL; using the "
            "server URL")
        return None
    if found.kind not in PUSH_KINDS:
        log("the workspace clone's origin is an ssh remote; using the server URL")
        return None
    return found


def repository_remote(*, workspace: Path, server_url: str, repository: str,
                      token: str | None, push_token: str | None,
                      log: Callable[[str], None]) -> RepositoryRemote:
    """The remote to publish to or audit, and the token it may receive."""
    server = Remote.parse(f"{server_url}/{repository}.git")
    remote, where = server, "GITHUB_SERVER_URL"
    found = _origin_remote(workspace, log)
    if found is not None:
        remote, where = found, "the workspace clone's origin"
    # git gets push-token when there is one (a PAT from an environment, say): github-token
    # stays for the API, where a PAT could not create check runs anyway.
    chosen, name = token, "github-token"
    if push_token is not None:
        chosen, name = push_token, "push-token"
    sent = chosen if remote.kind == "http" else None
    if sent is not None and remote.origin != server.origin:
        log(f"not sending {name} to {remote.origin}: only to GITHUB_SERVER_URL ({server_url})")
        sent = None
    if sent is not None and not remote.secure:
        raise UsageError(
            f"refusing to send input {name} over plain http to {remote.origin}; use https"
        )
    log(f"repository {remote} ({where})")
    if sent is not None:
        log(f"git sends input {name} (as a header, to {remote.origin} only)")
    return RepositoryRemote(remote.url, where, sent, f"input {name}")
