"""With the real SwiftPM, roles, stub folders and counts are SwiftPM's, and the report says where
the static reading differs (issue 24).

The templates are `support/computed.py`'s computed-products layouts; `support/swiftpm_dumps/`
holds what SwiftPM printed for each (the unit tests read those records). The first test checks
the records are still what this toolchain prints; `SWIFTPM_GUARD_RECORD_DUMPS=1` rewrites them.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from support.computed import (
    LAYOUTS,
    VERSION,
    capture,
    load_record,
    record_path,
    swift_version,
    write_layout,
)
from swiftpm_guard.cli.main import main

pytestmark = pytest.mark.slow

RECORD = os.environ.get("SWIFTPM_GUARD_RECORD_DUMPS") == "1"


def run_check(template: Path, frameworks: tuple[str, ...], out: Path, swift: str,
              cache: Path) -> tuple[int, dict]:
    report = out / "report.json"
    code = main(["check", "--template", str(template), "--version", VERSION, "--frameworks",
                 ",".join(frameworks), "--swift", swift, "--swift-cache", str(cache),
                 "--json", str(report), "--quiet"])
    return code, json.loads(report.read_text())


def both(name: str, tmp_path: Path, swift: str, cache: Path,
         template: Path | None = None) -> tuple[tuple[int, dict], tuple[int, dict]]:
    """`check --swift off` and `check` with SwiftPM on one layout."""
    layout = LAYOUTS[name]
    template = template or write_layout(tmp_path / name, layout)
    return (run_check(template, layout.frameworks, tmp_path, "off", cache),
            run_check(template, layout.frameworks, tmp_path, swift, cache))


def subjects(report: dict, code: str) -> list[str]:
    return sorted(f["subject"] for f in report["findings"] if f["code"] == code)


def test_the_recorded_dumps_are_what_swiftpm_prints(swift, tmp_path, swift_cache):
    stale = []
    version = swift_version(swift) if RECORD else ""
    for layout in LAYOUTS.values():
        now = capture(layout, swift, tmp_path / layout.name, swift_cache, version)
        if RECORD:
            record_path(layout).write_text(json.dumps(now, indent=1) + "\n", encoding="utf-8")
        if {"dump": now["dump"], "describe": now["describe"]} != load_record(layout):
            stale.append(layout.name)
    assert not stale, (f"SwiftPM now prints something else for {stale}: rerun with "
                       "SWIFTPM_GUARD_RECORD_DUMPS=1 and review the diff")


def test_computed_products_pass_with_swiftpm_and_still_refuse_without(tmp_path, swift,
                                                                      swift_cache):
    (code_off, off), (code, report) = both("wrapper-stubs", tmp_path, swift, swift_cache)
    folders = ["alpha_debug_wrapper", "alpha_wrapper", "beta_debug_wrapper", "beta_wrapper"]

    # Without SwiftPM: no role guessed, folders no placeholder asks for are orphans, and the
    # rest needs SwiftPM (issue 31).
    assert code_off == 1 and len(subjects(off, "needs-swiftpm")) == 1
    assert subjects(off, "unknown-role") == []
    assert subjects(off, "orphan-stub") == folders
    assert (off["products"], off["counts_source"]) == (None, "static")

    assert code == 0, report["findings"]
    assert subjects(report, "unknown-role") == subjects(report, "orphan-stub") == []
    assert (report["products"], report["binary_targets"], report["counts_source"]) == (
        4, 6, "swiftpm")
    assert report["templates"][0]["products"] == 4
    assert report["findings"] == []

    # A cache hit gives the same verdict from the stored output.
    code_again, again = run_check(tmp_path / "wrapper-stubs" / "Package.swift.template",
                                  LAYOUTS["wrapper-stubs"].frameworks, tmp_path, swift,
                                  swift_cache)
    assert code_again == 0 and again["swiftpm"]["cached"] is True
    assert again["findings"] == report["findings"]


def test_products_over_their_binary_targets_need_no_stub_folder(tmp_path, swift, swift_cache):
    # The issue's `products.keys.map { .library(name: $0, targets: [$0]) }`.
    (code_off, off), (code, report) = both("direct-products", tmp_path, swift, swift_cache)
    # Without SwiftPM no stub folder is asked for by a guessed role: the rest needs SwiftPM.
    assert code_off == 1 and subjects(off, "missing-stub") == []
    assert len(subjects(off, "needs-swiftpm")) == 1
    assert code == 0, report["findings"]
    assert subjects(report, "missing-stub") == []
    assert report["findings"] == []


def test_the_product_count_is_swiftpms(tmp_path, swift, swift_cache):
    (code_off, off), (code, report) = both("one-product", tmp_path, swift, swift_cache)

    assert (code_off, code) == (1, 0)  # without SwiftPM: needs-swiftpm
    assert off["products"] is None and report["products"] == 1


def test_a_placeholder_no_target_uses_is_refused_without_swiftpm_and_named_with_it(
        tmp_path, swift, swift_cache):
    # Without SwiftPM the text asks for 'delta' (not its debug twin: exact names) and the rest
    # needs SwiftPM. SwiftPM evaluates no binary target 'delta', and its answer replaces the
    # static one.
    (code_off, off), (code, report) = both("stale-entry", tmp_path, swift, swift_cache)

    assert code_off == 1 and off["unclaimed"] == ["delta_debug"]
    assert len(subjects(off, "needs-swiftpm")) == 1
    assert subjects(report, "needs-swiftpm") == []
    assert code == 1 and report["unclaimed"] == ["delta", "delta_debug"]


def test_a_jinja_template_computing_products_gets_swiftpms_roles(tmp_path, swift, swift_cache):
    (code_off, off), (code, report) = both("jinja", tmp_path, swift, swift_cache)

    assert code_off == 1 and subjects(off, "unknown-role") == [] and off["products"] is None
    assert len(subjects(off, "needs-swiftpm")) == 1
    assert code == 0 and report["findings"] == []
    assert (report["products"], report["binary_targets"], report["counts_source"]) == (
        4, 4, "swiftpm")


def test_a_jinja_loop_that_skips_names_is_unclaimed_by_swiftpms_targets(tmp_path, swift,
                                                                         swift_cache):
    # Iterating over `checksums` reads every name, the skipped `legacy` too: without SwiftPM
    # the text cannot tell, so it needs SwiftPM.
    (code_off, off), (code, report) = both("jinja-filtered", tmp_path, swift, swift_cache)

    assert code_off == 1 and off["unclaimed"] == []
    assert len(subjects(off, "needs-swiftpm")) == 1
    assert code == 1 and report["unclaimed"] == ["legacy", "legacy_debug"]
    assert report["products"] == 2


def test_a_missing_stub_folder_of_computed_products_is_named_by_swiftpms_target(
        tmp_path, swift, swift_cache):
    layout = LAYOUTS["wrapper-stubs"]
    template = write_layout(tmp_path / "missing", layout)
    shutil.rmtree(template.parent / ".Package.swift" / "alpha_wrapper")
    code, report = run_check(template, layout.frameworks, tmp_path, swift, swift_cache)

    assert code == 1
    assert subjects(report, "missing-stub") == ["alpha_wrapper"]
    assert subjects(report, "swift-error") == ["alpha_wrapper"]  # describe's own error
    assert subjects(report, "unknown-role") == subjects(report, "orphan-stub") == []
    assert report["counts_source"] == "swiftpm" and report["products"] == 4
    assert "could not load the package" in report["swiftpm"]["reason"]
