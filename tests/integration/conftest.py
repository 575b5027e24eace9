"""Fixtures for integration tests: the real SwiftPM, and real git remotes for publishing.

`swift` is, in order: $SWIFTPM_GUARD_SWIFT, `swift` on PATH, or the wrapper that
`scripts/swift-toolchain.sh` leaves in its cache. Without one, the SwiftPM tests skip with a
loud reason, except when SWIFTPM_GUARD_REQUIRE_SWIFT=1 (CI sets it): then they fail.
"""

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.git_http import GitHttpServer, git_http_server
from support.git_remote import Spy, make_spy, make_template_remote
from support.tls import LoopbackCA, make_test_ca
from support.zip_server import ZipServer, serve_zips

TOOLCHAIN_WRAPPER = Path("/var/cache/swiftpm-guard/swift-trixie/bin/swift")


def find_swift() -> str | None:
    explicit = os.environ.get("SWIFTPM_GUARD_SWIFT")
    if explicit:
        return explicit
    on_path = shutil.which("swift")
    if on_path:
        return on_path
    return str(TOOLCHAIN_WRAPPER) if os.access(TOOLCHAIN_WRAPPER, os.X_OK) else None


@pytest.fixture(scope="session")
def swift() -> str:
    found = find_swift()
    if found is not None:
        return found
    reason = (
        "NO SWIFT TOOLCHAIN: SwiftPM tests did not run. Build one with "
        "`scripts/swift-toolchain.sh` (root, ~1 min, 2.6 GB) or set SWIFTPM_GUARD_SWIFT."
    )
    if os.environ.get("SWIFTPM_GUARD_REQUIRE_SWIFT") == "1":
        pytest.fail(reason + " SWIFTPM_GUARD_REQUIRE_SWIFT=1 forbids skipping.")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def swift_net(swift: str) -> str:
    """A `swift` that may use the network, for `swift package resolve`: the toolchain wrapper's
    networked twin `bin/swift-net` beside it, else `swift` itself (a real toolchain)."""
    twin = Path(swift).with_name("swift-net")
    if os.access(twin, os.X_OK):
        return str(twin)
    with open(swift, "rb") as stream:
        if b"swiftpm-guard trixie chroot" in stream.read(4096):
            pytest.fail(f"{swift} is the network-less toolchain wrapper and {twin} is missing: "
                        "run scripts/swift-toolchain.sh again")
    return swift


@pytest.fixture(scope="session")
def swift_cache(tmp_path_factory) -> Path:
    """One cache for the session: each distinct manifest costs SwiftPM time only once."""
    return tmp_path_factory.mktemp("swiftpm-cache")


# -- hosted zips over loopback HTTPS -------------------------------------------------------

@pytest.fixture(scope="session")
def test_ca(tmp_path_factory: pytest.TempPathFactory) -> LoopbackCA:
    return make_test_ca(tmp_path_factory.mktemp("ca"))


@pytest.fixture
def https(test_ca: LoopbackCA, monkeypatch: pytest.MonkeyPatch) -> Iterator[ZipServer]:
    # Our urllib trusts the pinned bundle only (infra.network), or outside GitHub Actions the
    # one this names; SSL_CERT_FILE is ignored, as a job's environment must be.
    monkeypatch.setenv("SWIFTPM_GUARD_CA_FILE", str(test_ca.ca_pem))
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    with serve_zips(test_ca.server_context()) as server:
        yield server


# -- publishing against real git remotes ------------------------------------------------------

TOKEN = "ghs_TestToken0123456789abcdefXYZ"


@dataclass
class GitRemote:
    kind: str  # "path" or "http"
    url: str  # what --repo gets
    bare: Path  # the repository itself, for inspection
    server: GitHttpServer | None = None
    token: str | None = None


@contextmanager
def _remote(kind: str, root: Path) -> Iterator[GitRemote]:
    bare = make_template_remote(root)
    if kind == "path":
        yield GitRemote("path", str(bare), bare)
        return
    with git_http_server(bare.parent, token=TOKEN) as server:
        yield GitRemote("http", server.url(bare.name), bare, server, TOKEN)


@pytest.fixture(params=["path", "http"])
def remote(
    request: pytest.FixtureRequest, tmp_path: Path, publish_environment: None
) -> Iterator[GitRemote]:
    """The template remote by path, then the same over loopback smart HTTP with a token."""
    with _remote(request.param, tmp_path / "remotes") as made:
        yield made


@pytest.fixture
def http_remote(tmp_path: Path, publish_environment: None) -> Iterator[GitRemote]:
    with _remote("http", tmp_path / "remotes") as made:
        yield made


@pytest.fixture
def publish_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # A CI run on a pull request must not turn every publish here into a no-push run.
    monkeypatch.delenv("GITHUB_EVENT_NAME", raising=False)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)


@pytest.fixture
def spy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Spy:
    return make_spy(tmp_path, monkeypatch)
