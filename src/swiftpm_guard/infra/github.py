"""The action's GitHub client, and the one retry loop every API call goes through.

PyGithub loads on first use and its own retries are off: every method (PATCH included) is
retried here, bounded in attempts and in time, with waits tests inject: 5xx and transport
errors back off; a primary rate limit waits for its reset, a secondary one for `Retry-After`
(else `secondary_wait`). A wait that would overrun the budget is not started.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from swiftpm_guard import console
from swiftpm_guard.errors import InfrastructureError
from swiftpm_guard.infra.network import ca_bundle, configure

if TYPE_CHECKING:
    # Re-exported for annotations elsewhere: PyGithub is named only here and in sinks/.
    from github import Github as Github  # noqa: TID251  (PyGithub's home)
    from github.CheckRun import CheckRun as CheckRun  # noqa: TID251  (PyGithub's home)
    from github.ContentFile import ContentFile as ContentFile  # noqa: TID251  (PyGithub's home)
    from github.Repository import Repository as Repository  # noqa: TID251  (PyGithub's home)

T = TypeVar("T")
_SECONDARY_MARKERS = ("secondary rate limit", "abuse detection", "please retry your request")




@dataclass(frozen=True, kw_only=True)
class RetryPolicy:
    attempts: int = 6
    total_seconds: float = 300.0
    first_backoff: float = 2.0
    max_backoff: float = 60.0
    #: GitHub asks to wait "at least one minute" after a secondary limit without Retry-After.
    secondary_wait: float = 60.0
    request_timeout: int = 30  # seconds; PyGithub insists on an int
    #: Every call of one run shares this budget too (see `for_run`).
    run_seconds: float = 600.0
    deadline: float | None = None
    #: PyGithub's spacing between writes; GitHub recommends a second to avoid secondary limits.
    seconds_between_writes: float | None = 1.0
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)
    monotonic: Callable[[], float] = field(default=time.monotonic, repr=False)
    wall_clock: Callable[[], float] = field(default=time.time, repr=False)
    log: Callable[[str], None] = field(default=console.tell, repr=False)

    def for_run(self) -> RetryPolicy:
        """This policy with the run-wide deadline starting now."""
        return dataclasses.replace(self, deadline=self.monotonic() + self.run_seconds)


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


@dataclass(frozen=True, slots=True)
class _Retry:
    wait: float
    reason: str


def connect(api_url: str, token: str | None, policy: RetryPolicy,
            proxy: str | None = None) -> Github:
    """A PyGithub client for `api_url` (GHES works) with PyGithub's own retries off, deaf to
    the environment's proxies and CA bundles (infra.network): only `proxy`, the pinned CA."""
    from github import Auth, Github  # noqa: TID251  (PyGithub's home)

    client = Github(base_url=api_url.rstrip("/"), auth=Auth.Token(token) if token else None,
                    timeout=policy.request_timeout, retry=None, lazy=True,
                    seconds_between_requests=None, verify=ca_bundle(),
                    seconds_between_writes=policy.seconds_between_writes)
    _own_connections(client, proxy)
    return client


#: Where PyGithub's Requester keeps the classes it makes a connection (one requests session)
#: with: the class for the API's own scheme, and the two for URLs on other hosts.
_CONNECTION_SLOTS = ("_Requester__connectionClass", "_Requester__httpConnectionClass",
                     "_Requester__httpsConnectionClass")


def _own_connections(client: Github, proxy: str | None) -> None:
    """This client's connections get requests sessions that read no environment.

    PyGithub makes each session itself (trust_env on); its only public hook for the classes
    is process-wide and turns connection reuse off, so these are set on this requester alone.
    A PyGithub without them is refused rather than left trusting the environment.
    """
    from github.Requester import (  # noqa: TID251  (PyGithub's home)
        HTTPRequestsConnectionClass,
        HTTPSRequestsConnectionClass,
    )

    requester = client.requester
    if not all(hasattr(requester, slot) for slot in _CONNECTION_SLOTS):
        raise InfrastructureError("this PyGithub keeps its connection classes elsewhere: "
                                  "cannot keep its sessions from the environment's proxies")

    class Http(HTTPRequestsConnectionClass):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.verify = configure(self.session, proxy)

    class Https(HTTPSRequestsConnectionClass):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.verify = configure(self.session, proxy)

    setattr(requester, _CONNECTION_SLOTS[0], Https if requester.scheme == "https" else Http)
    setattr(requester, _CONNECTION_SLOTS[1], Http)
    setattr(requester, _CONNECTION_SLOTS[2], Https)


