"""Issue 32: the hosted-zip downloads (urllib) and the requests sessions take no proxy, CA
bundle or netrc from the environment (infra.network); input proxy / --proxy is the only proxy.

In-process against loopback servers: a zip server (http, and https under a throwaway CA) and
a recording proxy that the environment names in every proxy variable.
"""

from __future__ import annotations

import hashlib
import ssl
from pathlib import Path

import pytest

from support.recording_proxy import recording_proxy
from support.release import write_zip
from support.tls import make_test_ca
from support.zip_server import Route, serve_zips
from swiftpm_guard.core.urls import UrlSettings
from swiftpm_guard.infra import network
from swiftpm_guard.infra.github import RetryPolicy, download_session
from swiftpm_guard.sources.hosted import fetch_all

PROXY_VARIABLES = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                   "ALL_PROXY")
CA_VARIABLES = ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE")


@pytest.fixture
def zip_bytes(tmp_path: Path) -> bytes:
    write_zip(tmp_path / "a-1.0.0.zip", "a")
    return (tmp_path / "a-1.0.0.zip").read_bytes()


def _job_sets(monkeypatch: pytest.MonkeyPatch, proxy_url: str, ca: Path | None = None) -> None:
    """What an earlier step writes to GITHUB_ENV; the step itself runs in GitHub Actions."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    for name in PROXY_VARIABLES:
        monkeypatch.setenv(name, proxy_url)
    monkeypatch.setenv("NO_PROXY", "")
    monkeypatch.setenv("no_proxy", "")
    if ca is not None:
        for name in (*CA_VARIABLES, network.CA_FILE_ENV):
            monkeypatch.setenv(name, str(ca))


def test_downloads_ignore_the_environments_proxies(monkeypatch, zip_bytes):
    with serve_zips() as server, recording_proxy() as proxy:
        server.routes["/a-1.0.0.zip"] = Route(zip_bytes)
        _job_sets(monkeypatch, proxy.url)
        url = server.url("a-1.0.0.zip")
        fetched = fetch_all([url], UrlSettings(retries=0))[url]
        assert proxy.seen == []
    assert fetched.state == "zip" and fetched.sha256 == hashlib.sha256(zip_bytes).hexdigest()
    assert server.hits["/a-1.0.0.zip"] == 1


def test_the_proxy_setting_is_the_one_proxy_downloads_take(monkeypatch, zip_bytes):
    with serve_zips() as server, recording_proxy(forward=True) as wanted, \
            recording_proxy() as planted:
        server.routes["/a-1.0.0.zip"] = Route(zip_bytes)
        _job_sets(monkeypatch, planted.url)
        url = server.url("a-1.0.0.zip")
        fetched = fetch_all([url], UrlSettings(retries=0, proxy=wanted.url))[url]
        assert [(s.method, s.target) for s in wanted.seen] == [("GET", url)]
        assert planted.seen == []
    assert fetched.state == "zip"


def test_a_ca_the_environment_names_is_not_trusted(monkeypatch, tmp_path, zip_bytes):
    """An https server under the job's own CA: every CA variable names that CA, and still the
    download fails verification (the pinned bundle is the system's)."""
    ca = make_test_ca(tmp_path / "ca")
    with serve_zips(ca.server_context()) as server, recording_proxy() as proxy:
        server.routes["/a-1.0.0.zip"] = Route(zip_bytes)
        _job_sets(monkeypatch, proxy.url, ca.ca_pem)
        url = server.url("a-1.0.0.zip")
        assert url.startswith("https://")
        fetched = fetch_all([url], UrlSettings(retries=0))[url]
        assert proxy.seen == []
    # A certificate that does not verify is a host that cannot be verified (exit 3), never
    # a download: the job's CA was not trusted.
    assert fetched.state == "unreachable" and "CERTIFICATE_VERIFY_FAILED" in fetched.detail
    assert network.ca_bundle() == ssl.get_default_verify_paths().openssl_cafile


def test_outside_github_actions_the_test_ca_hook_is_honoured(monkeypatch, tmp_path, zip_bytes):
    ca = make_test_ca(tmp_path / "ca")
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.setenv(network.CA_FILE_ENV, str(ca.ca_pem))
    with serve_zips(ca.server_context()) as server:
        server.routes["/a-1.0.0.zip"] = Route(zip_bytes)
        url = server.url("a-1.0.0.zip")
        assert fetch_all([url], UrlSettings(retries=0))[url].state == "zip"
    assert network.ca_bundle() == str(ca.ca_pem)


def test_a_requests_session_ignores_proxies_ca_variables_and_netrc(monkeypatch, tmp_path,
                                                                   zip_bytes):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".netrc").write_text("machine 127.0.0.1 login attacker password netrc-secret\n")
    monkeypatch.setenv("HOME", str(home))
    with serve_zips() as server, recording_proxy() as proxy:
        server.routes["/a-1.0.0.zip"] = Route(zip_bytes)
        _job_sets(monkeypatch, proxy.url, tmp_path / "nowhere.pem")
        # The session the artifact download uses (what PyGithub cannot fetch itself).
        with download_session(RetryPolicy(), None) as session:
            response = session.get(server.url("a-1.0.0.zip"), timeout=10)
            sent = response.request.headers
        assert proxy.seen == []
    assert response.status_code == 200 and response.content == zip_bytes
    assert "Authorization" not in sent  # no netrc credentials
    assert session.verify == ssl.get_default_verify_paths().openssl_cafile
