"""Fixtures for the container tier: one engine connection and one image build per session.

Without an engine these tests skip, loudly (the reason is in every skip line and, when
tests/e2e is run on its own, in the report header); with SWIFTPM_GUARD_REQUIRE_DOCKER=1, as
.ci/run sets, they fail instead.
"""

from __future__ import annotations

import pytest

from support.container import Build, build_image, connect, engine_required
from support.registry import loopback_registry, registry_missing


def pytest_report_header(config):
    client, message = connect()
    if client is None:
        verdict = "FAIL (required)" if engine_required() else "SKIPPED"
        return [f"container engine: NONE, tests/e2e {verdict}: {message}"]
    client.close()
    return [f"container engine: {message}"]


@pytest.fixture(scope="session")
def engine():
    client, message = connect()
    if client is None:
        if engine_required():
            pytest.fail(f"SWIFTPM_GUARD_REQUIRE_DOCKER=1 but {message}", pytrace=False)
        pytest.skip(f"CONTAINER TESTS SKIPPED: {message}")
    yield client
    client.close()


@pytest.fixture(scope="session")
def built(engine) -> Build:
    return build_image(engine)


@pytest.fixture(scope="session")
def image(built: Build):
    return built.image


@pytest.fixture(scope="session")
def release_built(engine, built: Build) -> Build:
    """The Dockerfile's `release` target, what releases push (on top of `built`'s layers)."""
    return build_image(engine, "swiftpm-guard:e2e-release", target="release")


@pytest.fixture(scope="session")
def registry(engine, tmp_path_factory):
    """One OCI registry on loopback for the session (support/registry.py): the releases of
    test_prebuilt_image.py and test_release_dry_run.py push the same layers under two owners,
    so the second push mounts them instead of compressing and sending them again."""
    problem = registry_missing()
    if problem:
        if engine_required():
            pytest.fail(f"SWIFTPM_GUARD_REQUIRE_DOCKER=1 but {problem}", pytrace=False)
        pytest.skip(f"REGISTRY TESTS SKIPPED: {problem}")
    with loopback_registry(tmp_path_factory.mktemp("registry")) as running:
        yield running
