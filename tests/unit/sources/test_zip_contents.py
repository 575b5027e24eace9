"""What a framework zip must hold (core/zip_rules.py), read by sources/zip_contents.py from
zips built like the real ones (support/release.py `write_real_zip`)."""

import plistlib

import pytest

from support.checks import evaluated
from support.release import Slice, write_real_zip, write_release
from swiftpm_guard.core.model import Severity
from swiftpm_guard.core.zip_rules import (
    content_findings,
    decode_xcframework,
    shape_problem,
)
from swiftpm_guard.errors import ZipProblem
from swiftpm_guard.sources.artifacts import scan_zip_folder
from swiftpm_guard.sources.template import load_template
from swiftpm_guard.sources.zip_archive import read_zip_contents


def judged(tmp_path, name="foo", **options):
    path = tmp_path / f"{name}-1.2.3.zip"
    write_real_zip(path, name, **options)
    contents = read_zip_contents(path)
    return contents, content_findings(contents, str(path), name)


def errors(found):
    return [(f.code, f.subject) for f in found if f.severity is Severity.ERROR]


def test_a_real_shaped_zip_passes_and_says_it_is_not_signed(tmp_path):
    contents, found = judged(tmp_path)
    assert errors(found) == []
    (notice,) = found
    assert (notice.code, notice.severity) == ("zip-signature", Severity.NOTICE)
    assert "not code-signed" in notice.message
    assert shape_problem(contents) is None


def test_a_signature_is_reported_as_a_notice(tmp_path):
    _, found = judged(tmp_path, signed=True)
    (notice,) = found
    assert notice.subject == "foo.xcframework/_CodeSignature/"
    assert notice.message.startswith("code-signed")


def test_flattened_macos_bundle_names_every_copied_link(tmp_path):
    _, found = judged(tmp_path, flatten_links=True)
    bundle = "foo.xcframework/macos-arm64_x86_64/foo.framework"
    assert errors(found) == [("zip-symlinks", f"{bundle}/{p}")
                             for p in ("Versions/Current", "Headers", "Resources", "foo")]
    assert all(f.file.endswith("foo-1.2.3.zip") for f in found)


def test_plist_that_swiftpm_cannot_decode_is_an_error(tmp_path):
    _, found = judged(tmp_path, plist=b"<plist><dict/></plist>")
    assert errors(found) == [("zip-plist", "foo.xcframework/Info.plist")]
    _, garbage = judged(tmp_path, name="bar", plist=b"\x00not a plist")
    assert errors(garbage) == [("zip-plist", "bar.xcframework/Info.plist")]
    assert "not a property list" in garbage[0].message


def test_a_library_path_the_plist_lists_must_exist(tmp_path):
    listed = plistlib.dumps({"AvailableLibraries": [
        {"LibraryIdentifier": "ios-arm64", "LibraryPath": "libfoo.a", "HeadersPath": "Headers",
         "SupportedArchitectures": ["arm64"], "SupportedPlatform": "ios"},
        {"LibraryIdentifier": "tvos-arm64", "LibraryPath": "libfoo.a",
         "SupportedArchitectures": ["arm64"], "SupportedPlatform": "tvos"},
    ]})
    _, found = judged(tmp_path, plist=listed, slices=(Slice("ios-arm64", "ios"),))
    assert errors(found) == [("zip-library-missing", "foo.xcframework/tvos-arm64/libfoo.a")]
    assert "(tvos)" in found[0].message


def test_anything_beside_the_xcframework_at_the_root_is_refused(tmp_path):
    _, found = judged(tmp_path, extra=("tool.artifactbundle",))
    assert errors(found) == [("zip-layout", "tool.artifactbundle/")]
    assert "beside foo.xcframework/" in found[0].message


