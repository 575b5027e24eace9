"""The real SwiftPM decides the platforms a release must cover: `dump-package`'s `platforms`
against the libraries each built zip's XCFramework holds (core.platform_slices)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.release import REAL_SLICES, Release, write_real_zip, write_release
from swiftpm_guard.cli.main import main

pytestmark = pytest.mark.slow


def run_check(release: Release, tmp_path: Path, swift: str, cache: Path) -> tuple[int, dict]:
    report = tmp_path / "report.json"
    code = main(["check", "--template", str(release.template), "--version", release.version,
                 "--artifacts", str(release.artifacts), "--swift", swift, "--swift-cache",
                 str(cache), "--json", str(report), "--quiet"])
    return code, json.loads(report.read_text())


def errors(report: dict) -> list[tuple[str, str, str]]:
    return [(f["code"], f["subject"], f["message"].split(" has no ")[1].split(" library")[0])
            for f in report["findings"] if f["severity"] == "error"]


def test_swiftpms_platforms_refuse_a_zip_without_its_simulator_slice(tmp_path, swift,
                                                                      swift_cache):
    release = write_release(tmp_path / "release", products=("executorch",),
                            binary_only=("threadpool",), real_zips=True)
    write_real_zip(release.artifacts / f"executorch_debug-{release.version}.zip",
                   "executorch_debug",
                   slices=tuple(s for s in REAL_SLICES if s.variant != "simulator"))
    code, report = run_check(release, tmp_path, swift, swift_cache)

    assert report["proof"] == "swiftpm" and code == 1
    assert errors(report) == [("missing-slice", "executorch_debug", "iOS Simulator")]
    assert "yet the manifest declares iOS 17.0 (platforms:)" in report["findings"][0]["message"]


def test_a_platform_the_manifest_adds_needs_its_device_and_simulator_libraries(
        tmp_path, swift, swift_cache):
    release = write_release(tmp_path / "release", products=("executorch",),
                            binary_only=("threadpool",), real_zips=True)
    text = release.template.read_text()
    declared = "platforms: [.iOS(.v17), .macOS(.v12)],"
    assert text.count(declared) == 1
    release.template.write_text(text.replace(
        declared, "platforms: [.iOS(.v17), .macOS(.v12), .tvOS(.v17)],"))
    code, report = run_check(release, tmp_path, swift, swift_cache)

    assert report["proof"] == "swiftpm" and code == 1
    assert sorted(errors(report)) == [
        ("missing-slice", name, shown) for name in ("executorch", "executorch_debug", "threadpool",
                                                "threadpool_debug")
        for shown in ("tvOS Simulator", "tvOS device")]
