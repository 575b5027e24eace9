"""How every HTTP client of ours connects: never as the job's environment says (issue 32).

An earlier step of the job can set any environment variable (`GITHUB_ENV`) and write any file in
the workspace and the home folder. requests and urllib take proxies (`http_proxy`,
`HTTPS_PROXY`, `ALL_PROXY`, `NO_PROXY`), CA bundles (`REQUESTS_CA_BUNDLE`, `CURL_CA_BUNDLE`,
`SSL_CERT_FILE`, `SSL_CERT_DIR`) and `.netrc` credentials from there: a proxy would read a
token in clear over http, and over https too once a CA from the workspace is trusted. So the
clients made here read none of it: the CA bundle is the system's own file (OpenSSL's built-in
path, not `SSL_CERT_FILE`), else certifi's; a proxy comes only from input proxy / `--proxy`.

Outside GitHub Actions (`GITHUB_ACTIONS` is not `true`: the runner sets it for every step and
a step cannot change it), `SWIFTPM_GUARD_CA_FILE` names the bundle to trust instead: the
tests' loopback CA, or a developer's private server.
"""

from __future__ import annotations

import os
import ssl
import urllib.request
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from swiftpm_guard.errors import InfrastructureError

if TYPE_CHECKING:
    import requests

#: Outside GitHub Actions only: a CA bundle trusted instead of the system's.
CA_FILE_ENV = "SWIFTPM_GUARD_CA_FILE"


def ca_bundle() -> str:
    """The CA bundle our HTTPS clients trust (see the module's note)."""
    env = os.environ
    if env.get("GITHUB_ACTIONS") != "true" and env.get(CA_FILE_ENV):
        return env[CA_FILE_ENV]
    # `openssl_cafile` is the path built into OpenSSL; `cafile` would honour SSL_CERT_FILE.
    system = ssl.get_default_verify_paths().openssl_cafile
    if os.path.isfile(system):
        return system
    try:
        import certifi
    except ImportError:
        raise InfrastructureError(
            f"no CA bundle to verify HTTPS with: neither the system's ({system}) nor certifi's; "
            "install the system's CA certificates or the certifi package") from None
    return str(certifi.where())


def proxies(proxy: str | None) -> dict[str, str]:
    """requests' proxy table: every URL through `proxy`, or none at all."""
    return {"http": proxy, "https": proxy} if proxy else {}


def configure(session: requests.Session, proxy: str | None) -> str:
    """`session` made deaf to the environment, with the pinned bundle and only `proxy`;
    returns the bundle (a `verify=` passed per request would override the session's)."""
    session.trust_env = False  # no proxy, CA or .netrc variable or file is read
    session.proxies = proxies(proxy)
    session.verify = ca_bundle()
    return session.verify


class _Proxy(urllib.request.BaseHandler):
    """Every request through one proxy, whatever `no_proxy` says (urllib's ProxyHandler would
    read it from the environment). Runs before the http(s) handlers, like ProxyHandler."""

    handler_order = 100

    def __init__(self, proxy: str) -> None:
        parts = urlsplit(proxy)
        self.scheme, self.hostport = parts.scheme, parts.netloc

    def http_open(self, request: urllib.request.Request) -> None:
        request.set_proxy(self.hostport, self.scheme)

    https_open = http_open


def opener(proxy: str | None, *handlers: urllib.request.BaseHandler,
           https: type[urllib.request.HTTPSHandler] = urllib.request.HTTPSHandler,
           ) -> urllib.request.OpenerDirector:
    """A urllib opener with the pinned bundle and only `proxy` (an empty ProxyHandler stops
    build_opener from adding the one that reads the environment); `https`: the handler class
    given the pinned bundle's context (a caller's own connections)."""
    context = ssl.create_default_context(cafile=ca_bundle())
    chain: list[urllib.request.BaseHandler] = [urllib.request.ProxyHandler({}),
                                               https(context=context)]
    if proxy:
        chain.append(_Proxy(proxy))
    return urllib.request.build_opener(*chain, *handlers)
