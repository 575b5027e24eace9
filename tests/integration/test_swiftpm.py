"""The real SwiftPM judges manifests rendered from the fixture template (tests/support/release.py).

Each distinct manifest costs SwiftPM a couple of seconds (two cores shared with others), so
every case here is one small edit of the same template and the session shares one cache.
"""

import json
import subprocess
from pathlib import Path

import pytest

from support.release import PRODUCT_KEYS, Release, write_release
from swiftpm_guard.cli.main import main

pytestmark = pytest.mark.slow

FULL_PRODUCTS, FULL_TARGETS = 18, 20


def run_check(
    release: Release,
    out: Path,
    swift: str,
    cache: Path,
    *extra: str,
    sources: tuple[str, ...] | None = None,
) -> tuple[int, dict]:
    report = out / "report.json"
    given = sources if sources is not None else ("--artifacts", str(release.artifacts))
    code = main(
        [
            "check",
            "--template",
            str(release.template),
            "--version",
            release.version,
            *given,
            "--swift",
            swift,
            "--swift-cache",
            str(cache),
            "--json",
            str(report),
            "--quiet",
            *extra,
        ]
    )
    return code, json.loads(report.read_text())


def edit_template(release: Release, old: str, new: str, count: int = 1) -> int:
    """Replace `old` in the template; returns the 1-based line of the first replacement."""
    text = release.template.read_text()
    assert text.count(old) >= count, old
    line = text[: text.index(old)].count("\n") + 1
    release.template.write_text(text.replace(old, new, count))
    return line


def findings(report: dict, code: str) -> list[dict]:
    return [f for f in report["findings"] if f["code"] == code]


def test_swiftpm_counts_equal_static_counts_and_second_run_is_cached(release, tmp_path, swift):
    cache = tmp_path / "cache"
    static_code, static = run_check(release, tmp_path, "off", cache)
    code, first = run_check(release, tmp_path, swift, cache)
    again_code, again = run_check(release, tmp_path, swift, cache)

    assert static_code == 1 and code == again_code == 0, first["findings"]
    # Without SwiftPM: binary targets counted from the text, products unknown, needs-swiftpm.
    assert (static["products"], static["binary_targets"]) == (None, FULL_TARGETS)
    assert static["counts_source"] == "static" and static["proof"] == "static"
    assert [f["code"] for f in static["findings"]] == ["needs-swiftpm"]
    assert static["swiftpm"]["used"] is False and "--swift off" in static["swiftpm"]["reason"]
    assert (first["products"], first["binary_targets"]) == (FULL_PRODUCTS, FULL_TARGETS)
    assert first["counts_source"] == "swiftpm" and first["proof"] == "swiftpm"
    assert first["swiftpm"]["used"] is True and first["swiftpm"]["cached"] is False
    assert first["swiftpm"]["seconds"] > 0
    assert again["swiftpm"]["cached"] is True
    assert again["products"] == FULL_PRODUCTS and again["findings"] == first["findings"] == []


def test_removing_one_product_key_drops_two_products_and_two_targets(tmp_path, swift, swift_cache):
    keys = [k for k in PRODUCT_KEYS if k != "backend_mps"]
    release = write_release(tmp_path / "release", products=keys)
    code, static = run_check(release, tmp_path, "off", swift_cache, "--accept-static")
    code_swift, report = run_check(release, tmp_path, swift, swift_cache)

    assert code == code_swift == 0, report["findings"]
    assert report["counts_source"] == "swiftpm"
    assert (report["products"], report["binary_targets"]) == (FULL_PRODUCTS - 2, FULL_TARGETS - 2)
    assert static["binary_targets"] == report["binary_targets"]


def test_syntax_error_is_a_swift_error_on_its_line(release, tmp_path, swift, swift_cache):
    line = edit_template(release, 'name: "release",', 'name: "release,')  # unterminated
    code, report = run_check(release, tmp_path, swift, swift_cache)

    assert code == 1
    errors = findings(report, "swift-error")
    assert errors and min(f["line"] for f in errors) == line  # later lines are knock-on errors
    assert all(f["file"] == str(release.template) for f in errors)
    assert report["counts_source"] == "static"
    assert "rejected" in report["swiftpm"]["reason"]


