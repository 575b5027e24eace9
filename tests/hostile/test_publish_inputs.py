"""Hostile values for publish and preflight: one clear line, exit 2, and git never runs.

A `git` spy first on PATH logs every invocation; each case asserts the log stays empty, so
the value was refused before it could reach git as an option, a ref, a URL or a header.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.git_remote import Spy, make_bare, make_spy
from swiftpm_guard.cli.main import main

TOKEN = "ghs_HostileCaseToken0123456789"


@pytest.fixture
def spy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Spy:
    monkeypatch.delenv("GITHUB_EVENT_NAME", raising=False)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    return make_spy(tmp_path, monkeypatch)


@pytest.fixture
def origin(tmp_path: Path) -> str:
    return str(make_bare(tmp_path / "origin.git"))


def refused(capsys, spy: Spy, args: list[str]) -> str:
    code = main(args)
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert err.startswith("swiftpm-guard: error:") and err.count("\n") == 1, err
    assert spy.calls() == [], "git ran before the input was refused"
    assert TOKEN not in err and TOKEN not in out
    return err


def publish(release, origin: str, *extra: str, version: str | None = None) -> list[str]:
    return [
        "publish",
        "--accept-static",  # no SwiftPM in this tier: a static proof
        "--artifacts",
        str(release.artifacts),
        "--version",
        release.version if version is None else version,
        "--repo",
        origin,
        *extra,
    ]


BAD_VERSIONS = [
    "1.0.0;rm -rf /",
    "../x",
    "1.0 .0",
    "1.0.0\n",
    "1.0.0\nrm -rf /",
    "",
    "-1.0.0",
    "1..0",
    "$(id)",
    "1.0.0`id`",
    "1.0.0/../../x",
    "1.0.0.lock",
    "1.0.0@{1}",
    "1.0.0~1",
    "1.0.0:refs/heads/main",
    "1.0.0\x00",
    "--force",
]


@pytest.mark.parametrize("version", BAD_VERSIONS)
def test_bad_version_is_refused_before_git(capsys, spy, release, origin, version):
    refused(capsys, spy, publish(release, origin, version=version))
    refused(capsys, spy, ["preflight", "--version", version, "--repo", origin])


@pytest.mark.parametrize(
    "prefix",
    [
        "--upload-pack=touch x",
        "a b",
        "x..y",
        ".hidden-",
        "-x",
        "a\nb",
        "x.lock/",
        "a//b",
        "pre~",
        "pre^",
        "pre:",
        "a*",
    ],
)
def test_bad_branch_prefix_is_refused_before_git(capsys, spy, release, origin, prefix):
    refused(capsys, spy, publish(release, origin, "--branch-prefix", prefix))
    refused(
        capsys,
        spy,
        ["preflight", "--version", "1.2.3", "--repo", origin, "--branch-prefix", prefix],
    )


@pytest.mark.parametrize(
    "ref",
    [
        "-x",
        "a..b",
        "a b",
        "x.lock",
        "@{1}",
        "HEAD~1",
        "a:b",
        "refs/heads/../x",
        "--upload-pack=touch /tmp/x",
        "a\n",
        "",
    ],
)
def test_bad_template_ref_is_refused_before_git(capsys, spy, release, origin, ref):
    refused(capsys, spy, publish(release, origin, "--template-ref", ref))


@pytest.mark.parametrize(
    "repo",
    [
        "ext::sh -c touch% /tmp/pwned",
        "-uhttp://x",
        "--upload-pack=touch /tmp/x",
        "ssh://host/x",
        "git://host/x",
        "https://user:secret@example.com/x.git",
        "https://example.com/x.git?access_token=1",
        "https://example.com/x#frag",
        "https://",
        "file://otherhost/x",
        " /tmp/x",
        "/tmp/x\n",
        "fd::3",
    ],
)
def test_bad_remote_is_refused_before_git(capsys, spy, release, repo):
    refused(capsys, spy, publish(release, repo))
    refused(capsys, spy, ["preflight", "--version", "1.2.3", "--repo", repo])


def test_missing_local_remote_is_refused_before_git(capsys, spy, release, tmp_path):
    err = refused(capsys, spy, publish(release, str(tmp_path / "nowhere.git")))
    assert "remote repository folder not found" in err
    refused(capsys, spy, publish(release, "host:path"))  # a path here, never ssh


@pytest.mark.parametrize(
    "author", ["nobody", "A <a@b>\nB <c@d>", "<a@b>", "A <a b@c>", "A <a@b", "A\x00 <a@b>"]
)
def test_bad_author_is_refused_before_git(capsys, spy, release, origin, author):
    refused(capsys, spy, publish(release, origin, "--author", author))


@pytest.mark.parametrize(
    "template",
    [
        "../Package.swift.template",
        "/abs/Package.swift.template",
        "Package.swift",
        "a/../b.template",
        "x\n.template",
        "-x.template",
        ".template",
    ],
)
def test_bad_template_path_is_refused_before_git(capsys, spy, release, origin, template):
    refused(capsys, spy, publish(release, origin, "--template", template))


def test_header_injection_through_the_token_is_refused(capsys, spy, release, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "abc\r\nX-Injected: 1")
    err = refused(capsys, spy, publish(release, "http://127.0.0.1:9/x.git"))
    assert "X-Injected" not in err


def test_token_is_never_sent_over_plain_http_to_another_host(capsys, spy, release):
    err = refused(capsys, spy, publish(release, "http://example.invalid/x.git"))
    assert "plain http" in err


@pytest.mark.parametrize(
    "extra",
    [
        ["--warn", "branch-exists"],
        ["--token-env", "A B"],
        ["--git-timeout", "0"],
        ["--package-url", "ext::x"],
        ["--swift", "/nonexistent/swift"],
        ["--verify-urls", "--url-template", "{nope}"],
        ["--verify-urls", "--base-url", "https://u:p@cdn.example/"],
        ["--render-timeout", "0"],
        ["--update", "--allow-overwrite"],
        ["--exclude", "../outside"],
        ["--exclude", "/etc/passwd"],
        ["--exclude", "--upload-pack=x"],
        ["--exclude", "a\nb"],
        ["--exclude", ".github/", "--exclude", "a//b"],
    ],
)
def test_bad_options_are_refused_before_git(capsys, spy, release, origin, extra):
    refused(capsys, spy, publish(release, origin, *extra))


def test_bad_preflight_url_options_are_refused_before_git(capsys, spy, origin):
    for extra in (
        ["--verify-absent", "--url-jobs", "0"],
        ["--verify-absent", "--template", "../x.template"],
    ):
        refused(capsys, spy, ["preflight", "--version", "1.2.3", "--repo", origin, *extra])
