"""The pure audit: branch contents in, findings and reports out (no git here)."""

import dataclasses

from support.markdown import rendered_text
from support.published import BranchSpec
from support.release import PRODUCT_KEYS, all_names
from swiftpm_guard.core.audit import (
    AuditOptions,
    AuditReport,
    BranchAudit,
    ManifestFile,
    PublishedBranch,
    audit,
    version_key,
)
from swiftpm_guard.core.model import Finding, Location, Severity, Stub
from swiftpm_guard.core.option_names import option
from swiftpm_guard.report.audit import groups, to_dict, to_markdown
from swiftpm_guard.report.check import SCHEMA_VERSION


def branch_of(spec: BranchSpec) -> PublishedBranch:
    stubs = tuple(Stub(n, Location(f".Package.swift/{n}"), True)
                  for n in all_names(spec.products))
    return PublishedBranch(spec.branch_name, "0" * 40,
                           (ManifestFile("Package.swift", spec.manifest()),),
                           ".Package.swift", stubs)


def codes(report):
    return {b.branch: sorted({f.code for f in b.findings}) for b in report.branches}


def test_sound_branches_have_no_findings():
    report = audit([branch_of(BranchSpec("1.0.0")), branch_of(BranchSpec("1.0.1"))],
                   AuditOptions())
    assert report.consistent
    assert codes(report) == {"swiftpm-1.0.0": [], "swiftpm-1.0.1": []}


def test_unreadable_missing_and_unrecognised_manifests():
    branches = [
        PublishedBranch("swiftpm-1.0.0", "a" * 40,
                        (ManifestFile("Package.swift", None, "the branch has no Package.swift"),)),
        PublishedBranch("swiftpm-1.0.1", "b" * 40,
                        (ManifestFile("Package.swift", "// nothing here\n"),)),
    ]
    report = audit(branches, AuditOptions())
    assert codes(report) == {"swiftpm-1.0.0": ["manifest-unreadable"],
                             "swiftpm-1.0.1": ["missing-version", "unrecognised-manifest"]}
    assert not report.consistent  # unreadable is an error; the others only warn
    assert not report.branches[1].has_errors


def test_variant_manifests_are_checked_too():
    spec = BranchSpec("1.0.0")
    variant = spec.manifest().replace(spec.checksum_of()["executorch"], "__SHA256_executorch__")
    published = branch_of(spec)
    published = PublishedBranch(published.name, published.commit,
                                (*published.manifests,
                                 ManifestFile("Package@swift-5.9.swift", variant)),
                                published.stubs_dir, published.stubs)
    findings = audit([published], AuditOptions()).branches[0].findings
    assert [(f.code, f.file, f.subject) for f in findings] == [
        ("placeholder-left", "Package@swift-5.9.swift", "executorch")]


def test_custom_prefix_and_version_pattern():
    spec = BranchSpec("2.0.0-rc1", branch="spm/2.0.0-rc1")
    options = AuditOptions(branch_prefix="spm/", version_pattern=r"[0-9.]+-rc[0-9]+")
    report = audit([branch_of(spec)], options)
    assert report.branches[0].version == "2.0.0-rc1"
    assert report.consistent
    assert not audit([branch_of(spec)], AuditOptions()).consistent  # bad-version by default


def test_version_key_orders_numerically():
    versions = ["0.10.0", "0.9.0.20250102", "0.9.0", "0.9.1", "0.9.0.20250101"]
    assert sorted(versions, key=lambda v: version_key(v, v)) == [
        "0.9.0", "0.9.0.20250101", "0.9.0.20250102", "0.9.1", "0.10.0"]


def finding(code, subject, severity=Severity.ERROR):
    return Finding(code, severity, subject, f"{code} {subject}", "Package.swift", 3)


def report_of(*entries):
    return AuditReport("repo", "swiftpm-*", tuple(
        BranchAudit(f"swiftpm-{v}", v, tuple(f)) for v, f in entries))


