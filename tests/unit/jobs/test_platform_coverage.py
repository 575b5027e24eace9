"""Platform coverage through the check: the platforms SwiftPM evaluates (`dump-package`'s
`platforms`) against the libraries each built zip's XCFramework holds.

A `swift` stand-in prints what the real Swift 6.0.3 printed for `support/release.py`'s shape
(`support/swiftpm_dumps/release-shape.json`: `platforms: [.iOS(.v17), .macOS(.v12)]`), with each
checksum placeholder filled as rendering fills it; the zips are real (`write_real_zip`). The
real SwiftPM: integration/test_swiftpm_platforms.py.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

from support.computed import LAYOUTS, VERSION, built_names, load_record, write_layout
from support.release import REAL_SLICES, Slice, write_real_zip
from swiftpm_guard.cli.main import main

LAYOUT = LAYOUTS["release-shape"]
NAMES = [*built_names(LAYOUT), "gamma", "gamma_debug"]
NO_SIMULATOR = tuple(s for s in REAL_SLICES if s.variant != "simulator")


def release(tmp_path: Path, slices: dict[str, tuple[Slice, ...]]) -> tuple[Path, Path, str]:
    """The template, a folder of real zips (`slices` per name, else REAL_SLICES), and a
    `swift` printing SwiftPM's recorded dump with those zips' checksums."""
    template = write_layout(tmp_path / "branch", LAYOUT)
    out = tmp_path / "out"
    out.mkdir()
    dump = str(load_record(LAYOUT)["dump"]["stdout"])
    for name in NAMES:
        checksum = write_real_zip(out / f"{name}-{VERSION}.zip", name,
                                  slices=slices.get(name, REAL_SLICES))
        dump = dump.replace(f'"__SHA256_{name}__"', f'"{checksum}"')
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "dump.json").write_text(dump)
    swift = bin_dir / "swift"
    swift.write_text(f'#!/bin/sh\nif [ "$2" = dump-package ]; then cat "{bin_dir}/dump.json"; '
                     'else echo "{}"; fi\n')
    swift.chmod(swift.stat().st_mode | stat.S_IXUSR)
    return template, out, str(swift)


def check(tmp_path: Path, template: Path, out: Path, swift: str) -> tuple[int, dict]:
    report = tmp_path / "report.json"
    code = main(["check", "--template", str(template), "--version", VERSION, "--artifacts",
                 str(out), "--swift", swift, "--swift-cache", str(tmp_path / "cache"),
                 "--json", str(report), "--quiet"])
    return code, json.loads(report.read_text())


def test_zips_holding_every_declared_platform_pass(tmp_path):
    code, report = check(tmp_path, *release(tmp_path, {}))
    assert (code, report["proof"]) == (0, "swiftpm")
    assert [f for f in report["findings"] if f["severity"] == "error"] == []


def test_a_zip_missing_its_simulator_slice_is_refused_on_its_targets_line(tmp_path):
    template, out, swift = release(tmp_path, {"alpha": NO_SIMULATOR})
    code, report = check(tmp_path, template, out, swift)

    errors = [f for f in report["findings"] if f["severity"] == "error"]
    assert code == 1
    assert [(f["code"], f["subject"], f["file"]) for f in errors] == [
        ("missing-slice", "alpha", str(template))]
    line = template.read_text().splitlines()[errors[0]["line"] - 1]
    assert line.strip() == '"sha256": "__SHA256_alpha__",'  # the name's placeholder line
    assert errors[0]["message"] == (
        f"binary target 'alpha' has no iOS Simulator library in alpha-{VERSION}.zip, yet the "
        "manifest declares iOS 17.0 (platforms:): an app building for iOS Simulator fails to "
        "link; alpha.xcframework/Info.plist lists no library with SupportedPlatform ios and "
        "SupportedPlatformVariant simulator (it holds ios-arm64, macos-arm64_x86_64)")


def test_a_framework_needing_a_newer_os_than_declared_is_refused(tmp_path):
    newer = (Slice("ios-arm64", "ios", framework=True, minimum_os="18.0"),
             Slice("ios-arm64_x86_64-simulator", "ios", ("arm64", "x86_64"), "simulator",
                   framework=True, minimum_os="17.0"),
             Slice("macos-arm64_x86_64", "macos", ("arm64", "x86_64"), framework=True,
                   minimum_os="12.0"))
    code, report = check(tmp_path, *release(tmp_path, {"beta_debug": newer}))

    errors = [f for f in report["findings"] if f["severity"] == "error"]
    assert code == 1
    assert [(f["code"], f["subject"]) for f in errors] == [("slice-minimum-os", "beta_debug")]
    assert "library ios-arm64 (iOS device)" in errors[0]["message"]
    assert "needs iOS 18.0, above the 17.0 the manifest declares" in errors[0]["message"]
    assert errors[0]["message"].endswith(
        "beta_debug.xcframework/ios-arm64/beta_debug.framework/Info.plist says "
        "MinimumOSVersion 18.0")


def test_without_swiftpm_the_platforms_are_not_read_from_the_text(tmp_path):
    template, out, _swift = release(tmp_path, {"alpha": NO_SIMULATOR})
    report = tmp_path / "report.json"
    code = main(["check", "--template", str(template), "--version", VERSION, "--artifacts",
                 str(out), "--swift", "off", "--accept-static", "--json", str(report),
                 "--quiet"])
    codes = [f["code"] for f in json.loads(report.read_text())["findings"]]
    assert code == 0 and "missing-slice" not in codes and "needs-swiftpm" in codes
