"""A URL's userinfo never reaches a message, however broken the URL around it is.

Every refusal of a `--repo` (publish, preflight, audit), `--package-url` or `--base-url` used to
quote the value whole: a bad port, trailing whitespace or a stray `[` printed the password.
The CLI runs in-process on generated secrets inside generated broken URLs; neither stdout nor
stderr may hold the secret, and each refusal is one line with exit 2.
"""

from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.release import Release
from swiftpm_guard.cli.main import main
from swiftpm_guard.redact import redact_userinfo, shown_location

#: Characters a password may hold raw in a hostile URL (`@`, `/`, `:` and spaces included).
SECRET_CHARS = string.ascii_letters + string.digits + "-._~!$&'()*+,;=%:/@ \t[]?#"
#: A marker so the secret is never a substring of the surrounding message by accident.
SECRETS = st.builds(
    lambda core: f"Zq9{core}",
    st.text(alphabet=SECRET_CHARS, min_size=4, max_size=24),
)
USERS = st.text(alphabet=string.ascii_letters + string.digits + "._-", max_size=8)

BROKEN = [
    "http://{ui}@example.invalid:99999/o/r.git",  # port out of range
    "http://{ui}@example.invalid:abc/o/r.git",  # port not a number
    "https://{ui}@example.invalid/o/r.git ",  # trailing whitespace
    " https://{ui}@example.invalid/o/r.git",  # leading whitespace
    "http://{ui}@[example.invalid/o/r.git",  # stray [
    "http://{ui}@example.invalid]/o/r.git",  # stray ]
    "https://{ui}@example.invalid/o/r.git?x=1",
    "https://{ui}@example.invalid/o/r.git#frag",
    "https://{ui}@example.invalid/o/r\t.git",
    "https://{ui}@example.invalid/o/r.git\n",
    "https://{ui}@/o/r.git",  # no host
    "https://{ui}@example.invalid/o/r.git",  # well formed, still refused
    "ftp://{ui}@example.invalid/o/r.git",
    "ssh://{ui}@example.invalid/o/r.git",
    "HTTP ://{ui}@example.invalid/o/r.git",
    "-https://{ui}@example.invalid/o/r.git",
    "{ui}@example.invalid:o/r.git",  # scp-like
    "file://{ui}@example.invalid/o/r.git",
    "https://{ui}@exa mple.invalid/o/r.git",
]


def _url(template: str, user: str, secret: str) -> tuple[str, str]:
    """The URL and the secret in it: `user:secret@`, or the secret alone as the user
    (`https://<token>@host/`, common too). In git's scp-like form a `/` before the `@` makes
    the value a plain relative path, no userinfo at all, so the secret holds none there."""
    if "://" not in template:
        secret = secret.replace("/", "_")
    return template.format(ui=f"{user}:{secret}" if user else secret), secret


def _assert_hidden(code: int, out: str, err: str, secret: str) -> None:
    assert code in (2, 3), (code, out, err)
    assert secret not in out and secret not in err, err
    assert err.count("\n") == 1 and err.startswith("swiftpm-guard: error:"), err


SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@pytest.fixture
def no_event(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_EVENT_NAME", raising=False)
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_RedactionCaseToken0123456789")


@SETTINGS
@given(template=st.sampled_from(BROKEN), user=USERS, secret=SECRETS)
def test_preflight_and_audit_never_print_the_password(
    capsys: pytest.CaptureFixture[str], no_event: None, template: str, user: str, secret: str
) -> None:
    url, secret = _url(template, user, secret)
    for argv in (
        ["preflight", "--version", "1.2.3", "--repo", url],
        ["audit", "--repo", url],
    ):
        code = main(argv)
        out, err = capsys.readouterr()
        _assert_hidden(code, out, err, secret)


@SETTINGS
@given(template=st.sampled_from(BROKEN), user=USERS, secret=SECRETS)
def test_publish_never_prints_the_password(
    capsys: pytest.CaptureFixture[str],
    no_event: None,
    release: Release,
    template: str,
    user: str,
    secret: str,
) -> None:
    url, secret = _url(template, user, secret)
    base = ["publish", "--artifacts", str(release.artifacts), "--version", release.version]
    for extra in (
        ["--repo", url],
        ["--repo", str(release.root), "--package-url", url],
    ):
        code = main([*base, *extra])
        out, err = capsys.readouterr()
        _assert_hidden(code, out, err, secret)


@SETTINGS
@given(template=st.sampled_from(BROKEN[:12]), user=USERS, secret=SECRETS)
def test_check_base_url_never_prints_the_password(
    capsys: pytest.CaptureFixture[str], release: Release, template: str, user: str, secret: str
) -> None:
    url, secret = _url(template, user, secret)
    code = main(["check", "--artifacts", str(release.artifacts), "--base-url", url])
    out, err = capsys.readouterr()
    _assert_hidden(code, out, err, secret)


@settings(max_examples=300, deadline=None)
@given(
    before=st.text(max_size=20),
    user=USERS,
    secret=SECRETS,
    after=st.text(alphabet=string.ascii_letters + "./:[]", max_size=20),
)
def test_redaction_hides_every_userinfo_in_free_text(
    before: str, user: str, secret: str, after: str
) -> None:
    text = f"{before} https://{user}:{secret}@host{after}"
    assert secret not in redact_userinfo(text)
    assert secret not in shown_location(f"https://{user}:{secret}@host{after}")
    assert secret not in shown_location(f"{user}:{secret}@host:{after}")


@pytest.mark.parametrize(
    "argv",
    [
        ["preflight", "--version", "1.2.3", "--repo", "file://Zq9secret[@example.invalid/r.git"],
        ["audit", "--repo", "file://Zq9secret[@example.invalid/r.git"],
        ["audit", "--repo", "ssh://-:Zq9secret@example.invalid/r.git"],
        ["audit", "--repo", "git://u:Zq9secret@example.invalid/r.git"],
    ],
    ids=["file-bracket-preflight", "file-bracket-audit", "ssh-password", "git-password"],
)
def test_found_by_the_properties(
    capsys: pytest.CaptureFixture[str], no_event: None, argv: list[str]
) -> None:
    """Cases the generated ones found: a ValueError escaping from a file:// URL with `[`, and
    git quoting `user:password@host` with no scheme left for a generic redaction."""
    code = main(argv)
    out, err = capsys.readouterr()
    _assert_hidden(code, out, err, "Zq9secret")
    assert code == 2


#: The second pass's forms (issue 25): a password written without `//`, which git reads as
#: an ssh remote on another host and the old parser took for a relative path.
SLASHLESS = [
    "https:{ui}@example.invalid/o/r.git",
    "http:{ui}@example.invalid/o/r.git",
    "{ui}@example.invalid:/srv/r.git",
    "{ui}@example.invalid:r.git",
]
_PLAIN_SECRETS = st.builds(
    lambda core: f"Zq9{core}",
    st.text(alphabet=string.ascii_letters + string.digits + "-._~!$&*+=%", min_size=4,
            max_size=24),
)


@SETTINGS
@given(template=st.sampled_from(SLASHLESS), user=USERS.filter(bool), secret=_PLAIN_SECRETS)
def test_a_password_without_slashes_is_never_printed(
    capsys: pytest.CaptureFixture[str], no_event: None, release: Release, template: str,
    user: str, secret: str,
) -> None:
    url = template.format(ui=f"{user}:{secret}")
    base = ["publish", "--artifacts", str(release.artifacts), "--version", release.version]
    for argv in (
        ["preflight", "--version", "1.2.3", "--repo", url],
        ["audit", "--repo", url],
        [*base, "--repo", url],
        [*base, "--repo", str(release.root), "--package-url", url, "--dry-run"],
    ):
        code = main(argv)
        out, err = capsys.readouterr()
        _assert_hidden(code, out, err, secret)
        assert code == 2, (argv, err)


@settings(max_examples=300, deadline=None)
@given(before=st.text(alphabet=string.ascii_letters + " ", max_size=20), user=USERS.filter(bool),
       secret=_PLAIN_SECRETS, template=st.sampled_from(SLASHLESS))
def test_redaction_hides_a_slashless_userinfo_in_free_text(
    before: str, user: str, secret: str, template: str
) -> None:
    text = f"{before} '{template.format(ui=f'{user}:{secret}')}' or /cwd/{template.format(ui=f'{user}:{secret}')}"
    assert secret not in redact_userinfo(text)
