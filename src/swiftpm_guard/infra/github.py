"""The action's GitHub client, and the one way every API call goes: PyGithub's `GithubRetry`
with the tool's bounds, and a thin mapping of what fails to the tool's own error.

PyGithub loads on first use. Its retry (urllib3's, made GitHub-aware) decides what is worth
another attempt: 5xx, 429, transport errors, and a 403 only when it is a rate limit; every
method is retried (PATCH included). How long to wait is the tool's: a primary rate limit until
its reset, a secondary one `Retry-After` (else `secondary_wait`), anything else a doubling
backoff; the waits are injected (tests run without them), and a wait that would overrun the
call's or the run's budget is not started. Each call runs under a wall-clock deadline
(infra.http_deadline) at the end of its budget: a server that drips its answer cannot hold a
call past it, nor the API past the run's budget.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from swiftpm_guard import console
from swiftpm_guard.errors import GitHubApiError, InfrastructureError

if TYPE_CHECKING:
    # Re-exported for annotations elsewhere: PyGithub is named only here and in sinks/.
    from github import Github as Github  # noqa: TID251  (PyGithub's home)
    from github.CheckRun import CheckRun as CheckRun  # noqa: TID251  (PyGithub's home)
    from github.ContentFile import ContentFile as ContentFile  # noqa: TID251  (PyGithub's home)
    from github.GithubRetry import GithubRetry  # noqa: TID251  (PyGithub's home)
    from github.Repository import Repository as Repository  # noqa: TID251  (PyGithub's home)
    from requests import Session as Session

T = TypeVar("T")


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


@dataclass(slots=True)
class _Call:
    """One call under way on this thread: what the retry's waits are measured against."""

    what: str
    policy: RetryPolicy
    started: float
    attempts: int = 1
    reason: str = ""  # why the last retry was made

    def left(self) -> float:
        """The time left to the call: its own budget, and the run's."""
        now = self.policy.monotonic()
        left = self.policy.total_seconds - (now - self.started)
        if self.policy.deadline is not None:
            left = min(left, self.policy.deadline - now)
        return left


_calls = threading.local()


class _OverBudget(Exception):
    """A retry's wait would overrun the budget: the call ends with the answer it had."""

    def __init__(self, status: int | None, reason: str) -> None:
        super().__init__(reason)
        self.status = status


def connect(api_url: str, token: str | None, policy: RetryPolicy,
            proxy: str | None = None) -> Github:
    """A PyGithub client for `api_url` (GHES works): its sockets under each call's deadline,
    its retry PyGithub's GithubRetry with the tool's waits, deaf to the environment's proxies
    and CA bundles (infra.network): only `proxy`, the pinned CA."""
    from github import Auth, Github  # noqa: TID251  (PyGithub's home)

    from swiftpm_guard.infra.network import ca_bundle  # ssl: only with a client

    client = Github(base_url=api_url.rstrip("/"), auth=Auth.Token(token) if token else None,
                    timeout=policy.request_timeout, retry=_retry(policy), lazy=True,
                    seconds_between_requests=None, verify=ca_bundle(),
                    seconds_between_writes=policy.seconds_between_writes)
    _own_connections(client, proxy)
    return client


#: Where PyGithub's Requester keeps the classes it makes a connection (one requests session)
#: with: the class for the API's own scheme, and the two for URLs on other hosts.
_CONNECTION_SLOTS = ("_Requester__connectionClass", "_Requester__httpConnectionClass",
                     "_Requester__httpsConnectionClass")
_PERSIST_SLOT = "_Requester__persist"


def _own_connections(client: Github, proxy: str | None) -> None:
    """This client's connections get watched requests sessions (github_http) that read no
    environment.

    PyGithub makes each session itself (trust_env on) and its public hook for the classes is
    process-wide, so the proxy-aware ones are set on this requester alone. A PyGithub without
    them is refused rather than left trusting the environment.
    """
    from swiftpm_guard.infra import github_http
    from swiftpm_guard.infra.network import configure

    requester = client.requester
    if not all(hasattr(requester, slot) for slot in (*_CONNECTION_SLOTS, _PERSIST_SLOT)):
        raise InfrastructureError("this PyGithub keeps its connection classes elsewhere: "
                                  "cannot keep its sessions from the environment's proxies")

    class Http(github_http.PyGithubHTTP):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.verify = configure(self.session, proxy)

    class Https(github_http.PyGithubHTTPS):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.verify = configure(self.session, proxy)

    setattr(requester, _CONNECTION_SLOTS[0], Https if requester.scheme == "https" else Http)
    setattr(requester, _CONNECTION_SLOTS[1], Http)
    setattr(requester, _CONNECTION_SLOTS[2], Https)
    # A new connection per request, so each is opened under its own call's deadline.
    setattr(requester, _PERSIST_SLOT, False)


