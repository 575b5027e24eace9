import base64

import pytest

from swiftpm_guard.core.names import (
    ALL_KINDS,
    DEFAULT_AUTHOR,
    REF_MAX,
    Identity,
    Remote,
    authorization_header,
    branch_ref,
    check_ref_name,
    manifest_path,
    ref_problem,
    repo_path,
    strip_userinfo,
    template_ref,
    tree_path,
    validate_excluded,
    validate_ref,
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


@pytest.mark.parametrize("name", ["a.lock/b", "a/b.lock", "x" * (REF_MAX + 1), "-a", "a/.b",
                                  "a..b", "a//b", "a.", "/a", "a/"])
def test_one_ref_rule_for_full_refs_and_branch_names(name):
    """Branch names and full refs are held to the same rule (the oracle: integration's
    test_ref_rule_git.py)."""
    assert ref_problem(name) is not None
    with pytest.raises(UsageError, match="is not a valid branch name"):
        validate_ref(name, "input template-ref")
    with pytest.raises(UsageError, match="is not a usable git ref name"):
        check_ref_name(name, option="branch")
    ok = "x" * (REF_MAX - len("refs/heads/"))
    assert validate_ref(ok, "x") == ok and check_ref_name(f"refs/heads/{ok}", option="b")


@pytest.mark.parametrize(("value", "path"), [
    ("Package.swift.template", "Package.swift.template"),
    ("./sub/Package@swift-5.9.swift.j2", "sub/Package@swift-5.9.swift.j2"),
    ("dist/", "dist"),
    ("./a+b_c-d/e.f", "a+b_c-d/e.f"),
])
def test_one_path_rule_for_every_path_a_user_names(value, path):
    assert repo_path(value, "x") == tree_path(value) == path
    assert validate_excluded((value,)) == (path + "/" if value.endswith("/") else path,)


@pytest.mark.parametrize("value", ["", ".", "./", "/", "/etc/passwd", "../x", "a/../b", "a/./b",
                                   "a//b", "-x", "a b", "a\nb", "a\\b", "a*b", "x" * 401])
def test_the_path_rule_refuses_in_one_line(value):
    for check in (lambda: repo_path(value, "input template"), lambda: tree_path(value),
                  lambda: validate_excluded((value,))):
        with pytest.raises(UsageError, match="must be a relative path inside the repository") \
                as raised:
            check()
        assert "\n" not in str(raised.value)


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


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("git@github.com:org/repo.git", "ssh"),
        ("github.com:org/repo.git", "ssh"),
        ("ssh://git@github.com:22/org/repo.git", "ssh"),
        ("git+ssh://github.com/org/repo.git", "ssh"),
        ("git://example.org/repo.git", "git"),
        ("https://example.org/repo.git", "http"),
        ("file:///srv/repo.git", "file"),
        ("/srv/repo.git", "path"),
        ("./repo:1", "path"),
    ],
)
def test_every_form_git_accepts_is_one_kind(value, kind, tmp_path):
    assert Remote.parse(value, cwd=str(tmp_path), kinds=ALL_KINDS).kind == kind


@pytest.mark.parametrize(
    "value",
    [
        "https:user:ghs_Zq9secret@example.org/o/r.git",  # git: ssh to a host named "https"
        "http:/example.org/o/r.git",
        "user:ghs_Zq9secret@example.org:/srv/r.git",  # git: ssh to host "user"
        "user:ghs_Zq9secret@example.org:r.git",
        "ssh://user:ghs_Zq9secret@example.org/r.git",
        "git://user@example.org/r.git",
        "https://ghs_Zq9secret@example.org/r.git",
        "ext::sh -c x",
        "fd::3",
        "ftp://example.org/r.git",
    ],
)
def test_ambiguous_remotes_are_refused_in_one_line_without_the_secret(value, tmp_path):
    with pytest.raises(UsageError) as raised:
        Remote.parse(value, cwd=str(tmp_path), kinds=ALL_KINDS)
    message = str(raised.value)
    assert "Zq9secret" not in message and "\n" not in message


def test_a_remote_prints_redacted_and_publish_takes_no_ssh(tmp_path):
    assert str(Remote.parse("https://example.org/r.git")) == "https://example.org/r.git"
    with pytest.raises(UsageError, match="an ssh remote; only a path"):
        Remote.parse("git@github.com:o/r.git")
    with pytest.raises(UsageError, match="an ssh remote"):  # git: ssh to host "repo"
        Remote.parse("repo:1", cwd=str(tmp_path))
    assert strip_userinfo("https://x-access-token:t@github.com/o/r") == (
        "https://github.com/o/r", True)
    assert strip_userinfo("git@github.com:o/r") == ("git@github.com:o/r", False)
