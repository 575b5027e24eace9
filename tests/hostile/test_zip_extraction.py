"""Zips as SwiftPM extracts them (issue 24): what Info-ZIP's unzip 6.0 refuses is refused.

SwiftPM validates a downloaded zip with `unzip -t` and extracts it with `unzip -d` (Linux and
macOS alike). Measured with the toolchain's unzip, and each verdict here was checked with the
real `swift package resolve` (tests/integration/test_swiftpm_zip_differential.py): methods
other than stored and deflate (LZMA, zstd, …), a stored entry whose sizes differ, a version
needed above 4.6, a bad CRC, a damaged deflate stream, a second file of one name, a file where
a folder must be: "invalid archive returned from …" or "failed extracting …". A symlink out
of the archive extracts, and is reported. The zips are written byte by byte
(support/zip_build.py), every header field chosen.
"""

from __future__ import annotations

import re
import subprocess
import time
import zipfile
import zlib
from pathlib import Path

import pytest

from support.release import write_real_zip
from support.zip_build import (
    BZIP2,
    DEFLATED,
    LZMA,
    STORED,
    ZSTD,
    Member,
    build,
    changed,
    members_of,
)
from swiftpm_guard.cli.main import main
from swiftpm_guard.core.model import Severity
from swiftpm_guard.core.zip_rules import ZipContents, content_findings, shape_problem
from swiftpm_guard.errors import ZipProblem
from swiftpm_guard.sources.artifacts import scan_zip_folder
from swiftpm_guard.sources.zip_archive import FullCheck, read_zip_contents

NAME = "foo"
ROOT = f"{NAME}.xcframework"
PLIST = f"{ROOT}/Info.plist"
BINARY = f"{ROOT}/ios-arm64/lib{NAME}.a"
HEADER = f"{ROOT}/ios-arm64/Headers/{NAME}.h"
BUNDLE = f"{ROOT}/macos-arm64_x86_64/{NAME}.framework"
DATA = bytes(range(256)) * 64  # 16 KiB that deflate shrinks and a flipped byte breaks


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> list[Member]:
    """A real-shaped framework zip (write_real_zip) as members, its binary 16 KiB."""
    path = tmp_path_factory.mktemp("real") / "foo.zip"
    write_real_zip(path, NAME)
    return changed(members_of(path), BINARY, data=DATA)


def contents_of(tmp_path: Path, members: list[Member], full: FullCheck | None = None,
                data: bytes | None = None) -> ZipContents:
    path = tmp_path / f"{NAME}-1.0.0.zip"
    path.write_bytes(build(members) if data is None else data)
    return read_zip_contents(path, full=full)


def errors(contents: ZipContents) -> list[tuple[str, str]]:
    return [(f.code, f.subject) for f in content_findings(contents, "foo-1.0.0.zip", NAME)
            if f.severity is Severity.ERROR]


def damage(contents: ZipContents) -> dict[str, str]:
    return {d.entry: d.why for d in contents.damaged}


def test_the_real_shape_extracts_stored_deflated_and_with_descriptors(tmp_path, real):
    for members in (real, [m if m.is_dir or m.link else Member(**{**m.__dict__,
                                                                   "method": DEFLATED})
                           for m in real],
                    [Member(**{**m.__dict__, "descriptor": True}) for m in real]):
        for full in (None, FullCheck()):
            contents = contents_of(tmp_path, members, full)
            assert errors(contents) == [] and contents.unverified is None
            assert shape_problem(contents) is None


