"""requests and PyGithub with their sockets under the current Deadline (infra.http_deadline),
and PyGithub's `GithubRetry` with the tool's waits and budget (infra.github).

Imported only when the API is used. urllib3's connections watch the socket they open
(connect and TLS handshake included) and the one they reuse for each response; requests
sessions get them through an adapter, PyGithub through its connection classes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import requests
import urllib3
from github import GithubRetry  # noqa: TID251  (PyGithub's home)
from github.Requester import (  # noqa: TID251  (PyGithub's home)
    HTTPRequestsConnectionClass,
    HTTPSRequestsConnectionClass,
)
from requests.adapters import HTTPAdapter

from swiftpm_guard.infra.http_deadline import current, watch_current

#: Sleeps before the next attempt: (status or None, headers, failures so far).
Pause = Callable[[int | None, Mapping[str, str], int], None]


class GuardRetry(GithubRetry):
    """PyGithub's retry deciding what to retry (every method, 429 too), the tool deciding how
    long to wait and whether to (`pause`, infra.github: within the budget, injected sleeps)."""

    def __init__(self, *, pause: Pause, **kwargs: Any) -> None:
        self.pause = pause
        kwargs.setdefault("status_forcelist", [429, *range(500, 600)])
        kwargs.setdefault("allowed_methods", None)  # None: every method, PATCH included
        kwargs.setdefault("raise_on_status", False)  # the last answer reaches PyGithub
        kwargs.setdefault("redirect", 0)  # PyGithub and requests follow redirects themselves
        super().__init__(**kwargs)

    def new(self, **kw: Any) -> GuardRetry:
        kw["pause"] = self.pause
        made: GuardRetry = super().new(**kw)
        return made

    def sleep(self, response: Any = None) -> None:
        headers = dict(getattr(response, "headers", None) or {})
        self.pause(getattr(response, "status", None), headers, max(len(self.history), 1))


class _Watched:
    """What urllib3's two connection classes add: the socket watched, the connect timeout cut
    to the time left."""

    sock: Any
    timeout: Any

    def _new_conn(self) -> Any:
        deadline = current()
        if deadline is not None:
            self.timeout = deadline.cap(self.timeout if isinstance(self.timeout, int | float)
                                        else None)
        sock = super()._new_conn()  # type: ignore[misc]
        watch_current(sock)
        return sock

    def getresponse(self, *args: Any, **kwargs: Any) -> Any:
        watch_current(self.sock)  # a kept-alive connection opened under an earlier deadline
        return super().getresponse(*args, **kwargs)  # type: ignore[misc]


class _HTTPConnection(_Watched, urllib3.connection.HTTPConnection):
    pass


class _HTTPSConnection(_Watched, urllib3.connection.HTTPSConnection):
    pass


class _HTTPPool(urllib3.HTTPConnectionPool):
    ConnectionCls = _HTTPConnection


class _HTTPSPool(urllib3.HTTPSConnectionPool):
    ConnectionCls = _HTTPSConnection


class WatchedAdapter(HTTPAdapter):
    """requests' adapter whose pools make watched connections."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {"http": _HTTPPool, "https": _HTTPSPool}


def session(retry: urllib3.Retry) -> requests.Session:
    """A requests session whose every request is bounded by the current Deadline and
    retried by `retry`."""
    made = requests.Session()
    _mount(made, retry)
    return made


def _mount(made: requests.Session, retry: Any = 0, pool_size: int | None = None) -> None:
    size = pool_size or requests.adapters.DEFAULT_POOLSIZE
    adapter = WatchedAdapter(max_retries=retry, pool_connections=size, pool_maxsize=size)
    made.mount("https://", adapter)
    made.mount("http://", adapter)


class PyGithubHTTP(HTTPRequestsConnectionClass):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _mount(self.session, self.retry, self.pool_size)


class PyGithubHTTPS(HTTPSRequestsConnectionClass):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _mount(self.session, self.retry, self.pool_size)