@pytest.mark.parametrize(
    ("old", "new", "count", "says"),
    [
        ('let url = "https://', 'let url = "http://', 1, "invalid URL scheme"),
        ("-\\(version).zip", "-\\(version).tar.gz", 2, "unsupported extension"),
    ],
    ids=["http", "tar.gz"],
)
def test_url_swiftpm_refuses_is_a_url_finding_per_target(
    release, tmp_path, swift, swift_cache, old, new, count, says
):
    edit_template(release, old, new, count=count)
    code, report = run_check(release, tmp_path, swift, swift_cache)

    assert code == 1
    urls = findings(report, "url")
    assert len({f["subject"] for f in urls}) == FULL_TARGETS
    assert all(says in f["message"] for f in urls)


def test_duplicate_target_is_a_swift_error_naming_it(release, tmp_path, swift, swift_cache):
    edit_template(
        release,
        "let package = Package(",
        "packageTargets.append(packageTargets[0])\nlet package = Package(",
    )
    code, report = run_check(release, tmp_path, swift, swift_cache)

    assert code == 1
    [error] = findings(report, "swift-error")
    assert error["subject"] == "threadpool" and "duplicate target" in error["message"]


def test_product_naming_a_missing_target_is_a_swift_error(release, tmp_path, swift, swift_cache):
    edit_template(
        release,
        "products: packageProducts,",
        'products: packageProducts + [.library(name: "ghost", targets: ["nowhere"])],',
    )
    code, report = run_check(release, tmp_path, swift, swift_cache)

    assert code == 1
    [error] = findings(report, "swift-error")
    assert error["subject"] == "nowhere" and "product 'ghost'" in error["message"]


def test_missing_stub_folder_is_caught_by_describe(release, tmp_path, swift, swift_cache):
    stub = release.stubs / "kernels_llm"
    (stub / "dummy.swift").unlink()
    stub.rmdir()
    code, report = run_check(release, tmp_path, swift, swift_cache)

    assert code == 1
    [error] = findings(report, "swift-error")
    assert error["subject"] == "kernels_llm_with_dependencies"
    assert "invalid custom path '.Package.swift/kernels_llm'" in error["message"]
    assert [f["subject"] for f in findings(report, "missing-stub")] == ["kernels_llm"]


def test_placeholder_checksum_parses_in_swiftpm_but_still_blocks(tmp_path, swift, swift_cache):
    built = [k for k in (*PRODUCT_KEYS, "threadpool") if k != "kernels_torchao"]
    release = write_release(tmp_path / "release", built=built)
    # Even with the two-way finding downgraded, the evaluated checksum alone blocks.
    code, report = run_check(
        release, tmp_path, swift, swift_cache, "--warn", "unfilled-placeholder"
    )

    assert code == 1
    assert findings(report, "swift-error") == []  # SwiftPM is happy with the placeholder
    assert report["counts_source"] == "swiftpm" and report["products"] == FULL_PRODUCTS
    bad = findings(report, "bad-checksum")
    assert {f["subject"] for f in bad} == {"kernels_torchao", "kernels_torchao_debug"}
    assert all(f["severity"] == "error" and "__SHA256_kernels_torchao" in f["message"] for f in bad)
    assert report["unfilled"] == ["kernels_torchao", "kernels_torchao_debug"]


