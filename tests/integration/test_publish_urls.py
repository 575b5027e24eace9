"""publish --verify-urls and preflight --verify-absent: the hosted zips, checked over loopback
HTTP before anything is pushed or uploaded."""

from __future__ import annotations

import pytest

from support.git_remote import refs
from support.release import Release, write_release
from support.zip_server import Route, serve_zips
from swiftpm_guard.cli.main import main

BRANCH = "refs/heads/swiftpm-1.2.3"
FAST = ["--url-timeout", "2", "--url-retries", "0"]


@pytest.fixture
def release(tmp_path) -> Release:
    """Zips SwiftPM accepts (a real XCFramework Info.plist): --verify-urls looks inside."""
    return write_release(tmp_path / "release", real_zips=True)


@pytest.fixture
def zips():
    with serve_zips() as server:
        yield server


def host(server, release, *, skip: str | None = None) -> None:
    for path in release.artifacts.iterdir():
        if path.name != skip:
            server.routes[f"/cdn/{path.name}"] = Route(path.read_bytes())


def publish(remote, release, server, capsys) -> tuple[int, str]:
    code = main(
        [
            "publish",
            "--artifacts",
            str(release.artifacts),
            "--version",
            release.version,
            "--repo",
            remote.url,
            "--verify-urls",
            "--base-url",
            server.url("cdn/"),
            "--accept-static",  # no swift here
            *FAST,
        ]
    )
    return code, capsys.readouterr().err


def test_publish_verifies_every_hosted_zip_before_pushing(remote, release, zips, capsys):
    host(zips, release)
    code, err = publish(remote, release, zips, capsys)
    assert code == 0, err
    assert BRANCH in refs(remote.bare)
    assert len(zips.hits) == len(list(release.artifacts.iterdir()))


def test_publish_with_a_missing_zip_pushes_nothing(remote, release, zips, capsys):
    host(zips, release, skip="kernels_llm_debug-1.2.3.zip")
    code, err = publish(remote, release, zips, capsys)
    assert code == 1
    assert "url-missing" in err and "kernels_llm_debug" in err
    assert BRANCH not in refs(remote.bare)


def test_preflight_verify_absent_reads_the_template_from_the_ref(remote, zips, capsys):
    args = [
        "preflight",
        "--version",
        "9.9.9",
        "--repo",
        remote.url,
        "--verify-absent",
        "--base-url",
        zips.url("cdn/"),
        *FAST,
    ]
    assert main(args) == 0, capsys.readouterr().err
    assert len(zips.hits) == 20  # every zip URL of 9.9.9 the template names, none there
    zips.routes["/cdn/threadpool-9.9.9.zip"] = Route(b"PK\x03\x04")
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "url-exists" in err and "threadpool-9.9.9.zip" in err
    # No swiftpm-9.9.9: the zip is a run's that uploaded and did not publish (issue 23).
    assert ("swiftpm-9.9.9 does not exist, so an earlier run uploaded this version's zips and "
            "did not publish. Finish it by publishing those zips") in err
    assert "by running without verify-absent" in err
    assert "would overwrite a published archive" not in err


def test_preflight_verify_absent_on_a_published_version_says_it_would_overwrite(
        remote, release, zips, capsys):
    host(zips, release)
    code, err = publish(remote, release, zips, capsys)
    assert code == 0, err
    args = ["preflight", "--version", release.version, "--repo", remote.url, "--verify-absent",
            "--base-url", zips.url("cdn/"), *FAST]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "branch-exists" in err and "url-exists" in err
    assert "uploading would overwrite a published archive" in err
    assert "earlier run uploaded" not in err
