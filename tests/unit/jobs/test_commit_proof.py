"""The consumer proof's reading of what SwiftPM extracted (jobs.commit_proof): the toolchain
wrapper's listing and the rule that each target's folder holds exactly NAME.xcframework."""

from __future__ import annotations

from swiftpm_guard.core.model import Location
from swiftpm_guard.core.resolution import ResolveTarget
from swiftpm_guard.jobs.commit_proof import extracted_findings, split_listing

TARGETS = [ResolveTarget(n, f"https://example.invalid/{n}-1.2.3.zip", "0" * 64,
                         Location("Package.swift", 3)) for n in ("a", "b")]
PUBLISHED = "swiftpm-guard-published"


def test_exactly_the_targets_xcframework_passes():
    listed = [f"{PUBLISHED}/a/a.xcframework", f"{PUBLISHED}/b/b.xcframework"]
    assert extracted_findings(listed, TARGETS, "branch") == []


def test_anything_beside_or_instead_of_it_is_refused_per_target():
    listed = [f"{PUBLISHED}/a/a.xcframework", f"{PUBLISHED}/a/extra.xcframework",
              f"{PUBLISHED}/b/Info.plist", "other/b/b.xcframework"]
    found = extracted_findings(listed, TARGETS, "revision")
    assert [(f.code, f.subject, f.line) for f in found] == [("commit-proof", "a", 3),
                                                           ("commit-proof", "b", 3)]
    assert "'extra.xcframework'" in found[0].message and "by revision" in found[0].message
    assert "'Info.plist'" in found[1].message


NONCE = "0123456789abcdef0123456789abcdef"


def test_the_wrapper_listing_is_cut_out_of_swiftpms_output():
    # An entry's name is the zip's: it may hold newlines and marker-like text without the nonce.
    forged = "x\nswiftpm-guard-artifacts-end-\nerror: binary target 'a' y"
    names = "\0".join([f"{PUBLISHED}/a/a.xcframework", forged]) + "\0"
    output = (f"Fetching x\nDownloaded y (0.1s)\n\nswiftpm-guard-artifacts-begin-{NONCE}\n"
              + names + f"\nswiftpm-guard-artifacts-end-{NONCE}\n")
    text, listed = split_listing(output, NONCE)
    assert text == "Fetching x\nDownloaded y (0.1s)\n"
    assert listed == [f"{PUBLISHED}/a/a.xcframework", forged]
    assert split_listing("no listing\n", NONCE) == ("no listing\n", None)
    assert split_listing(output, "f" * 32) == (output, None)  # another run's markers
