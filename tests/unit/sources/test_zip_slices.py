"""The libraries a built zip's XCFramework holds (core.platform_slices.read_slices), read from
zips shaped as `xcodebuild -create-xcframework` and `zip -ry` write them (support/release.py),
and carried on the artifact the folder scan makes."""

from __future__ import annotations

import plistlib
from dataclasses import replace

from support.release import (
    REAL_SLICES,
    STATIC_SLICES,
    Slice,
    write_real_zip,
    write_zip,
    xcframework_plist,
)
from swiftpm_guard.core.model import Slice as Library
from swiftpm_guard.core.platform_slices import read_slices
from swiftpm_guard.sources.artifacts import scan_zip_folder
from swiftpm_guard.sources.zip_archive import read_zip_contents

FRAMEWORKS = (
    Slice("ios-arm64", "ios", framework=True, minimum_os="15.0"),
    Slice("ios-arm64_x86_64-simulator", "ios", ("arm64", "x86_64"), "simulator",
          framework=True, minimum_os="15.0"),
    Slice("macos-arm64_x86_64", "macos", ("arm64", "x86_64"), framework=True,
          minimum_os="12.3"),
)


def slices_of(tmp_path, name="foo", **options):
    path = tmp_path / f"{name}-1.0.0.zip"
    write_real_zip(path, name, **options)
    return read_slices(read_zip_contents(path), name)


def test_frameworks_carry_the_minimum_os_their_bundles_state(tmp_path):
    root = "foo.xcframework"
    assert slices_of(tmp_path, slices=FRAMEWORKS) == (
        Library("ios-arm64", "ios", None, ("arm64",), "foo.framework", "15.0",
                f"{root}/ios-arm64/foo.framework/Info.plist"),
        Library("ios-arm64_x86_64-simulator", "ios", "simulator", ("arm64", "x86_64"),
                "foo.framework", "15.0",
                f"{root}/ios-arm64_x86_64-simulator/foo.framework/Info.plist"),
        # Versioned: Resources/ is a link into Versions/Current, itself a link to A.
        Library("macos-arm64_x86_64", "macos", None, ("arm64", "x86_64"), "foo.framework",
                "12.3", f"{root}/macos-arm64_x86_64/foo.framework/Versions/A/Resources/"
                "Info.plist"),
    )


def test_a_flattened_macos_bundle_is_read_through_its_copies(tmp_path):
    (macos,) = slices_of(tmp_path, slices=FRAMEWORKS[2:], flatten_links=True)
    assert (macos.minimum_os, macos.minimum_from) == (
        "12.3", "foo.xcframework/macos-arm64_x86_64/foo.framework/Resources/Info.plist")


def test_static_libraries_and_unstated_minimums_are_unknown(tmp_path):
    found = slices_of(tmp_path, slices=REAL_SLICES)
    assert [(s.identifier, s.platform, s.variant, s.architectures, s.path, s.minimum_os)
            for s in found or ()] == [
        ("ios-arm64", "ios", None, ("arm64",), "libfoo.a", None),
        ("ios-arm64_x86_64-simulator", "ios", "simulator", ("arm64", "x86_64"), "libfoo.a",
         None),
        ("macos-arm64_x86_64", "macos", None, ("arm64", "x86_64"), "foo.framework", None)]


def test_a_binary_xcframework_plist_reads_the_same_and_a_bad_one_reads_as_unknown(tmp_path):
    binary = plistlib.dumps(plistlib.loads(xcframework_plist("foo", FRAMEWORKS)),
                            fmt=plistlib.FMT_BINARY)
    assert binary.startswith(b"bplist00")
    xml = slices_of(tmp_path, slices=FRAMEWORKS)
    assert xml is not None and len(xml) == 3
    assert slices_of(tmp_path, slices=FRAMEWORKS, plist=binary) == xml
    assert slices_of(tmp_path, slices=FRAMEWORKS, plist=b"<plist><dict/></plist>") is None
    assert slices_of(tmp_path, slices=FRAMEWORKS, plist=b"\x00" * 64) is None


def test_a_minimum_that_is_not_a_version_or_a_bundle_plist_that_is_not_a_plist_is_unknown(
        tmp_path):
    assert [s.minimum_os for s in slices_of(tmp_path, slices=(
        Slice("ios-arm64", "ios", framework=True, minimum_os="fifteen"),)) or ()] == [None]
    path = tmp_path / "baz-1.0.0.zip"
    write_real_zip(path, "baz", slices=FRAMEWORKS[:1])
    contents = read_zip_contents(path)
    bundle = "baz.xcframework/ios-arm64/baz.framework/Info.plist"
    broken = replace(contents, metadata={**contents.metadata, bundle: b"bplist00\xff"})
    assert [s.minimum_os for s in read_slices(broken, "baz") or ()] == [None]
    assert [s.minimum_os for s in read_slices(contents, "baz") or ()] == ["15.0"]


def test_the_folder_scan_puts_the_slices_on_each_artifact(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    write_zip(folder / "foo-1.0.0.zip", "foo")
    write_real_zip(folder / "bar-1.0.0.zip", "bar", slices=FRAMEWORKS[:1])
    artifacts, _findings = scan_zip_folder(folder)

    by_name = {a.name: a for a in artifacts}
    assert [(s.identifier, s.variant) for s in by_name["foo"].slices or ()] == [
        (s.identifier, s.variant) for s in STATIC_SLICES]
    assert [(s.identifier, s.minimum_os) for s in by_name["bar"].slices or ()] == [
        ("ios-arm64", "15.0")]


def test_versions_current_is_followed_as_the_file_system_would(tmp_path):
    path = tmp_path / "foo-1.0.0.zip"
    write_real_zip(path, "foo", slices=FRAMEWORKS[2:])
    contents = read_zip_contents(path)
    current = "foo.xcframework/macos-arm64_x86_64/foo.framework/Versions/Current"
    assert [e.target for e in contents.entries if e.name == current] == ["A"]
    for target, minimum in (("./A", "12.3"), ("A/", "12.3"), ("B", None)):
        moved = replace(contents, entries=tuple(
            replace(e, target=target) if e.name == current else e for e in contents.entries))
        assert [s.minimum_os for s in read_slices(moved, "foo") or ()] == [minimum], target
