"""Platform coverage (core.platform_slices): every library a declared platform needs, device
and simulator, and no library needing a newer OS than the manifest declares."""

from __future__ import annotations

from swiftpm_guard.core.model import Artifact, Location, Severity, Slice
from swiftpm_guard.core.platform_slices import (
    MINIMUM,
    MISSING,
    Platform,
    coverage_findings,
    version_key,
)

IOS = Slice("ios-arm64", "ios", None, ("arm64",), "x.framework", "17.0",
            "x.xcframework/ios-arm64/x.framework/Info.plist")
SIMULATOR = Slice("ios-arm64_x86_64-simulator", "ios", "simulator", ("arm64", "x86_64"),
                  "x.framework")
MACOS = Slice("macos-arm64_x86_64", "macos", None, ("arm64", "x86_64"), "x.framework")
CATALYST = Slice("ios-arm64_x86_64-maccatalyst", "ios", "maccatalyst", ("arm64", "x86_64"),
                 "x.framework", "14.0", "elsewhere")
DECLARED = (Platform("ios", "17.0"), Platform("macos", "12.0"))


def built(*slices: Slice) -> Artifact:
    return Artifact("x", "0" * 64, Location("out/x-1.0.0.zip"), "x-1.0.0.zip", "1.0.0",
                    slices=slices)


def test_every_declared_platform_covered_says_nothing():
    assert coverage_findings("x", DECLARED, built(IOS, SIMULATOR, MACOS), "Package.swift") == []


def test_a_missing_simulator_slice_names_the_target_the_platform_and_the_slice():
    found = coverage_findings("x", DECLARED, built(IOS, MACOS), "Package.swift", 12)

    assert [(f.code, f.severity, f.subject, f.file, f.line) for f in found] == [
        (MISSING, Severity.ERROR, "x", "Package.swift", 12)]
    assert found[0].message == (
        "binary target 'x' has no iOS Simulator library in x-1.0.0.zip, yet the manifest "
        "declares iOS 17.0 (platforms:): an app building for iOS Simulator fails to link; "
        "x.xcframework/Info.plist lists no library with SupportedPlatform ios and "
        "SupportedPlatformVariant simulator (it holds ios-arm64, macos-arm64_x86_64)")


def test_a_missing_device_slice_and_platform_are_each_one_finding():
    found = coverage_findings("x", DECLARED, built(SIMULATOR), "Package.swift")

    assert [(f.code, f.message.split(" has no ")[1].split(" library")[0]) for f in found] == [
        (MISSING, "iOS device"), (MISSING, "macOS")]
    assert "SupportedPlatform ios and no SupportedPlatformVariant" in found[0].message


def test_a_library_needing_a_newer_os_than_declared_is_refused():
    found = coverage_findings("x", (Platform("ios", "16.4"),), built(IOS, SIMULATOR), "P.swift")

    assert [f.code for f in found] == [MINIMUM]
    assert found[0].message == (
        "binary target 'x': library ios-arm64 (iOS device) in x-1.0.0.zip needs iOS 17.0, "
        "above the 16.4 the manifest declares (platforms:): an app deploying to iOS 16.4 fails "
        "to link it; x.xcframework/ios-arm64/x.framework/Info.plist says MinimumOSVersion 17.0")


def test_an_equal_or_lower_minimum_and_an_unstated_one_pass():
    for declared in ("17", "17.0", "17.0.0", "18.2"):
        assert coverage_findings("x", (Platform("ios", declared),), built(IOS, SIMULATOR),
                                 "P.swift") == [], declared


def test_catalyst_and_visionos_need_their_own_libraries():
    declared = (Platform("maccatalyst", "13.0"), Platform("visionos", "1.0"))
    found = coverage_findings("x", declared, built(IOS, SIMULATOR), "P.swift")

    assert [f.message.split(" has no ")[1].split(" library")[0] for f in found] == [
        "Mac Catalyst", "visionOS device", "visionOS Simulator"]
    assert "SupportedPlatform xros and SupportedPlatformVariant simulator" in found[2].message
    # Catalyst's bundle states a macOS version; the manifest's is an iOS one: not compared.
    assert coverage_findings("x", (Platform("maccatalyst", "13.0"),), built(CATALYST),
                             "P.swift") == []


def test_unknown_slices_and_platforms_without_xcframework_libraries_say_nothing():
    unknown = Artifact("x", "0" * 64, Location("checksums.txt", 1))
    assert coverage_findings("x", DECLARED, unknown, "P.swift") == []
    assert coverage_findings("x", (Platform("linux", "0.0"), Platform("driverkit", "19.0")),
                             built(IOS), "P.swift") == []


def test_versions_compare_as_numbers():
    assert version_key("9.0") < version_key("10.0") < version_key("10.0.1")  # type: ignore[operator]
    assert version_key("17") == version_key("17.0.0") == (17, 0, 0)
    assert version_key("17.0b") is None and version_key("") is None


def test_the_libraries_held_are_named_within_bounds():
    many = tuple(Slice(f"macos-{'x' * 200}-{n}", "macos", None, ("arm64",)) for n in range(9))
    (found,) = coverage_findings("x", (Platform("macos", "12.0"), Platform("tvos", "17.0")),
                                 built(*many), "P.swift")[:1]
    held = found.message.split("(it holds ", 1)[1]
    assert held.endswith(" and 3 more)") and held.count("…") == 6 and len(found.message) < 900
    assert coverage_findings("x", (Platform("macos", "12.0"),), built(), "P.swift")[0] \
        .message.endswith("(it holds no library)")
