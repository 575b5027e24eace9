"""With SwiftPM, SwiftPM's evaluation is the verdict (issue 31): each binary target's checksum is
the one of the zip its URL names, each manifest stands on its own by exact name, no placeholder
is left in what is published, and a manifest that does not compile or dumps another `Package`
is refused.

One tiny package (three binary targets, no stubs) and a checksums file, so each case is one
small `dump-package`; the session shares one SwiftPM cache.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from swiftpm_guard.cli.main import main

pytestmark = pytest.mark.slow

VERSION = "1.2.3"
SHA = {"a": "a" * 64, "a_debug": "d" * 64, "b": "b" * 64, "c": "c" * 64}


def target(name: str, checksum: str | None = None, file: str | None = None) -> str:
    zip_name = file or f"{name}-\\(version).zip"
    return (f'    .binaryTarget(name: "{name}", url: "\\(url){zip_name}", '
            f'checksum: "{checksum or f"__SHA256_{name}__"}"),\n')


def manifest(*targets: str, version: str = "__VERSION__", tail: str = "") -> str:
    names = [t.split('"')[1] for t in targets]
    products = "".join(f'    .library(name: "{n}", targets: ["{n}"]),\n' for n in names)
    return ("// swift-tools-version:5.9\nimport PackageDescription\n\n"
            f'let version = "{version}"\nlet url = "https://example.invalid/frameworks/"\n\n'
            "let package = Package(\n  name: \"tiny\",\n"
            f"  products: [\n{products}  ],\n  targets: [\n{''.join(targets)}  ]\n)\n{tail}")


FULL = (target("a"), target("b"), target("c"))


def check(folder: Path, swift: str, cache: Path, files: dict[str, str],
          built: tuple[str, ...] = ("a", "b", "c")) -> tuple[int, dict]:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    sums = folder / "checksums.txt"
    sums.write_text("".join(f"{SHA[n]}  {n}-{VERSION}.zip\n" for n in built))
    report = folder / "report.json"
    primary = next(n for n in files if n.startswith("Package.swift"))
    code = main(["check", "--template", str(folder / primary), "--version", VERSION,
                 "--checksums", str(sums), "--swift", swift, "--swift-cache", str(cache),
                 "--json", str(report), "--quiet"])
    return code, json.loads(report.read_text())


def found(report: dict, code: str) -> list[dict]:
    return [f for f in report["findings"] if f["code"] == code]


def errors(report: dict) -> set[tuple[str, str]]:
    return {(f["code"], f["subject"]) for f in report["findings"] if f["severity"] == "error"}


def test_the_tiny_package_is_consistent(tmp_path, swift, swift_cache):
    code, report = check(tmp_path, swift, swift_cache, {"Package.swift.template": manifest(*FULL)})
    assert code == 0, report["findings"]
    assert report["counts_source"] == "swiftpm" and report["binary_targets"] == 3


def test_checksums_swapped_between_two_targets_name_the_url_file(tmp_path, swift, swift_cache):
    text = manifest(target("a", "__SHA256_b__"), target("b", "__SHA256_a__"), target("c"))
    code, report = check(tmp_path, swift, swift_cache, {"Package.swift.template": text})

    assert code == 1
    mismatch = {f["subject"]: f["message"] for f in found(report, "checksum-mismatch")}
    assert set(mismatch) == {"a", "b"}
    assert f"a-{VERSION}.zip" in mismatch["a"] and SHA["a"] in mismatch["a"]
    assert SHA["b"] in mismatch["a"] and f"b-{VERSION}.zip" in mismatch["a"]  # whose it is


def test_a_hard_coded_checksum_nobody_built_is_refused(tmp_path, swift, swift_cache):
    stale = "e" * 64
    text = manifest(target("a", stale), target("b"), target("c"))
    code, report = check(tmp_path, swift, swift_cache, {"Package.swift.template": text})

    assert code == 1
    [mismatch] = found(report, "checksum-mismatch")
    assert mismatch["subject"] == "a" and stale in mismatch["message"]
    assert SHA["a"] in mismatch["message"] and "no built zip" in mismatch["message"]


def test_a_url_naming_a_zip_nobody_built_is_refused(tmp_path, swift, swift_cache):
    # The release folder is right, the file is last release's: its checksum cannot be a's.
    text = manifest(target("a", file="a-1.2.2.zip"), target("b"), target("c"))
    text = text.replace('url = "https://example.invalid/frameworks/"',
                        'url = "https://example.invalid/frameworks/\\(version)/"')
    code, report = check(tmp_path, swift, swift_cache, {"Package.swift.template": text})

    assert code == 1
    [mismatch] = found(report, "checksum-mismatch")
    assert mismatch["subject"] == "a" and "a-1.2.2.zip" in mismatch["message"]
    assert "nobody built" in mismatch["message"]


def test_a_debug_twin_claims_only_itself(tmp_path, swift, swift_cache):
    text = manifest(target("a_debug"), target("b"), target("c"))
    code, report = check(tmp_path, swift, swift_cache, {"Package.swift.template": text},
                         built=("a", "a_debug", "b", "c"))

    assert code == 1
    [unclaimed] = found(report, "unclaimed-artifact")
    assert unclaimed["subject"] == "a" and unclaimed["file"].endswith("checksums.txt")  # on the line that names it
    assert report["unclaimed"] == ["a"]


def test_each_manifest_must_claim_every_built_name_on_its_own(tmp_path, swift, swift_cache):
    files = {"Package.swift.template": manifest(*FULL),
             "Package@swift-6.0.swift.template": manifest(target("a"), target("b"))}
    code, report = check(tmp_path, swift, swift_cache, files)

    assert code == 1
    [unclaimed] = found(report, "unclaimed-artifact")
    assert unclaimed["subject"] == "c"
    assert unclaimed["file"].endswith("Package@swift-6.0.swift.template")


def test_a_binary_target_only_a_version_specific_manifest_declares_must_be_built(
        tmp_path, swift, swift_cache):
    files = {"Package.swift.template": manifest(*FULL),
             "Package@swift-6.0.swift.template": manifest(*FULL, target("x"))}
    code, report = check(tmp_path, swift, swift_cache, files)

    assert code == 1
    [unfilled] = found(report, "unfilled-placeholder")
    assert unfilled["subject"] == "x"
    assert unfilled["file"].endswith("Package@swift-6.0.swift.template")


def test_a_jinja_template_leaving_a_placeholder_is_refused_once(tmp_path, swift, swift_cache):
    text = manifest(target("a", "{{ checksums['a'] }}"), target("b", "{{ checksums['b'] }}"),
                    target("c", "__SHA256_c__"), version="{{ version }}",
                    tail="// Built for __VERSION__.\n")
    code, report = check(tmp_path, swift, swift_cache, {"Package.swift.j2": text})

    assert code == 1
    assert errors(report) == {("placeholder-left", "__SHA256_c__"),
                              ("placeholder-left", "__VERSION__")}, report["findings"]
    lines = {f["subject"]: f["message"] for f in found(report, "placeholder-left")}
    line = text[: text.index("__SHA256_c__")].count("\n") + 1  # Jinja kept every line
    assert f"(line {line} of the rendered manifest)" in lines["__SHA256_c__"]


def test_a_trailing_decoy_package_is_what_swiftpm_dumps_and_is_refused(
        tmp_path, swift, swift_cache):
    text = manifest(*FULL, tail='_ = Package(name: "decoy")\n')
    code, report = check(tmp_path, swift, swift_cache, {"Package.swift.template": text})

    assert code == 1
    assert report["counts_source"] == "swiftpm" and report["binary_targets"] == 0
    assert errors(report) == {("unclaimed-artifact", n) for n in ("a", "b", "c")}


@pytest.mark.parametrize(("tail", "says"), [
    ('#error("not for publishing")\n', "not for publishing"),
    ("let ghost = undefinedName\n", "cannot find 'undefinedName' in scope"),
    ('let number: Int = "one"\n', "cannot convert value of type 'String'"),
], ids=["error-directive", "undefined-name", "type-error"])
def test_a_manifest_that_does_not_compile_is_a_swift_error(tmp_path, swift, swift_cache, tail,
                                                         says):
    code, report = check(tmp_path, swift, swift_cache,
                         {"Package.swift.template": manifest(*FULL, tail=tail)})

    assert code == 1
    [error] = found(report, "swift-error")
    assert says in error["message"] and error["line"] == manifest(*FULL).count("\n") + 1