def call(policy: RetryPolicy, what: str, operation: Callable[[], T]) -> T:
    """Run `operation`, retrying what is worth retrying; raise GitHubApiError otherwise."""
    started = policy.monotonic()
    attempt = 0
    while True:
        attempt += 1
        try:
            return operation()
        except Exception as error:  # classified below; anything unknown is re-raised
            status, message, headers = _describe(error)
            if status is None and message is None:
                raise
            retry = _classify(status, message or "", headers, attempt, policy)
            reason = f"HTTP {status}: {message}" if status else (message or "error")
            if retry is None:
                raise GitHubApiError(f"{what}: {reason}", status=status) from None
            now = policy.monotonic()
            left = policy.total_seconds - (now - started)
            if policy.deadline is not None:
                left = min(left, policy.deadline - now)
            if attempt >= policy.attempts or retry.wait > left:
                raise GitHubApiError(
                    f"{what}: gave up after {attempt} attempt(s) "
                    f"({retry.reason}; budget {policy.total_seconds:g}s): {reason}",
                    status=status,
                    retried=True,
                ) from None
            policy.log(f"swiftpm-guard: {what}: {retry.reason}; retrying in {retry.wait:.1f}s")
            policy.sleep(retry.wait)


def _describe(error: BaseException) -> tuple[int | None, str | None, Mapping[str, str]]:
    """(status, message, headers) of a PyGithub or transport error; (None, None, {}) if neither."""
    from github import GithubException  # noqa: TID251  (PyGithub's home)

    if isinstance(error, GithubException):
        data = error.data
        message = data.get("message") if isinstance(data, dict) else None
        if not isinstance(message, str):
            message = str(data)[:200] if data else (error.message or "")
        headers = {str(k).lower(): str(v) for k, v in (error.headers or {}).items()}
        return error.status, message, headers
    if isinstance(error, OSError) and type(error).__module__.startswith(("requests", "urllib3")):
        # Transport failures (requests' exceptions derive from OSError); a full disk is not one.
        response: Any = getattr(error, "response", None)
        status = getattr(response, "status_code", None)
        headers = {str(k).lower(): str(v) for k, v in getattr(response, "headers", {}).items()}
        return status, f"{type(error).__name__}: {error}"[:300], headers
    return None, None, {}


def _classify(
    status: int | None, message: str, headers: Mapping[str, str], attempt: int, policy: RetryPolicy
) -> _Retry | None:
    backoff = min(policy.max_backoff, policy.first_backoff * 2 ** (attempt - 1))
    if status is None:
        return _Retry(backoff, "connection failed or timed out")
    if status >= 500:
        return _Retry(backoff, f"server error {status}")
    if status not in (403, 429):
        return None
    if (
        headers.get("x-ratelimit-remaining") == "0"
        and headers.get("x-ratelimit-reset", "").isdigit()
    ):
        until_reset = int(headers["x-ratelimit-reset"]) - policy.wall_clock()
        return _Retry(max(1.0, until_reset + 1), "primary rate limit; waiting for its reset")
    retry_after = headers.get("retry-after", "")
    if retry_after.isdigit():
        return _Retry(float(retry_after), "secondary rate limit; waiting for Retry-After")
    if status == 429 or any(marker in message.lower() for marker in _SECONDARY_MARKERS):
        return _Retry(policy.secondary_wait, "secondary rate limit without Retry-After")
    return None


class GitHubSession:
    """The PyGithub client and one repository's handle, created on first use: a run that
    never needs the API never imports PyGithub."""

    def __init__(self, api_url: str, token: str | None, repository: str,
                 policy: RetryPolicy, proxy: str | None = None) -> None:
        self.api_url = api_url
        self.token = token
        self.repository = repository
        self.policy = policy
        #: Input proxy: the only proxy this session (and the artifact download) goes through.
        self.proxy = proxy
        self._client: Github | None = None

    @property
    def client(self) -> Github:
        if self._client is None:
            self._client = connect(self.api_url, self.token, self.policy, self.proxy)
        return self._client

    @property
    def repo(self) -> Repository:
        return self.client.get_repo(self.repository)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
