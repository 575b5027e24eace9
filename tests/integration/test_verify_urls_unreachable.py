"""A host that cannot be reached under --verify-urls (issue 33, 6): DNS, connect and TLS failures
say nothing about the zips, so they are exit 3 "could not verify", never a finding that takes
the title; when the build is refused anyway, they are a notice beside the real findings.

Without network: a `.invalid` name fails to resolve locally (RFC 6761), and a loopback port
that nothing listens on refuses the connection.
"""

from __future__ import annotations

import json
import socket

from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, write_release
from support.tls import LoopbackCA
from support.zip_server import Route, serve_zips
from swiftpm_guard.cli.main import main
from swiftpm_guard.core.model import Location
from swiftpm_guard.core.urls import HostedZip, UrlSettings
from swiftpm_guard.sources.hosted import verify_reachable

FAST = UrlSettings(timeout=2, retries=1, jobs=2)


def refused_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _zip(url: str) -> HostedZip:
    return HostedZip("alpha", url, "0" * 64, Location("Package.swift", 7))


def test_dns_connect_and_tls_failures_are_unreachable_not_findings(test_ca: LoopbackCA):
    port = refused_port()
    with serve_zips(test_ca.server_context()) as untrusted:  # its CA is not trusted here
        untrusted.routes["/alpha-1.0.0.zip"] = Route(b"PK\x03\x04")
        urls = ["https://zips.invalid/alpha-1.0.0.zip", f"http://127.0.0.1:{port}/a.zip",
                untrusted.url("alpha-1.0.0.zip")]
        results, stats, unreachable = verify_reachable([_zip(u) for u in urls], FAST)
    assert results == [None, None, None]
    why = dict(unreachable)
    assert why.keys() == set(urls)
    assert why[urls[0]].startswith("DNS: the host name does not resolve")
    assert why[urls[1]].startswith("connect: refused")
    assert why[urls[2]].startswith("TLS: the certificate does not verify")
    assert "attempts" not in why[urls[2]]  # a certificate is not retried
    assert stats.urls == 3 and stats.verified == 0


def _release(tmp_path, built=(*PRODUCT_KEYS, *BINARY_ONLY_KEYS)):
    release = write_release(tmp_path / "release", "1.2.3", built=list(built))
    return release


def _check(release, base_url: str, report) -> list[str]:
    return ["check", "--template", str(release.template), "--version", "1.2.3",
            "--artifacts", str(release.artifacts), "--frameworks-from",
            f"{release.workflow}:build-frameworks:FRAMEWORKS", "--swift", "off",
            "--accept-static", "--verify-urls", "--base-url", base_url, "--url-retries", "0",
            "--json", str(report)]


def test_a_sound_build_whose_host_cannot_be_reached_is_exit_3(tmp_path, capsys):
    release = _release(tmp_path)
    report = tmp_path / "report.json"
    assert main(_check(release, "https://zips.invalid/frameworks/", report)) == 3
    err = capsys.readouterr().err
    assert "verify-urls: could not verify 20 zip URLs: https://zips.invalid/frameworks/" in err
    assert "DNS: the host name does not resolve" in err
    assert "nothing was judged" in err
    assert not report.exists()  # no verdict was reached


def test_a_refused_build_keeps_its_findings_first_and_notes_the_host(tmp_path, capsys):
    release = _release(tmp_path)
    for name in ("kernels_llm", "kernels_llm_debug"):
        (release.artifacts / f"{name}-1.2.3.zip").unlink()
    report = tmp_path / "report.json"
    base = f"http://127.0.0.1:{refused_port()}/frameworks/"
    assert main(_check(release, base, report)) == 1
    capsys.readouterr()
    findings = json.loads(report.read_text())["findings"]
    assert {f["code"] for f in findings if f["severity"] == "error"} == {"missing-checksum"}
    (notice,) = [f for f in findings if f["code"] == "url-error"]
    assert notice["severity"] == "notice"
    assert notice["message"].startswith(f"could not verify 20 zip URLs: {base}")
    assert "connect: refused" in notice["message"]
