import base64

import pytest

from swiftpm_guard.core.names import (
    DEFAULT_AUTHOR,
    Identity,
    Remote,
    authorization_header,
    branch_ref,
    manifest_path,
    template_ref,
    tree_path,
)
from swiftpm_guard.errors import UsageError


@pytest.mark.parametrize(
    ("prefix", "version", "ref"),
    [
        ("swiftpm-", "1.2.3", "refs/heads/swiftpm-1.2.3"),
        ("swiftpm-", "1.2.3.20250101", "refs/heads/swiftpm-1.2.3.20250101"),
        ("release/swiftpm-", "0.7.0", "refs/heads/release/swiftpm-0.7.0"),
        ("spm_", "1.0.0-rc.1+build", "refs/heads/spm_1.0.0-rc.1+build"),
    ],
)
def test_branch_ref(prefix, version, ref):
    assert branch_ref(prefix, version) == ref


@pytest.mark.parametrize(
    ("name", "ref"),
    [
        ("swiftpm", "refs/heads/swiftpm"),
        ("release/swiftpm", "refs/heads/release/swiftpm"),
        ("refs/tags/template-v1", "refs/tags/template-v1"),
    ],
)
def test_template_ref(name, ref):
    assert template_ref(name) == ref


@pytest.mark.parametrize(
    ("template", "manifest"),
    [
        ("Package.swift.template", "Package.swift"),
        ("sub/Package@swift-5.9.swift.template", "sub/Package@swift-5.9.swift"),
        ("Package.swift.j2", "Package.swift"),
    ],
)
def test_manifest_path(template, manifest):
    assert manifest_path(tree_path(template)) == manifest


def test_remote_forms(tmp_path):
    path = Remote.parse("origin.git", cwd=str(tmp_path))
    assert (path.kind, path.url, path.origin) == ("path", str(tmp_path / "origin.git"), None)
    assert path.package_url() == (tmp_path / "origin.git").as_uri()
    assert Remote.parse("file:///srv/x.git").local_path == "/srv/x.git"
    https = Remote.parse("https://GitHub.com:443/o/r.git")
    assert (https.kind, https.origin, https.secure) == ("http", "https://github.com:443/", True)
    assert Remote.parse("http://127.0.0.1:8080/r.git").secure
    assert Remote.parse("http://[::1]:8080/r.git").origin == "http://[::1]:8080/"
    assert not Remote.parse("http://example.com/r.git").secure


@pytest.mark.parametrize(
    "value",
    [
        "ext::sh -c x",
        "-oProxyCommand=x",
        "ssh://h/x",
        "git://h/x",
        "https://u:p@h/x",
        "https://u@h/x",
        "https://h/x?t=1",
        "http://h:notaport/x",
        "a\tb",
        "x::y",
    ],
)
def test_remote_refused(value):
    with pytest.raises(UsageError):
        Remote.parse(value)


def test_identity_and_header():
    who = Identity.parse(DEFAULT_AUTHOR)
    assert who.name == "github-actions[bot]"
    assert who.email == "41898282+github-actions[bot]@users.noreply.github.com"
    header = authorization_header("tok")
    assert header.startswith("Authorization: Basic ")
    assert base64.b64decode(header.split()[-1]) == b"x-access-token:tok"
