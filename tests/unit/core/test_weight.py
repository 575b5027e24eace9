"""Download weight (core.weight): totals, the previous version, the growth limit."""

import re

import pytest

from swiftpm_guard.core.model import Artifact, DownloadWeight, HostedStats, Location, Severity
from swiftpm_guard.core.option_names import option
from swiftpm_guard.core.weight import (
    growth_findings,
    parse_limit,
    previous_version,
    sentence,
    size,
    weigh,
    with_previous,
)
from swiftpm_guard.errors import UsageError


def built(name: str, size: int | None) -> Artifact:
    return Artifact(name=name, sha256="a" * 64, origin=Location(f"zips/{name}-1.3.0.zip"),
                    file_name=f"{name}-1.3.0.zip", version="1.3.0", size=size)


def test_limits_are_a_share_or_a_size():
    assert parse_limit("25%").percent == 25.0 and parse_limit("25%").bytes is None
    assert parse_limit("500MB").bytes == 500_000_000
    assert parse_limit("1.5GB").bytes == 1_500_000_000
    assert parse_limit("200MiB").bytes == 200 * 1024 * 1024
    assert parse_limit(" 0B ").bytes == 0 and parse_limit(" 0B ").text == "0B"
    assert parse_limit("25%").allowed(1000) == 250
    assert parse_limit("1KB").allowed(10) == 1000
    for bad in ("", "25", "-5%", "1 TB", "lots", "25%%"):
        with pytest.raises(UsageError, match=re.escape(option("download-growth-limit")) + " .* is not a share"):
            parse_limit(bad)
    with pytest.raises(UsageError, match=r"^input download-growth-limit 'x'"):
        parse_limit("x", "input download-growth-limit")


def test_the_previous_version_is_the_newest_published_before_this_one():
    branches = ["main", "swiftpm-1.2.0", "swiftpm-1.2.9", "swiftpm-1.3.0.20250101",
                "swiftpm-1.3.0", "swiftpm-1.10.0", "swiftpm-junk", "release/1.2"]
    assert previous_version(branches, "swiftpm-", "1.3.1") == "1.3.0"
    # A release comes after its own nightlies; nightlies before it by date.
    assert previous_version(branches, "swiftpm-", "1.3.0") == "1.3.0.20250101"
    assert previous_version(branches, "swiftpm-", "1.3.0.20250101") == "1.2.9"
    assert previous_version(branches, "swiftpm-", "1.10.1") == "1.10.0"  # numbers, not text
    assert previous_version(branches, "swiftpm-", "1.2.0") is None
    assert previous_version(branches, "swiftpm-", "v2") is None


def test_weight_counts_every_asked_name_debug_twins_included():
    zips = {"a": built("a", 1000), "a_debug": built("a_debug", 3000), "b": built("b", 500)}
    weight = weigh(["a", "a_debug", "b", "a"], zips)
    assert (weight.bytes, weight.zips, weight.measured, weight.unsized) == \
        (4500, 3, "built zips", ())
    # A name with no size (a checksums file) is said, not counted as zero silently.
    partial = weigh(["a", "c"], {**zips, "c": built("c", None)})
    assert (partial.bytes, partial.unsized) == (1000, ("c",))
    assert weigh(["c"], {"c": built("c", None)}).bytes is None
    # Served bytes win when every URL served its zip; not when one failed.
    assert weigh(["a"], zips, HostedStats(2, 2, 9999, 0.1)) == DownloadWeight(
        bytes=9999, zips=2, measured="served")
    assert weigh(["a"], zips, HostedStats(2, 1, 9999, 0.1)).measured == "built zips"


def test_growth_past_the_limit_is_an_error_and_within_it_nothing():
    doubled = with_previous(DownloadWeight(bytes=2_900_000_000, zips=40, measured="served"),
                            "1.2.0", HostedStats(40, 40, 1_450_000_000, 3.0))
    assert doubled.change == 1_450_000_000 and doubled.previous_version == "1.2.0"
    (finding,) = growth_findings(doubled, parse_limit("25%"), "1.3.0")
    assert (finding.code, finding.severity, finding.subject) == (
        "download-growth", Severity.ERROR, "1.3.0")
    assert finding.message == (
        "a consumer of 1.3.0 downloads 2.9 GB, 1.4 GB more than 1.2.0 (1.4 GB, +100%): past "
        "the limit of 25% (362.5 MB); SwiftPM downloads every binary target, used or not")
    assert growth_findings(doubled, parse_limit("100%"), "1.3.0") == []
    assert growth_findings(doubled, parse_limit("2GB"), "1.3.0") == []
    assert growth_findings(doubled, None, "1.3.0") == []
    shrunk = with_previous(DownloadWeight(bytes=10, zips=1, measured="served"), "1.2.0",
                           HostedStats(1, 1, 20, 0.1))
    assert shrunk.change == -10 and growth_findings(shrunk, parse_limit("0B"), "1.3.0") == []


def test_a_limit_that_cannot_be_judged_is_a_notice_saying_why():
    unknown = with_previous(DownloadWeight(bytes=10, zips=1, measured="built zips"), "1.2.0",
                            HostedStats(4, 3, 20, 0.1))
    assert unknown.previous_bytes is None
    assert unknown.previous_note == "1 of its 4 zip URLs did not serve their zip"
    (notice,) = growth_findings(unknown, parse_limit("10%"), "1.3.0")
    assert notice.severity is Severity.NOTICE
    assert notice.message == ("the download growth limit 10% was not judged: 1 of its 4 zip "
                              "URLs did not serve their zip")


def test_sentences():
    weight = DownloadWeight(bytes=2_900_000_000, zips=40, measured="served",
                            previous_version="1.2.0", previous_bytes=1_450_000_000, limit="25%")
    assert sentence(weight) == ("a consumer downloads 2.9 GB (40 zips, served); 1.2.0: 1.4 GB, "
                                "change +1.4 GB (+100%); growth limit 25%")
    assert sentence(DownloadWeight(bytes=None, zips=3, measured="built zips")) == (
        "a consumer downloads 3 zips (size unknown: no built zip was read)")
    assert sentence(DownloadWeight(bytes=5, zips=2, measured="built zips", unsized=("x",),
                                   previous_version="1.0.0")) == (
        "a consumer downloads 5 bytes (2 zips, 1 of unknown size, built zips); 1.0.0: size "
        f"unknown (its served sizes are fetched with {option('verify-urls')})")
    assert sentence(DownloadWeight(bytes=5, zips=1, measured="built zips",
                                   previous_note="no version before 1.0.0 is published")) == (
        "a consumer downloads 5 bytes (1 zip, built zips); no change known (no version before "
        "1.0.0 is published)")
    assert [size(n) for n in (999, 1000, 1_250_000, 3_000_000_000)] == [
        "999 bytes", "1.0 kB", "1.2 MB", "3.0 GB"]