def test_a_zip_without_its_xcframework_at_the_root_is_refused(tmp_path):
    _, at_root = judged(tmp_path, root="")
    assert ("zip-layout", "foo.xcframework/") in errors(at_root)
    _, other = judged(tmp_path, name="baz", root="Other.xcframework")
    assert errors(other)[:2] == [("zip-layout", "baz.xcframework/"),
                                 ("zip-layout", "Other.xcframework/")]


@pytest.mark.parametrize("plist, why", [
    ({"AvailableLibraries": [{"LibraryIdentifier": "x", "LibraryPath": "y",
                              "SupportedPlatform": "ios"}]}, "SupportedArchitectures"),
    ({"AvailableLibraries": [{"LibraryIdentifier": 1, "LibraryPath": "y",
                              "SupportedPlatform": "ios", "SupportedArchitectures": []}]},
     "LibraryIdentifier"),
    ({"AvailableLibraries": "x"}, "AvailableLibraries"),
])
def test_decoding_needs_what_swiftpms_decoder_needs(plist, why):
    result = decode_xcframework(plistlib.dumps(plist))
    assert isinstance(result, str) and why in result


def test_an_unreadable_zip_is_unreadablezip(tmp_path):
    path = tmp_path / "bad.zip"
    path.write_bytes(b"PK\x03\x04 and nothing else")
    with pytest.raises(ZipProblem):
        read_zip_contents(path)


def test_each_built_zip_is_judged_and_the_unreadable_one_left_to_zip_layout(tmp_path):
    dist = tmp_path / "dist"
    dist.mkdir()
    write_real_zip(dist / "good-1.2.3.zip", "good")
    write_real_zip(dist / "flat-1.2.3.zip", "flat", flatten_links=True)
    (dist / "broken-1.2.3.zip").write_bytes(b"PK\x03\x04")
    _artifacts, found = scan_zip_folder(dist, display="dist")
    errors = {(f.code, f.file) for f in found if f.severity is Severity.ERROR}
    assert errors == {("zip-symlinks", "dist/flat-1.2.3.zip"),
                      ("zip-layout", "dist/broken-1.2.3.zip")}


def test_every_scanned_zip_is_judged_and_warn_downgrades_like_any_code(tmp_path):
    release = write_release(tmp_path / "release", products=("executorch",), binary_only=(
        "threadpool",), real_zips=True)
    write_real_zip(release.artifacts / "threadpool-1.2.3.zip", "threadpool", flatten_links=True)
    artifacts, problems = scan_zip_folder(release.artifacts)
    flagged = {(f.code, (f.file or "").rsplit("/", 1)[-1]) for f in problems}
    assert flagged == {("zip-symlinks", "threadpool-1.2.3.zip")}
    template, _ = load_template(release.template)
    outcome = evaluated([template], artifacts, problems, warn=frozenset({"zip-symlinks"}))
    assert outcome.report.consistent  # --warn made the flattened copy a warning
    assert {(f.code, str(f.severity)) for f in outcome.report.findings} == {
        ("zip-symlinks", "warning"), ("needs-swiftpm", "warning")}


def test_a_folder_where_only_some_zips_are_signed_gets_one_notice(tmp_path):
    folder = tmp_path / "dist"
    folder.mkdir()
    write_real_zip(folder / "signed-1.2.3.zip", "signed", signed=True)
    write_real_zip(folder / "plain-1.2.3.zip", "plain")
    _artifacts, found = scan_zip_folder(folder, display="dist")
    (notice,) = [f for f in found if f.code == "zip-signature"]
    assert notice.severity is Severity.NOTICE and notice.file == "dist"
    assert "1 of 2 zips carry no code signature" in notice.message
    assert "plain-1.2.3.zip" in notice.message and "signed-1.2.3.zip" not in notice.message
    (tmp_path / "all").mkdir()
    write_real_zip(tmp_path / "all" / "plain-1.2.3.zip", "plain")
    assert [f for f in scan_zip_folder(tmp_path / "all")[1] if f.code == "zip-signature"] == []