def test_a_name_nobody_built_is_one_problem_with_swiftpm_as_without(
        tmp_path, swift, swift_cache):
    """Issue 33: SwiftPM's path said it four times (each twin unfilled and a bad checksum);
    now as the static path says it: each twin unfilled, on its template line."""
    built = [k for k in (*PRODUCT_KEYS, "threadpool") if k != "kernels_torchao"]
    release = write_release(tmp_path / "release", built=built)
    code, report = run_check(release, tmp_path, swift, swift_cache)
    (tmp_path / "static").mkdir()
    _static_code, static = run_check(release, tmp_path / "static", "off", swift_cache,
                                     "--accept-static")

    assert code == 1 and report["counts_source"] == "swiftpm"
    said = sorted((f["code"], f["subject"], f["line"]) for f in report["findings"])
    assert said == sorted((f["code"], f["subject"], f["line"]) for f in static["findings"]
                          if f["code"] != "needs-swiftpm")
    assert [c for c, _s, _l in said] == ["unfilled-placeholder"] * 2
    assert all(line for _c, _s, line in said)


def test_declared_names_without_checksums_keep_placeholders_and_pass(
    release, tmp_path, swift, swift_cache
):
    names = ",".join([*PRODUCT_KEYS, "threadpool"])
    code, report = run_check(release, tmp_path, swift, swift_cache, sources=("--frameworks", names))

    assert code == 0, report["findings"]
    assert report["counts_source"] == "swiftpm" and report["binary_targets"] == FULL_TARGETS


def test_evaluated_url_and_checksum_wiring_are_checked(release, tmp_path, swift, swift_cache):
    # The first URL is the binary-only loop's: it loses the version. And one debug target is
    # wired to its release twin's checksum, which no text check can see.
    edit_template(release, "\\(url)\\(key)-\\(version).zip", "\\(url)\\(key).zip")
    edit_template(
        release,
        '"sha256" + debug_suffix: "__SHA256_kernels_llm_debug__"',
        '"sha256" + debug_suffix: "__SHA256_kernels_llm__"',
    )
    code, report = run_check(release, tmp_path, swift, swift_cache)

    assert code == 1
    assert findings(report, "swift-error") == []
    urls = findings(report, "url")
    assert {f["subject"] for f in urls} == {"threadpool", "threadpool_debug"}
    assert all("does not contain the version 1.2.3" in f["message"] for f in urls)
    [mismatch] = findings(report, "checksum-mismatch")
    assert mismatch["subject"] == "kernels_llm_debug"
    assert "the checksum of kernels_llm-1.2.3.zip" in mismatch["message"]


def test_render_refuses_to_write_what_swiftpm_rejects(release, tmp_path, swift, swift_cache):
    edit_template(
        release,
        "products: packageProducts,",
        'products: packageProducts + [.library(name: "ghost", targets: ["nowhere"])],',
    )
    out = tmp_path / "Package.swift"
    code = main(
        [
            "render",
            "--template",
            str(release.template),
            "--version",
            release.version,
            "--artifacts",
            str(release.artifacts),
            "--output",
            str(out),
            "--swift",
            swift,
            "--swift-cache",
            str(swift_cache),
            "--quiet",
        ]
    )

    assert code == 1 and not out.exists()


def test_toolchain_wrapper_copies_nothing_back(tmp_path, swift):
    if not swift.endswith("swift-trixie/bin/swift"):
        pytest.skip(f"{swift} is not the scripts/swift-toolchain.sh wrapper")
    package = tmp_path / "toy"
    (package / "Sources" / "Toy").mkdir(parents=True)
    (package / "Package.swift").write_text(
        "// swift-tools-version:5.9\nimport PackageDescription\n"
        'let package = Package(name: "toy", targets: [.target(name: "Toy")])\n'
    )
    (package / "Sources" / "Toy" / "toy.swift").write_text("public let toy = 1\n")
    before = sorted(p.relative_to(package) for p in package.rglob("*"))

    ok = subprocess.run(
        [swift, "package", "dump-package"],
        cwd=package,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    (package / "Package.swift").write_text("let package = (\n")
    bad = subprocess.run(
        [swift, "package", "--package-path", str(package), "dump-package"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    assert ok.returncode == 0 and json.loads(ok.stdout)["name"] == "toy"
    assert bad.returncode == 1 and "error" in bad.stderr
    assert sorted(p.relative_to(package) for p in package.rglob("*")) == before
