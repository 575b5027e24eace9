"""The real `swift package resolve` of a consumer, against zips served over loopback HTTPS.

A throwaway test CA signs the server's certificate; SwiftPM in the toolchain chroot trusts it
through the wrapper's SWIFTPM_GUARD_CA_FILE, our own downloads through SWIFTPM_GUARD_CA_FILE (infra.network). Network:
127.0.0.1 only.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.checks import evaluated, request_for
from support.hosted_release import rendered_release, serve_release
from support.release import write_release
from support.tls import LoopbackCA
from swiftpm_guard.errors import InfrastructureError, UsageError
from swiftpm_guard.jobs.adapters import Adapters
from swiftpm_guard.jobs.check import with_hosted
from swiftpm_guard.jobs.resolve import ResolveSettings, resolve_rendered
from swiftpm_guard.sources.artifacts import read_checksums
from swiftpm_guard.sources.template import load_template

pytestmark = pytest.mark.slow

def settings(swift_net: str, test_ca: LoopbackCA, cache: Path) -> ResolveSettings:
    return ResolveSettings(swift=swift_net, cache_dir=cache, ca_file=test_ca.ca_pem, timeout=300)


def test_good_release_resolves_every_target_then_comes_from_the_cache(
        tmp_path, https, swift_net, test_ca):
    release = write_release(tmp_path / "release", products=("executorch", "backend_xnnpack"),
                            binary_only=("threadpool",), real_zips=True)
    serve_release(https, release)
    rendered, built = rendered_release(release, https.url("frameworks/"))
    chosen = settings(swift_net, test_ca, tmp_path / "cache")

    cold = resolve_rendered([rendered], built, release.version, chosen)
    hits_after_cold = sum(https.hits.values())
    warm = resolve_rendered([rendered], built, release.version, chosen)

    names = sorted(release.checksum_of)
    assert [f.code for f in cold.findings] == ["resolved"] * len(names), cold.findings
    assert sorted(f.subject for f in cold.findings) == names
    assert all(f.file == str(release.template) and f.line for f in cold.findings)
    (resolution,) = cold.resolutions
    assert resolution.ok and all(t.downloaded for t in resolution.targets)
    assert hits_after_cold == len(names)  # SwiftPM itself fetched every zip, once
    assert not cold.cached and warm.cached
    assert warm.findings == cold.findings
    assert sum(https.hits.values()) == hits_after_cold  # the cache answered, no download
    print(f"resolve of {len(names)} binary targets: cold {cold.seconds:.2f} s, "
          f"cached {warm.seconds:.3f} s")


def test_a_swift_that_cannot_run_is_an_infrastructure_error(tmp_path, test_ca):
    release = write_release(tmp_path / "release", products=("executorch",), binary_only=(),
                            real_zips=True)
    rendered, built = rendered_release(release, "https://127.0.0.1:9/frameworks/")
    missing = ResolveSettings(swift=str(tmp_path / "no-swift"), cache_dir=tmp_path / "cache")
    with pytest.raises(InfrastructureError, match="cannot run"):
        resolve_rendered([rendered], built, release.version, missing)


def test_the_network_less_evaluation_wrapper_is_refused_before_any_run(tmp_path, swift):
    if b"network unshared" not in Path(swift).read_bytes()[:4096]:
        pytest.skip(f"{swift} is a real toolchain, not the evaluation wrapper")
    release = write_release(tmp_path / "release", products=("executorch",), binary_only=(),
                            real_zips=True)
    rendered, built = rendered_release(release, "https://127.0.0.1:9/frameworks/")
    with pytest.raises(UsageError, match=r"without a network.*swift-net"):
        resolve_rendered([rendered], built, release.version,
                         ResolveSettings(swift=swift, cache_dir=tmp_path / "cache"))


def test_the_test_ca_is_trusted_only_by_the_run_given_it(tmp_path, https, swift_net, test_ca,
                                                         monkeypatch):
    # The https fixture trusts the test CA for this process's own clients; a run not given
    # it must not inherit it either.
    monkeypatch.delenv("SWIFTPM_GUARD_CA_FILE", raising=False)
    release = write_release(tmp_path / "release", products=("executorch",),
                            binary_only=("threadpool",),
                            real_zips=True)
    serve_release(https, release)
    rendered, built = rendered_release(release, https.url("frameworks/"))
    untrusted = ResolveSettings(swift=swift_net, cache_dir=tmp_path / "cache", timeout=300)

    outcome = resolve_rendered([rendered], built, release.version, untrusted)

    assert {(f.code, f.subject) for f in outcome.findings} == {
        (outcome, name) for outcome in ("resolve-failed",)
        for name in ("executorch", "executorch_debug", "threadpool", "threadpool_debug")}
    assert {t.kind for t in outcome.resolutions[0].targets} == {"download"}
    bundle = Path(swift_net).parent.parent / "root/etc/ssl/certs/ca-certificates.crt"
    if bundle.is_file():  # the toolchain's chroot: its own bundle never holds the test CA
        ca_body = test_ca.ca_pem.read_text().split("-----")[2].strip()
        assert ca_body not in bundle.read_text()


def test_with_resolution_runs_after_a_passing_check_and_only_then(
        tmp_path, https, swift_net, test_ca):
    release = write_release(tmp_path / "release", products=("executorch",),
                            binary_only=("threadpool",), real_zips=True)
    serve_release(https, release)
    rendered_release(release, https.url("frameworks/"))  # points the template at the server
    template, _ = load_template(release.template)
    artifacts = read_checksums(release.checksums)
    chosen = settings(swift_net, test_ca, tmp_path / "cache")
    request = request_for([template], release.version, resolve=chosen,
                          warn=frozenset({"resolved"}))
    passing = evaluated([template], artifacts, version=release.version)
    logged: list[str] = []
    adapters = Adapters(log=logged.append)

    checked = with_hosted(passing, request, adapters)
    result = checked.resolved

    assert result is not None and result.resolutions[0].ok
    added = checked.report.findings[len(passing.report.findings):]
    assert sorted(f.subject for f in added) == sorted(release.checksum_of)
    assert {(f.code, str(f.severity)) for f in added} == {("resolved", "notice")}  # not warned
    assert logged and logged[0].startswith("resolve: 4 binary targets in ")
    failing = evaluated([template], artifacts[:1], version=release.version)
    assert not failing.report.consistent  # three placeholders left unfilled
    hits = sum(https.hits.values())
    unchanged = with_hosted(failing, request, adapters)
    assert unchanged.resolved is None and unchanged.report == failing.report
    assert sum(https.hits.values()) == hits
    assert logged[-1] == "resolve: skipped, the check already has error findings"
