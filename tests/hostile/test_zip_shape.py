"""One narrow zip shape accepted, the rest refused naming the zip and the entry (issue 31).

Seen with SwiftPM 6.0.3 and Info-ZIP's unzip: a second valid `extra.xcframework`, or an
`Info.plist` at the zip's root, makes SwiftPM take *that* as the target; Unicode Path extra
fields, `./` and `//` names, bytes before the records all passed the guard while SwiftPM said
"invalid archive". Each test here fails on the reader before issue 31 (it modelled unzip
instead of allowing one shape). The real SwiftPM's own verdict on these zips is
tests/integration/test_swiftpm_zip_differential.py's `issue_31` test.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from support.release import write_real_zip, xcframework_plist
from support.zip_build import Member, build, changed, members_of
from support.zip_cases import moved_past
from swiftpm_guard.core.model import Severity
from swiftpm_guard.sources.artifacts import scan_zip_folder

NAME = "foo"
ROOT = f"{NAME}.xcframework"
BINARY = f"{ROOT}/ios-arm64/lib{NAME}.a"
ZIP = f"{NAME}-1.0.0.zip"


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> list[Member]:
    path = tmp_path_factory.mktemp("real") / "foo.zip"
    write_real_zip(path, NAME)
    return members_of(path)


def refused(tmp_path: Path, data: bytes, *, verify: bool = False) -> list[tuple[str, str]]:
    """The error findings (code, entry) for the zip `foo-1.0.0.zip` holding `data`."""
    dist = tmp_path / "dist"
    dist.mkdir(exist_ok=True)
    (dist / ZIP).write_bytes(data)
    _artifacts, findings = scan_zip_folder(dist, display="dist", verify=verify)
    assert all(f.file == f"dist/{ZIP}" for f in findings if f.severity is Severity.ERROR)
    return [(f.code, f.subject) for f in findings if f.severity is Severity.ERROR]


def test_the_real_shape_is_accepted(tmp_path, real):
    assert refused(tmp_path, build(real)) == []
    assert refused(tmp_path, build(real), verify=True) == []


def test_a_second_valid_xcframework_in_the_zip(tmp_path, real):
    other = tmp_path / "extra.zip"
    write_real_zip(other, "extra")
    assert ("zip-layout", "extra.xcframework/Info.plist") in refused(
        tmp_path, build([*members_of(other), *real]))


def test_an_info_plist_at_the_root(tmp_path, real):
    plist = Member("Info.plist", xcframework_plist(NAME, ()))
    assert refused(tmp_path, build([plist, *real])) == [("zip-layout", "Info.plist")]


def test_any_other_file_or_folder_at_the_root(tmp_path, real):
    assert refused(tmp_path, build([*real, Member("README.txt", b"hi")])) == [
        ("zip-layout", "README.txt")]
    assert refused(tmp_path, build([*real, Member("__MACOSX/", b"")])) == [
        ("zip-layout", "__MACOSX/")]


def _extra(kind: int, body: bytes) -> bytes:
    return struct.pack("<2H", kind, len(body)) + body


@pytest.mark.parametrize("kind", [0x7075, 0x6375, 0x1234])
def test_an_extra_field_zip_tools_do_not_write(tmp_path, real, kind):
    # 0x7075: version 1, the CRC of the stored name, then the name unzip uses instead.
    unicode_path = _extra(kind, b"\x01" + struct.pack("<L", zlib.crc32(BINARY.encode()))
                          + f"{ROOT}/Info.plist".encode())
    assert refused(tmp_path, build(changed(real, BINARY, extra=unicode_path))) == [
        ("zip-layout", BINARY)]


def test_the_extra_fields_ditto_and_zip_write_are_accepted(tmp_path, real):
    timestamps = _extra(0x5455, b"\x03" + bytes(8)) + _extra(0x7875, b"\x01\x04" + bytes(4)
                                                            + b"\x04" + bytes(4))
    assert refused(tmp_path, build(changed(real, BINARY, extra=timestamps))) == []


@pytest.mark.parametrize("name", [f"./{BINARY}", f"{ROOT}//x", f"{ROOT}/./x", f"{ROOT}/a\\b",
                                  f"{ROOT}/a\x01b", f"{ROOT}/x/../y", f"/{BINARY}"])
def test_names_not_in_canonical_form(tmp_path, real, name):
    found = refused(tmp_path, build([*real, Member(name, b"x")]))
    assert ("zip-layout", name) in found, found


def test_a_non_ascii_name_without_the_utf8_flag(tmp_path, real):
    data = bytearray(build([*real, Member(f"{ROOT}/caf\u00e9", b"x")]))
    for signature, flags_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # clear bit 11
        at = data.rfind(signature)
        data[at + flags_at:at + flags_at + 2] = b"\x00\x00"
    assert ("zip-layout", f"{ROOT}/caf\u251c\u2310") in refused(tmp_path, bytes(data))


@pytest.mark.parametrize("moved", [False, True])
def test_bytes_before_the_first_local_header(tmp_path, real, moved):
    prefix = b"#!/bin/sh\nexit 0\n"
    data = moved_past(prefix, build(real)) if moved else prefix + build(real)
    assert refused(tmp_path, data) == [("zip-layout", NAME)]


def test_bytes_between_the_directory_and_the_end_record(tmp_path, real):
    data = build(real)
    end = data.rfind(b"PK\x05\x06")
    assert refused(tmp_path, data[:end] + b"junk" + data[end:]) == [("zip-layout", NAME)]


def test_a_zip_comment_or_bytes_after_the_end_record(tmp_path, real):
    data = build(real)
    commented = data[:-2] + struct.pack("<H", 4) + b"note"
    assert refused(tmp_path, commented) == [("zip-layout", NAME)]
    assert refused(tmp_path, data + b"junk") == [("zip-layout", NAME)]


def test_a_lying_crc_is_refused_when_the_data_is_verified(tmp_path, real):
    binary = next(m for m in real if m.name == BINARY)
    lying = build(changed(real, BINARY, crc=zlib.crc32(binary.data) ^ 1))
    assert refused(tmp_path, lying) == []  # check's default reads only the metadata
    assert refused(tmp_path, lying, verify=True) == [("zip-layout", BINARY)]
