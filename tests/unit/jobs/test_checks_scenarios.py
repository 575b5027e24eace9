"""The incidents from FORMAT.md, each as a release built in the real shape."""

import shutil

import pytest

from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, write_release, write_template_branch
from swiftpm_guard.core.model import Severity
from swiftpm_guard.core.option_names import option
from swiftpm_guard.errors import UsageError
from swiftpm_guard.jobs.check import CheckRequest, check

WITHOUT_MPS = [k for k in PRODUCT_KEYS if k != "backend_mps"]


def run(release, template=None, **sources):
    # The two-way check is the point here, not SwiftPM: a static reading is accepted, and its
    # one needs-swiftpm warning per manifest is tested in tests/unit/core/test_static_gate.py.
    sources.setdefault("accept_static", True)
    settings = CheckRequest(templates=(template or release.template,),
                            version=release.version if release else "1.0.0", swift="off",
                            **sources)
    return check(settings).report


def problems(report):
    """Errors and warnings but the accepted static reading's warning; the one informational
    notice (code signatures) is tested apart."""
    return tuple(f for f in report.findings if f.severity is not Severity.NOTICE
                 and (f.code, f.severity) != ("needs-swiftpm", Severity.WARNING))


def codes(report):
    return sorted((f.code, f.subject) for f in problems(report))


def test_full_release_is_consistent_with_static_counts(release):
    report = run(release, artifacts=(release.artifacts,), checksums=(release.checksums,))
    assert report.consistent and problems(report) == ()  # no zip is signed: no notice either
    # Without SwiftPM the text names no roles: binary targets counted, products unknown.
    assert (report.products, report.binary_targets, report.counts_source) == (None, 20, "static")
    assert report.unfilled == report.unclaimed == ()


def test_product_added_to_template_before_the_workflow_builds_it(tmp_path):
    # The 8-nightly incident: the template gained kernels_llm a week before the build did.
    built = [k for k in (*PRODUCT_KEYS, *BINARY_ONLY_KEYS) if k != "kernels_llm"]
    release = write_release(tmp_path, built=built)
    report = run(release, artifacts=(release.artifacts,))
    assert not report.consistent
    assert report.unfilled == ("kernels_llm", "kernels_llm_debug")
    assert codes(report) == [("unfilled-placeholder", "kernels_llm"),
                             ("unfilled-placeholder", "kernels_llm_debug")]
    lines = {f.subject: f.line for f in problems(report)}
    text = release.template.read_text().splitlines()
    assert "__SHA256_kernels_llm__" in text[lines["kernels_llm"] - 1]


def test_declared_workflow_list_catches_it_on_the_pull_request(tmp_path):
    built = [k for k in (*PRODUCT_KEYS, *BINARY_ONLY_KEYS) if k != "kernels_llm"]
    release = write_release(tmp_path, built=built)
    from swiftpm_guard.core.names import WorkflowSpec

    spec = WorkflowSpec(str(release.workflow), "build-frameworks", "FRAMEWORKS")
    report = run(release, frameworks_from=(spec,))
    assert report.unfilled == ("kernels_llm", "kernels_llm_debug")


def test_release_branch_still_builds_a_framework_the_template_dropped(tmp_path):
    release = write_release(tmp_path, products=WITHOUT_MPS)
    built = tmp_path / "built"
    write_release(built)  # the release branch builds the older set, MPS included
    report = run(release, artifacts=(built / "artifacts",))
    assert report.unclaimed == ("backend_mps", "backend_mps_debug")
    assert codes(report) == [("unclaimed-artifact", "backend_mps"),
                             ("unclaimed-artifact", "backend_mps_debug")]
    assert {f.file for f in problems(report)} == {
        f"{built / 'artifacts'}/backend_mps-1.2.3.zip",
        f"{built / 'artifacts'}/backend_mps_debug-1.2.3.zip",
    }


def test_mps_removal_before_and_after(tmp_path):
    before = write_release(tmp_path / "before")
    report = run(before, artifacts=(before.artifacts,))
    assert report.consistent and report.binary_targets == 20

    # After: the template and the build both drop MPS, but its stub folders were left behind.
    after = write_release(tmp_path / "after", products=WITHOUT_MPS)
    shutil.copytree(before.stubs / "backend_mps", after.stubs / "backend_mps")
    report = run(after, artifacts=(after.artifacts,))
    assert report.binary_targets == 18
    assert codes(report) == [("orphan-stub", "backend_mps")]
    shutil.rmtree(after.stubs / "backend_mps")
    assert run(after, artifacts=(after.artifacts,)).consistent


def test_stub_problems(tmp_path):
    release = write_release(tmp_path)
    shutil.rmtree(release.stubs / "executorch")
    (release.stubs / "kernels_llm" / "dummy.swift").unlink()
    (release.stubs / "kernels_llm" / "README").write_text("no sources here")
    (release.stubs / "threadpool").mkdir()
    (release.stubs / ".DS_Store").write_bytes(b"\0")
    report = run(release, artifacts=(release.artifacts,))
    # What the text decides: a folder without a source file is empty. Whether executorch
    # needs a folder, or threadpool may have one, is a role: SwiftPM's (or needs-swiftpm).
    assert codes(report) == [
        ("empty-stub", "kernels_llm"), ("empty-stub", "threadpool"),
        ("stray-file", ".DS_Store"),
    ]
    severities = {f.subject: str(f.severity) for f in problems(report)}
    assert severities[".DS_Store"] == "warning"