def test_groups_split_by_kind_and_problem_and_label_dates():
    left = [finding("placeholder-left", "a"), finding("placeholder-left", "a_debug")]
    report = report_of(
        ("1.0.0", left),
        ("1.0.0.20241230", left), ("1.0.0.20241231", left), ("1.0.0.20250101", left),
        ("1.0.0.20250102", []),
        ("1.0.1", []), ("1.0.2", []),
    )
    runs = groups(report)
    assert [(g.label, g.problem) for g in runs] == [
        ("release 1.0.0", "2 placeholders left"),
        ("3 nightlies, 2024-12-30 … 2025-01-01", "2 placeholders left"),
        ("nightly 2025-01-02", "sound"),
        ("2 releases, 1.0.1 … 1.0.2", "sound"),
    ]


def test_markdown_lists_errors_before_warnings_and_caps_subjects():
    findings = [finding("stray-file", ".DS_Store", Severity.WARNING)] + [
        finding("bad-checksum", n) for n in "abcdef"]
    text = to_markdown(report_of(("1.0.0", findings)))
    assert ("**release 1.0.0: 6 checksums not 64 lowercase hex, 1 stray file in the stub "
            "root** (`a`, `b`, `c`, `d` and 3 more)") in text
    assert text.index("**error** `bad-checksum`") < text.index("**warning** `stray-file`")


def test_json_dict_is_exactly_the_documented_shape():
    data = to_dict(report_of(("1.0.0", [finding("placeholder-left", "x")]), ("1.0.1", [])))
    assert data.pop("tool")["name"] == "swiftpm-guard"
    assert data == {
        "schema_version": SCHEMA_VERSION,
        "kind": "audit",
        "consistent": False,
        "source": "repo",
        "pattern": "swiftpm-*",
        "verify_urls": None,
        "protection": None,
        "branches": [
            {"branch": "swiftpm-1.0.0", "version": "1.0.0", "findings": [
                {"code": "placeholder-left", "severity": "error", "subject": "x",
                 "file": "Package.swift", "line": 3, "message": "placeholder-left x",
                 "ref": None, "fix": None}],
             "tip": None},
            {"branch": "swiftpm-1.0.1", "version": "1.0.1", "findings": [], "tip": None},
        ],
    }


def test_products_of_other_sizes_still_match_their_stubs():
    spec = BranchSpec("1.0.0", products=PRODUCT_KEYS[:3])
    assert audit([branch_of(spec)], AuditOptions()).consistent


def test_a_tip_that_is_not_the_publish_commit_is_a_warning_with_who_and_when():
    from swiftpm_guard.core.audit import TipCommit

    spec = BranchSpec("1.0.0")
    fixed = TipCommit("a" * 40, "Jane <jane@example.org>", "2025-02-03T04:05:06+00:00",
                      "Update checksums")
    published = TipCommit("b" * 40, "Bot <bot@example.org>", "2025-01-01T00:00:00+00:00",
                          "1.0.0")
    edited = audit([dataclasses.replace(branch_of(spec), tip=fixed)], AuditOptions())
    [branch] = edited.branches
    assert [(f.code, f.severity) for f in branch.findings] == [
        ("edited-after-publish", Severity.WARNING)]
    message = branch.findings[0].message
    assert "aaaaaaaaaaaa" in message and "Jane <jane@example.org>" in message
    assert "2025-02-03T04:05:06+00:00" in message and \
        f"use {option('update')}, never {option('allow-overwrite')}" in message
    assert edited.consistent  # a warning: the hand fix may well be right
    assert to_dict(edited)["branches"][0]["tip"] == fixed.as_dict()
    text = to_markdown(edited)
    assert "tip edited after publishing" in text
    # As GitHub renders it: the author's <email> is text, not swallowed as an HTML tag (the
    # tips table went to the JSON and the log; the finding says who and when).
    assert '"Update checksums", Jane <jane@example.org>, 2025-02-03' in rendered_text(text)
    clean = audit([dataclasses.replace(branch_of(spec), tip=published)], AuditOptions())
    assert clean.branches[0].findings == ()