def test_zips_zipfile_and_info_zip_write_pass_the_full_check(tmp_path):
    streamed = tmp_path / "streamed.zip"
    with zipfile.ZipFile(streamed, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{ROOT}/x", b"x" * 100_000)
        with archive.open(f"{ROOT}/big", "w", force_zip64=True) as stream:
            stream.write(DATA)
    checked = read_zip_contents(streamed, full=FullCheck())
    assert checked.damaged == () and checked.unverified is None
    folder = tmp_path / "tree" / ROOT
    (folder / "Versions" / "A").mkdir(parents=True)
    (folder / "Versions" / "A" / "lib").write_bytes(DATA * 4)
    (folder / "Versions" / "Current").symlink_to("A")
    made = tmp_path / "zip-ry.zip"
    subprocess.run(["zip", "-qry", str(made), ROOT], cwd=tmp_path / "tree", check=True)
    contents = read_zip_contents(made, full=FullCheck())
    assert contents.damaged == () and contents.unverified is None
    assert [(e.name, e.target) for e in contents.entries if e.is_link] == [
        (f"{ROOT}/Versions/Current", "A")]
    assert errors(contents) == [("zip-plist", PLIST)]  # no Info.plist: nothing else


# -- methods, sizes, versions: from the headers, every entry, by default ---------------------


@pytest.mark.parametrize(("method", "word"), [(LZMA, "LZMA"), (ZSTD, "zstd"), (BZIP2, "bzip2"),
                                              (99, "AES"), (6, "implode"), (77, "method 77")])
@pytest.mark.parametrize("where", [PLIST, BINARY])
def test_a_method_other_than_stored_or_deflate_is_named(tmp_path, real, method, word, where):
    payload = None if method in (LZMA, ZSTD, BZIP2) else b"raw"
    contents = contents_of(tmp_path, changed(real, where, method=method, payload=payload))
    why = damage(contents)[where]
    assert f"method {method};" in why and "only stored and deflate" in why, word
    assert errors(contents) == [("zip-layout", where)]  # no zip-plist beside it


def test_a_stored_entry_whose_sizes_differ(tmp_path, real):
    longer = contents_of(tmp_path, changed(real, BINARY, size=len(DATA) + 1))
    assert "16384 stored, 16385 extracted" in damage(longer)[BINARY]
    shorter = contents_of(tmp_path, changed(real, HEADER, payload=b"//", size=5))
    assert "it is stored, yet its sizes differ" in damage(shorter)[HEADER]


@pytest.mark.parametrize(("needed", "refused"), [(20, False), (45, False), (0x0314, False),
                                                 (46, True), (63, True)])
def test_a_version_needed_unzip_does_not_implement(tmp_path, real, needed, refused):
    contents = contents_of(tmp_path, changed(real, HEADER, needed=needed))
    assert (HEADER in damage(contents)) is refused
    if refused:
        assert f"PKZIP {needed}" in damage(contents)[HEADER]


def test_sizes_deflate_does_not_produce_are_refused(tmp_path, real):
    claim = changed(real, BINARY, method=DEFLATED, size=0xFFFF_FFF0)
    contents = contents_of(tmp_path, claim, FullCheck())
    assert "its headers say 4294967280" in damage(contents)[BINARY]
    empty = contents_of(tmp_path, changed(real, BINARY, method=DEFLATED, payload=b""),
                        FullCheck())
    assert "ends before its final block" in damage(empty)[BINARY]


# -- data: the metadata entries and links by default, every entry with --verify-zips ----------


def test_a_crc_both_headers_misstate(tmp_path, real):
    wrong = zlib.crc32(DATA) ^ 0x10
    hidden = contents_of(tmp_path, changed(real, BINARY, crc=wrong))
    assert errors(hidden) == []  # the binary's data is read only by the full check
    full = contents_of(tmp_path, changed(real, BINARY, crc=wrong), FullCheck())
    assert "its headers say" in damage(full)[BINARY]
    plist = next(m for m in real if m.name == PLIST)
    read = contents_of(tmp_path, changed(real, PLIST, crc=zlib.crc32(plist.data) ^ 1))
    assert errors(read) == [("zip-layout", PLIST)]


@pytest.mark.parametrize(("how", "expected"), [
    # A flipped byte mid-stream still inflates (DATA is fixed), to other bytes: the CRC says so.
    ("flip", r"its data's CRC-32 is [0-9a-f]{8}; its headers say [0-9a-f]{8}"),
    ("cut", r"its deflate stream ends before its final block \(cut short or damaged\)"),
    ("stored bytes", r"its deflate stream is damaged \(zlib: .*invalid stored block lengths\)"),
])
def test_a_damaged_deflate_stream(tmp_path, real, how, expected):
    stream = zlib.compressobj(6, zlib.DEFLATED, -15)
    packed = stream.compress(DATA) + stream.flush()
    fields: dict[str, object] = {
        "flip": {"method": DEFLATED, "flip": (len(packed) // 2,)},
        "cut": {"method": DEFLATED, "payload": packed[:-4]},
        "stored bytes": {"method": DEFLATED, "payload": DATA},
    }[how]
    contents = contents_of(tmp_path, changed(real, BINARY, **fields), FullCheck())
    assert re.fullmatch(expected, damage(contents)[BINARY])


def test_what_unzip_ignores_after_a_deflate_stream_is_ignored(tmp_path, real):
    stream = zlib.compressobj(6, zlib.DEFLATED, -15)
    packed = stream.compress(DATA) + stream.flush()
    contents = contents_of(tmp_path, changed(real, BINARY, method=DEFLATED,
                                             payload=packed + b"junk"), FullCheck())
    assert errors(contents) == []


def test_a_deflated_entry_whose_size_is_misstated_is_refused(tmp_path, real):
    for size in (len(DATA) - 1, len(DATA) + 1):
        contents = contents_of(tmp_path, changed(real, BINARY, method=DEFLATED, size=size),
                               FullCheck())
        assert "its headers say" in damage(contents)[BINARY]


def test_a_bomb_stops_at_its_declared_size(tmp_path, real):
    """512 MiB of zeros declared as 1 KiB: inflated a MiB at a time, stopped at once."""
    bomb = zlib.compressobj(9, zlib.DEFLATED, -15)
    zeros = bytes(1 << 20)
    packed = b"".join(bomb.compress(zeros) for _ in range(512)) + bomb.flush()
    members = changed(real, PLIST, method=DEFLATED, payload=packed, size=1024)
    started = time.monotonic()
    contents = contents_of(tmp_path, members)
    assert time.monotonic() - started < 5
    assert "more than the 1024 bytes its headers say" in damage(contents)[PLIST]


def test_the_full_check_is_bounded_in_bytes_and_time(tmp_path, real):
    small = contents_of(tmp_path, real, FullCheck(max_bytes=1000))
    assert small.damaged == () and "more than the 1000 it decompresses" in small.unverified
    assert errors(small) == [("zip-unverified", "foo-1.0.0.zip")]
    late = contents_of(tmp_path, real, FullCheck(seconds=0))
    assert late.unverified is not None and "stopped after 0 s" in late.unverified
    assert contents_of(tmp_path, real).unverified is None  # the default reads no such bytes


# -- names unzip cannot place ------------------------------------------------------------------


def test_names_unzip_cannot_place(tmp_path, real):
    binary = next(m for m in real if m.name == BINARY)
    twice = contents_of(tmp_path, [*real, binary])
    assert list(damage(twice)) == [BINARY] and "same name" in damage(twice)[BINARY]
    folder = contents_of(tmp_path, [*real, Member(BINARY + "/inside")])
    assert "inside a folder of that name" in damage(folder)[BINARY]
    case = contents_of(tmp_path, [*real, Member(BINARY.upper().replace(ROOT.upper(), ROOT))])
    assert "only in case" in next(iter(damage(case).values()))
    folders_twice = contents_of(tmp_path, [*real, Member(f"{ROOT}/ios-arm64/")])
    assert "same name" in damage(folders_twice)[f"{ROOT}/ios-arm64/"]  # no tool writes it


# -- symlinks ----------------------------------------------------------------------------------


def links_of(tmp_path: Path, real: list[Member], *extra: Member) -> list[tuple[str, str]]:
    names = {m.name for m in extra}
    members = [m for m in real if m.name not in names] + list(extra)
    return [(code, subject) for code, subject in errors(contents_of(tmp_path, members))
            if code == "zip-link"]


def test_the_library_info_plist_lists_linked_to_etc_passwd(tmp_path, real):
    found = links_of(tmp_path, real, Member(BINARY, b"/etc/passwd", link=True))
    assert found == [("zip-link", BINARY)]
    message = content_findings(contents_of(tmp_path, changed(real, BINARY, link=True,
                                                             data=b"/etc/passwd")),
                               "z", NAME)[0].message
    assert "'/etc/passwd'" in message and "an absolute path" in message


@pytest.mark.parametrize(("name", "target", "escapes"), [
    (BINARY, "../../../etc/passwd", True),  # .. past the archive's root
    (BINARY, "../../foo.xcframework/Info.plist", False),  # in the archive and its bundle
    (f"{BUNDLE}/Headers", "../../ios-arm64/Headers", True),  # out of the .framework
    (f"{BUNDLE}/Headers", "Versions/Current/Headers", False),
    (f"{BUNDLE}/Versions/Current", "A", False),
    (f"{BUNDLE}/Versions/Current", "../..", True),
    (f"{BUNDLE}/Escape", "Versions/Current/../../../x", True),  # through Current, out
    (f"{BUNDLE}/Inside", "Versions/Current/../A/Headers", False),
    (f"{BUNDLE}/Loop", "Loop", True),  # a loop never resolves
])
def test_link_targets_resolved_as_the_extracted_tree_resolves_them(tmp_path, real, name,
                                                                  target, escapes):
    found = links_of(tmp_path, real, Member(name, target.encode(), link=True))
    assert (("zip-link", name) in found) is escapes, found
    assert found == [] or escapes, found  # the bundle's own links resolve inside it


@pytest.mark.parametrize(("host", "is_link"), [(3, True), (5, True), (16, True), (0, False),
                                               (19, False), (10, False)])
def test_a_link_is_what_unzip_makes_a_link(tmp_path, real, host, is_link):
    found = links_of(tmp_path, real, Member(BINARY, b"/etc/passwd", link=True, host=host))
    assert bool(found) is is_link


def test_a_linked_info_plist_is_not_read_as_the_plist(tmp_path, real):
    contents = contents_of(tmp_path, changed(real, PLIST, link=True, data=b"/etc/passwd"))
    assert PLIST not in contents.metadata
    found = dict(errors(contents))
    assert set(found) == {"zip-plist", "zip-link"}


def test_a_link_target_longer_than_any_path_is_damage(tmp_path, real):
    contents = contents_of(tmp_path, changed(real, BINARY, link=True, data=b"a/" * 3000))
    assert "longer than any path" in damage(contents)[BINARY]


# -- the whole way: check, the action input, --verify-urls --------------------------------------


def test_check_reports_each_entry_and_verify_zips_reads_every_one(tmp_path, real, capsys):
    dist = tmp_path / "dist"
    dist.mkdir()
    members = changed(changed(real, HEADER, method=LZMA), BINARY, crc=zlib.crc32(DATA) ^ 2)
    (dist / f"{NAME}-1.0.0.zip").write_bytes(build(members))
    default = [(f.code, f.subject) for f in scan_zip_folder(dist)[1]
               if f.severity is Severity.ERROR]
    assert default == [("zip-layout", HEADER)]
    full = [(f.code, f.subject) for f in scan_zip_folder(dist, verify=True)[1]
            if f.severity is Severity.ERROR]
    assert full == [("zip-layout", HEADER), ("zip-layout", BINARY)]
    args = ["check", "--template", "nothing.template", "--version", "1.0.0", "--artifacts",
            str(dist), "--frameworks", NAME]
    assert main([*args, "--verify-zips", "--bogus"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_the_verify_zips_input_is_a_boolean(tmp_path):
    from swiftpm_guard.action.settings import ActionSettings
    from swiftpm_guard.errors import UsageError

    env = {"GITHUB_EVENT_NAME": "push", "GITHUB_REPOSITORY": "o/r", "GITHUB_SHA": "1" * 40,
           "GITHUB_WORKSPACE": str(tmp_path), "INPUT_FRAMEWORKS": "a"}
    assert ActionSettings.from_env({**env, "INPUT_VERIFY-ZIPS": "true"}).verify_zips is True
    # auto, the default: publishing verifies every entry, a check does not
    publishing = {**env, "INPUT_MODE": "publish", "INPUT_VERSION": "1.0.0"}
    assert ActionSettings.from_env(publishing).verify_zips is True
    assert ActionSettings.from_env(env).mode == "check"
    assert ActionSettings.from_env(env).verify_zips is False
    assert ActionSettings.from_env({**publishing, "INPUT_VERIFY-ZIPS": "false"}).verify_zips \
        is False
    with pytest.raises(UsageError) as caught:
        ActionSettings.from_env({**env, "INPUT_VERIFY-ZIPS": "sometimes"})
    assert "verify-zips" in str(caught.value) and "\n" not in str(caught.value)


def test_verify_urls_applies_the_same_rules_to_what_is_served(tmp_path, real):
    import hashlib

    from support.zip_server import Route, serve_zips
    from swiftpm_guard.core.model import Location
    from swiftpm_guard.core.urls import HostedZip, UrlSettings
    from swiftpm_guard.sources.hosted import verify_with_stats

    served = {"lzma": build(changed(real, HEADER, method=LZMA)),
              "link": build(changed(real, BINARY, link=True, data=b"/etc/passwd")),
              "crc": build(changed(real, BINARY, crc=zlib.crc32(DATA) ^ 4)),
              "good": build(real)}
    with serve_zips() as server:
        zips = []
        for key, body in served.items():
            server.routes[f"/{key}.zip"] = Route(body)
            zips.append(HostedZip(key, server.url(f"{key}.zip"),
                                  hashlib.sha256(body).hexdigest(), Location("Package.swift")))
        default, _ = verify_with_stats(zips, UrlSettings(timeout=5, retries=0))
        full, _ = verify_with_stats(zips, UrlSettings(timeout=5, retries=0, verify_zips=True))
    codes = {z.name: (f.code if f else None) for z, f in zip(zips, default, strict=True)}
    assert codes == {"lzma": "url-not-zip", "link": "zip-link", "crc": None, "good": None}
    assert HEADER in default[0].message and "method 14" in default[0].message
    assert [f.code if f else None for f in full] == ["url-not-zip", "zip-link", "url-not-zip",
                                                     None]


def test_an_unreadable_zip_is_still_one_unreadablezip(tmp_path):
    with pytest.raises(ZipProblem):
        contents_of(tmp_path, [], data=b"PK\x05\x06" + bytes(10))
    assert STORED == 0  # the builder's stored entries are what every test above starts from