def test_legacy_swift_stub_folder_and_explicit_stubs_dir(tmp_path):
    root = tmp_path / "legacy"
    template = write_template_branch(root, stub_dir=".swift")
    release = write_release(tmp_path / "r")
    report = run(release, template=template, artifacts=(release.artifacts,))
    assert report.consistent
    moved = tmp_path / "elsewhere"
    shutil.move(root / ".swift", moved)
    (moved / "old").mkdir()
    assert ("orphan-stub", "old") not in codes(
        run(release, template=template, artifacts=(release.artifacts,)))
    report = run(release, template=template, artifacts=(release.artifacts,), stubs_dir=moved)
    assert codes(report) == [("orphan-stub", "old")]


def test_roles_are_not_guessed_from_the_text(tmp_path):
    template = tmp_path / "Package.swift.template"
    template.write_text('// swift-tools-version:5.9\nlet v = "__VERSION__"\n'
                        'let products = ["a": "__SHA256_a__", "a_debug": "__SHA256_a_debug__"]\n'
                        'let package = Package(name: "p")\n')
    report = run(None, template=template, frameworks=("a",))
    assert codes(report) == []  # no missing-stub from `let products`, no unknown-role
    assert report.consistent
    assert report.products is None and report.binary_targets == 2


def test_checksum_conflicts_bad_values_and_versions(tmp_path):
    release = write_release(tmp_path)
    sums = tmp_path / "sums.txt"
    good = release.checksum_of["executorch_debug"]
    sums.write_text(f"executorch {'0' * 64}\nexecutorch_debug {good}\nthreadpool {good.upper()}\n")
    (release.artifacts / "kernels_llm-1.2.3.zip").rename(release.artifacts / "kernels_llm-1.2.2.zip")
    report = run(release, artifacts=(release.artifacts,), checksums=(sums,))
    assert codes(report) == [
        ("bad-checksum", "threadpool"),
        ("conflicting-artifact", "executorch"),
        ("conflicting-artifact", "threadpool"),
        ("version-mismatch", "kernels_llm"),
    ]
    conflict = next(f for f in problems(report) if f.subject == "executorch")
    assert (conflict.file, conflict.line) == (str(sums), 1)


@pytest.mark.parametrize("version", ["1.2.3", "1.2.3.20250819"])
def test_version_shapes(tmp_path, version):
    release = write_release(tmp_path, version=version)
    report = run(release, checksums=(release.checksums,))
    assert report.consistent


@pytest.mark.parametrize(("version", "hint"), [
    ("1.2", "give one of those, or accept other shapes with --version-pattern REGEX"),
    ("1.2.3.2025", "--version-pattern"), ("1.2.3-rc1", "--version-pattern"),
    ("v1.2.3", f"drop the leading 'v': {option('version')} 1.2.3"),
    ("V1.2.3.20250819", f"drop the leading 'V': {option('version')} 1.2.3.20250819"),
])
def test_other_version_shapes_are_bad_usage_with_a_hint(tmp_path, version, hint):
    """Not a finding per zip (exit 1 with 21 findings): one line, exit 2, before any read."""
    with pytest.raises(UsageError) as caught:
        CheckRequest(templates=(tmp_path / "missing.template",), version=version,
                     checksums=(tmp_path / "missing.txt",))
    message = str(caught.value)
    assert "\n" not in message and repr(version) in message and hint in message
    assert caught.value.exit_code == 2


def test_version_pattern_and_warn_downgrade(tmp_path):
    release = write_release(tmp_path)
    report = check(CheckRequest(templates=(release.template,), version="1.2.3-rc1",
                               checksums=(release.checksums,), accept_static=True,
                               version_pattern=r"[0-9.]+-rc[0-9]+")).report
    assert report.consistent
    release2 = write_release(tmp_path / "b", products=WITHOUT_MPS)
    report = check(CheckRequest(templates=(release2.template,), version="1.2.3",
                               checksums=(release.checksums,), accept_static=True,
                               warn=frozenset({"unclaimed-artifact"}))).report
    assert report.consistent and report.unclaimed == ("backend_mps", "backend_mps_debug")
    assert {str(f.severity) for f in problems(report)} == {"warning"}


def test_a_version_specific_template_must_claim_on_its_own(tmp_path):
    release = write_release(tmp_path)
    variant = tmp_path / "swiftpm" / "Package@swift-5.9.swift.template"
    variant.write_text(release.template.read_text().replace(
        '  "backend_mps": [\n    "sha256": "__SHA256_backend_mps__",\n'
        '    "sha256" + debug_suffix: "__SHA256_backend_mps_debug__",\n  ],\n', ""))
    assert "backend_mps" not in variant.read_text()
    report = check(CheckRequest(templates=(release.template, variant), version="1.2.3",
                               checksums=(release.checksums,), accept_static=True)).report
    # A consumer whose SwiftPM reads the variant gets no backend_mps (issue 31): unclaimed
    # there, though the main template asks for it; its stub folders are orphans there too.
    assert report.unclaimed == ("backend_mps", "backend_mps_debug")
    assert [t.binary_targets for t in report.templates] == [20, 18]
    assert codes(report) == [("orphan-stub", "backend_mps"), ("orphan-stub", "backend_mps_debug"),
                             ("unclaimed-artifact", "backend_mps"),
                             ("unclaimed-artifact", "backend_mps_debug")]
    assert {f.file for f in problems(report) if f.code == "unclaimed-artifact"} == {str(variant)}
