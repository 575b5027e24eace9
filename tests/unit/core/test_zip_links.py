"""Symlink entries judged as the extracted tree resolves them, and damage as findings (pure)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from swiftpm_guard.core.zip_rules import (
    LINK_HOPS,
    Damage,
    ZipContents,
    ZipEntry,
    content_findings,
    damage_findings,
    extraction_problem,
    link_boundary,
    link_findings,
    resolve_link,
)

B = "x.xcframework/macos/x.framework"


def test_the_boundary_is_the_innermost_framework_else_the_xcframework_else_the_archive():
    assert link_boundary(f"{B}/Versions/Current") == B
    assert link_boundary(f"{B}/Versions/A/Frameworks/y.framework/Headers") == \
        f"{B}/Versions/A/Frameworks/y.framework"
    assert link_boundary("x.xcframework/ios-arm64/libx.a") == "x.xcframework"
    assert link_boundary("t.artifactbundle/bin/t") == "t.artifactbundle"
    assert link_boundary("loose/file") == ""


def test_resolving_follows_every_component_through_the_other_links():
    links = {f"{B}/Versions/Current": "A", f"{B}/Headers": "Versions/Current/Headers"}
    assert resolve_link(f"{B}/Headers", "Versions/Current/Headers", links) == (
        f"{B}/Versions/A/Headers", "")
    # Textually Versions/Current/.. is Versions; through the link it is Versions too (A's
    # parent), and one more .. leaves the bundle.
    assert resolve_link(f"{B}/E", "Versions/Current/../../x", links) == (f"{B}/x", "")
    assert resolve_link(f"{B}/E", "Versions/Current/../../../x", links) == (
        "x.xcframework/macos/x", "")
    deep = {f"{B}/Versions/Current": "A/B/C"}
    assert resolve_link(f"{B}/E", "Versions/Current/../x", deep) == (f"{B}/Versions/A/B/x", "")


def test_leaving_the_archive():
    assert resolve_link("a/b", "/etc/passwd", {}) == (None, "an absolute path")
    assert resolve_link("a/b", "../../x", {}) == (None, "above the archive's root")
    assert resolve_link("a/b", "c", {"a/c": "/tmp"})[0] is None
    looped = resolve_link("a/b", "c", {"a/c": "d", "a/d": "c"})
    assert looped[0] is None and f"more than {LINK_HOPS}" in looped[1]


@given(st.lists(st.sampled_from(["..", ".", "a", "b", "", "c/d"]), max_size=12))
def test_a_resolved_path_never_climbs_out_silently(parts):
    target = "/".join(parts)
    resolved, how = resolve_link("r/s/t", target, {"r/a": "../..", "r/s/b": "c"})
    assert (resolved is None) == bool(how)
    if resolved is not None:
        assert ".." not in resolved.split("/") and not resolved.startswith("/")


def _contents(*entries: ZipEntry, damaged: tuple[Damage, ...] = ()) -> ZipContents:
    return ZipContents(entries, {}, damaged)


def test_a_link_out_of_its_bundle_and_one_out_of_the_archive():
    found = link_findings(_contents(
        ZipEntry(f"{B}/Versions/Current", True, "A"),
        ZipEntry(f"{B}/Headers", True, "../../ios-arm64/Headers"),
        ZipEntry("x.xcframework/ios-arm64/libx.a", True, "/etc/passwd"),
        ZipEntry("x.xcframework/ios-arm64/empty", True, ""),
        ZipEntry("x.xcframework/ios-arm64/unread", True, None),
    ), "dist/x-1.0.0.zip")
    assert [(f.code, f.subject) for f in found] == [
        ("zip-link", f"{B}/Headers"), ("zip-link", "x.xcframework/ios-arm64/libx.a")]
    assert "outside " + B in found[0].message and "an absolute path" in found[1].message


def test_damage_is_one_finding_per_entry_capped():
    damaged = tuple(Damage(f"x.xcframework/f{i}", "it is compressed with method 14 (LZMA)")
                    for i in range(25))
    found = damage_findings(_contents(damaged=damaged), "dist/x-1.0.0.zip")
    assert len(found) == 11 and found[0].subject == "x.xcframework/f0"
    assert "15 more entries are refused" in found[-1].message
    assert extraction_problem(_contents(damaged=damaged)) == (
        "x.xcframework/f0: it is compressed with method 14 (LZMA) (and 24 more entries)")
    assert extraction_problem(_contents()) is None


def test_an_unverified_zip_is_an_error_of_its_own():
    contents = ZipContents((), {}, (), "it stopped after 300 s, 3 of 9 entries verified")
    found = [f for f in content_findings(contents, "dist/x-1.0.0.zip", "x")
             if f.code == "zip-unverified"]
    assert len(found) == 1 and "3 of 9 entries verified" in found[0].message
