"""The check with a `swift` that prints SwiftPM's recorded answer: SwiftPM's roles reach the
report through the proof step and its cache (the real SwiftPM: integration/test_swiftpm_roles.py).

The stand-in prints the `dump-package` output the real Swift 6.0.3 printed for the layout
(`support/swiftpm_dumps/`) and logs each call, which shows what the cache serves.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

from support.computed import LAYOUTS, VERSION, Layout, load_record, write_layout
from swiftpm_guard.cli.main import main
from swiftpm_guard.core.render import render
from swiftpm_guard.infra.swiftpm import package_files
from swiftpm_guard.sources.template import load_template


def recorded_swift(folder: Path, layout: Layout) -> str:
    """A `swift` printing the layout's recorded dump (and an empty package graph)."""
    folder.mkdir(parents=True, exist_ok=True)
    dump = folder / "dump.json"
    dump.write_text(str(load_record(layout)["dump"]["stdout"]))
    path = folder / "swift"
    path.write_text(f'#!/bin/sh\necho "$@" >> "{folder}/calls.log"\n'
                    f'if [ "$2" = dump-package ]; then cat "{dump}"; else echo "{{}}"; fi\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def calls(folder: Path) -> int:
    log = folder / "calls.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def check(template: Path, layout: Layout, swift: str, cache: Path, out: Path) -> tuple[int, dict]:
    report = out / "report.json"
    code = main(["check", "--template", str(template), "--version", VERSION, "--frameworks",
                 ",".join(layout.frameworks), "--swift", swift, "--swift-cache", str(cache),
                 "--json", str(report), "--quiet"])
    return code, json.loads(report.read_text())


def test_swiftpms_roles_decide_and_a_cache_hit_gives_the_same_report(tmp_path):
    layout = LAYOUTS["wrapper-stubs"]
    template = write_layout(tmp_path / "branch", layout)
    swift = recorded_swift(tmp_path / "bin", layout)
    cache = tmp_path / "cache"

    code, first = check(template, layout, swift, cache, tmp_path)
    ran = calls(tmp_path / "bin")
    code_again, again = check(template, layout, swift, cache, tmp_path)

    assert code == code_again == 0, first["findings"]
    assert ran == 2 and calls(tmp_path / "bin") == 2  # dump and describe once; then the cache
    assert again["swiftpm"]["cached"] is True and again["findings"] == first["findings"]
    assert (first["products"], first["counts_source"]) == (4, "swiftpm")
    assert first["findings"] == []


def test_a_renamed_stub_folder_is_not_served_the_old_answer(tmp_path):
    layout = LAYOUTS["wrapper-stubs"]
    template = write_layout(tmp_path / "branch", layout)
    swift = recorded_swift(tmp_path / "bin", layout)
    cache = tmp_path / "cache"
    check(template, layout, swift, cache, tmp_path)
    stubs = template.parent / ".Package.swift"
    (stubs / "alpha_wrapper").rename(stubs / "alpha")

    code, report = check(template, layout, swift, cache, tmp_path)

    assert calls(tmp_path / "bin") == 4 and report["swiftpm"]["cached"] is False
    assert code == 1
    by_code = {(f["code"], f["subject"]) for f in report["findings"]}
    assert ("missing-stub", "alpha_wrapper") in by_code and ("orphan-stub", "alpha") in by_code


def test_package_files_say_where_the_stub_root_sits(tmp_path, monkeypatch):
    layout = LAYOUTS["wrapper-stubs"]
    beside = write_layout(tmp_path / "branch", layout)
    template, _ = load_template(beside)
    assert package_files(render(template, VERSION, {})).stub_root == ".Package.swift"

    # Shown by its path in a ref, read from a scratch folder: the place is the shown one.
    shown, _ = load_template(beside, display="swiftpm/Package.swift.template")
    monkeypatch.chdir(tmp_path)
    assert shown.stubs_dir == "swiftpm/.Package.swift"
    assert package_files(render(shown, VERSION, {})).stub_root == ".Package.swift"

    bare = write_layout(tmp_path / "bare", LAYOUTS["direct-products"])
    template, _ = load_template(bare)
    assert package_files(render(template, VERSION, {})).stub_root is None