def _retry(policy: RetryPolicy) -> GithubRetry:
    """PyGithub's GithubRetry, its waits the tool's (`wait_before_retry`)."""
    from swiftpm_guard.infra import github_http

    def pause(status: int | None, headers: Mapping[str, str], failures: int) -> None:
        policy.sleep(wait_before_retry(status, headers, failures, policy))

    return github_http.GuardRetry(pause=pause, total=policy.attempts - 1,
                                  secondary_rate_wait=policy.secondary_wait)


def download_session(policy: RetryPolicy, proxy: str | None = None) -> Session:
    """A requests session for what PyGithub cannot fetch (a redirect to another host): under
    the call's deadline, retried like every API call, deaf to the environment (only `proxy`)."""
    from swiftpm_guard.infra import github_http
    from swiftpm_guard.infra.network import configure

    made = github_http.session(_retry(policy))
    configure(made, proxy)
    return made


def call(policy: RetryPolicy, what: str, operation: Callable[[], T]) -> T:
    """Run `operation` (its requests retried by PyGithub's retry, within the budget); raise
    GitHubApiError when it fails for good."""
    from swiftpm_guard.infra import http_deadline  # http.client, ssl: only when the API is used

    state = _Call(what, policy, policy.monotonic())
    seconds = state.left()
    outer = getattr(_calls, "current", None)
    _calls.current = state
    try:
        with http_deadline.bounded(seconds) as deadline:
            try:
                result = operation()
            except Exception as error:
                if not deadline.expired:
                    raise _api_error(error, state) from None
            if not deadline.expired:
                return result
    finally:
        _calls.current = outer
    raise GitHubApiError(f"{what}: no complete answer within {max(seconds, 0):.0f} s, what "
                         f"was left of its budget (attempt {state.attempts})", retried=True)


def wait_before_retry(status: int | None, headers: Mapping[str, str], failures: int,
                      policy: RetryPolicy) -> float:
    """What the retry sleeps before its next attempt (PyGithub's retry decided there is one),
    measured against the call under way: _OverBudget when it would overrun the budget."""
    headers = {str(k).lower(): str(v) for k, v in headers.items()}
    state: _Call | None = getattr(_calls, "current", None)
    wait, reason = _wait(status, headers, failures, policy)
    if state is not None:
        if wait > state.left():
            raise _OverBudget(status, f"{reason}; budget {policy.total_seconds:g}s")
        state.attempts += 1
        state.reason = reason
        what = state.what
    else:
        what = "GitHub API"
    policy.log(f"swiftpm-guard: {what}: {reason}; retrying in {wait:.1f}s")
    return wait


def _wait(status: int | None, headers: Mapping[str, str], failures: int,
          policy: RetryPolicy) -> tuple[float, str]:
    backoff = min(policy.max_backoff, policy.first_backoff * 2 ** (failures - 1))
    if status is None:
        return backoff, "connection failed or timed out"
    if status >= 500:
        return backoff, f"server error {status}"
    if (headers.get("x-ratelimit-remaining") == "0"
            and headers.get("x-ratelimit-reset", "").isdigit()):
        until_reset = int(headers["x-ratelimit-reset"]) - policy.wall_clock()
        return max(1.0, until_reset + 1), "primary rate limit; waiting for its reset"
    retry_after = headers.get("retry-after", "")
    if retry_after.isdigit():
        return float(retry_after), "secondary rate limit; waiting for Retry-After"
    return policy.secondary_wait, "secondary rate limit without Retry-After"


def _api_error(error: Exception, state: _Call) -> Exception:
    """The tool's error for what ended a call: GitHubApiError for an API or transport
    failure (saying how many attempts it took), the error itself for anything else."""
    policy, what = state.policy, state.what
    if isinstance(error, _OverBudget):
        return GitHubApiError(f"{what}: gave up after {state.attempts} attempt(s) ({error}): "
                              f"HTTP {error.status}" if error.status else
                              f"{what}: gave up after {state.attempts} attempt(s) ({error})",
                              status=error.status, retried=True)
    status, message, _headers = _describe(error)
    if status is None and message is None:
        return error
    reason = f"HTTP {status}: {message}" if status else (message or "error")
    if state.attempts == 1 and not _retryable(status, error):
        return GitHubApiError(f"{what}: {reason}", status=status)
    why = f"{state.reason}; " if state.reason else ""
    return GitHubApiError(f"{what}: gave up after {state.attempts} attempt(s) "
                          f"({why}budget {policy.total_seconds:g}s): {reason}",
                          status=status, retried=True)


def _retryable(status: int | None, error: Exception) -> bool:
    """Whether the retry would have tried again (transport, 5xx, 429, a rate limit): a
    failure after its attempts ran out, never a read-only token's 403."""
    from github import RateLimitExceededException  # noqa: TID251  (PyGithub's home)

    return (status is None or status >= 500 or status == 429
            or isinstance(error, RateLimitExceededException))


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
