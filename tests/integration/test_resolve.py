"""The real `swift package resolve` of a consumer, against zips served over loopback HTTPS.

A throwaway test CA signs the server's certificate; SwiftPM in the toolchain chroot trusts it
through the wrapper's SWIFTPM_GUARD_CA_FILE, our own downloads through SSL_CERT_FILE. Network:
127.0.0.1 only.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.hosted_release import rendered_release, serve_release
from support.release import write_release
from support.tls import LoopbackCA
from swiftpm_guard.errors import InfrastructureError
from swiftpm_guard.jobs.resolve import ResolveSettings, resolve_rendered

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
