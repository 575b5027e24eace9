"""Zip URLs computed as the manifest computes them, and their options (pure, no network)."""

import re

import pytest

from support.published import BranchSpec
from support.release import write_release
from swiftpm_guard.cli.main import main
from swiftpm_guard.core.audit import read_published
from swiftpm_guard.core.option_names import option
from swiftpm_guard.core.urls import (
    UrlSettings,
    other_release,
    zip_url,
    zips_of_published,
    zips_of_rendered,
)
from swiftpm_guard.errors import UsageError
from swiftpm_guard.jobs.check import CheckRequest, check


def test_rendered_targets_use_the_templates_base_and_built_checksums(release):
    outcome = check(CheckRequest(templates=(release.template,), version=release.version,
                                checksums=(release.checksums,)))
    zips = zips_of_rendered(outcome.rendered, outcome.built, release.version, UrlSettings())
    assert len(zips) == 20
    first = next(z for z in zips if z.name == "backend_coreml_debug")
    assert first.url == "https://example.invalid/frameworks/backend_coreml_debug-1.2.3.zip"
    assert first.sha256 == release.checksum_of["backend_coreml_debug"]
    assert first.location.file == str(release.template) and first.location.line


def test_base_url_and_template_options(release):
    outcome = check(CheckRequest(templates=(release.template,), version="1.2.3",
                                checksums=(release.checksums,)))
    settings = UrlSettings(template="{base_url}v{version}/{name}.zip",
                           base_url="https://cdn.example/r/")
    urls = {z.url for z in zips_of_rendered(outcome.rendered, outcome.built, "1.2.3", settings)}
    assert "https://cdn.example/r/v1.2.3/threadpool.zip" in urls


def test_published_manifest_targets_skip_bad_checksums():
    spec = BranchSpec("2.0.0", checksums={"executorch": "NOT-HEX"})
    zips, problems = zips_of_published(read_published(spec.manifest()), "Package.swift", None,
                                       UrlSettings())
    assert problems == []
    by_name = {z.name: z for z in zips}
    assert by_name["executorch"].sha256 is None  # only existence and zip-ness can be checked
    assert by_name["threadpool"].url == "https://example.invalid/frameworks/threadpool-2.0.0.zip"


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"template": "{base_url}{nme}.zip"}, "unknown field {nme}"),
    ({"template": "{base_url}static.zip"}, "must contain {name}"),
    ({"template": "{base_url{name}"}, "--url-template"),
    ({"base_url": "https://user:pw@host/"}, "without credentials"),
    ({"base_url": "file:///etc/"}, "not an http(s) URL"),
    ({"timeout": 0}, "--url-timeout"),
    ({"jobs": 100}, "--url-jobs"),
    ({"retries": 9}, "--url-retries"),
])
def test_bad_url_settings(kwargs, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        UrlSettings(**kwargs)


def test_zip_url_refuses_what_cannot_be_a_url_part():
    with pytest.raises(UsageError, match=re.escape(f"give {option('base-url')}")):
        zip_url(UrlSettings(), name="a", version="1.0.0", base_url=None, where="T")
    with pytest.raises(UsageError, match="cannot build a URL"):
        zip_url(UrlSettings(), name="a/../b", version="1.0.0", base_url="https://h/", where="T")
    with pytest.raises(UsageError, match="not an http"):
        zip_url(UrlSettings(template="{name}.zip"), name="a", version="1", base_url=None,
                where="T")


def test_cli_reports_bad_url_options_before_any_request(tmp_path, capsys):
    release = write_release(tmp_path / "r")
    code = main(["check", "--template", str(release.template), "--version", "1.2.3",
                 "--checksums", str(release.checksums), "--verify-urls",
                 "--url-template", "{base_url}{nme}"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "{nme}" in err
    assert main(["check", "--template", str(release.template), "--version", "1.2.3",
                 "--checksums", str(release.checksums), "--verify-urls",
                 "--url-jobs", "many"]) == 2


@pytest.mark.parametrize(("url", "why"), [
    ("https://github.com/getsentry/sentry-cocoa/releases/download/8.21.0/Sentry-8.22.0.zip",
     "its release tag '8.21.0' is not the version 8.22.0"),
    ("https://github.com/getsentry/sentry-cocoa/releases/download/8.22.0/Sentry-8.22.0.zip",
     None),
    ("https://github.com/o/r/releases/download/v8.22.0/Sentry-8.22.0.zip", None),
    ("https://github.com/o/r/releases/download/8.22.0%2Bbuild/Sentry-8.22.0.zip", None),
    ("https://cdn.invalid/8.21.0/Sentry-8.22.0.zip", "its path names version 8.21.0, not 8.22.0"),
    ("https://cdn.invalid/swift-5.9/Sentry-8.22.0.zip", None),
])
def test_a_url_naming_another_release_only_in_its_path_is_caught(url, why):
    assert other_release(url, "8.22.0") == why
