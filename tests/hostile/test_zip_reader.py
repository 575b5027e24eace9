"""A zip SwiftPM cannot extract is not a built framework (issues 13, 31).

zipfile reads the directory; the guard checks what zipfile does not (each local header
against its central entry, nothing before, between or after the records) and refuses the
rest. The zips are real: made by zipfile (stored, deflated, data descriptors, zip64) and by
Info-ZIP's `zip`, then broken the ways an extractor notices and a listing does not.
"""

from __future__ import annotations

import io
import os
import random
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support.release import write_zip
from support.zips import (
    central_directory_only,
    many_entries_zip,
    patch_local,
    zero_local_headers,
)
from swiftpm_guard.errors import ZipProblem
from swiftpm_guard.limits import ZIP_MAX_ENTRIES
from swiftpm_guard.sources.artifacts import scan_artifact_dir
from swiftpm_guard.sources.zip_archive import directory, read_zip_contents


def names_of(path: Path) -> list[str]:
    contents = read_zip_contents(path)
    assert contents.damaged == (), contents.damaged
    return [e.name for e in contents.entries]


def problem(path: Path) -> str:
    """Why the whole file is refused, or why its entries are."""
    try:
        contents = read_zip_contents(path)
    except ZipProblem as error:
        return str(error)
    assert contents.damaged, "accepted"
    return "; ".join(d.why for d in contents.damaged)


def capped(path: Path, max_entries: int) -> str:
    fd = os.open(path, os.O_RDONLY)
    try:
        with pytest.raises(ZipProblem) as caught:
            directory(fd, max_entries=max_entries)
    finally:
        os.close(fd)
    return str(caught.value)


def layout_messages(folder: Path) -> list[str]:
    _artifacts, findings = scan_artifact_dir(folder)
    assert {f.code for f in findings} <= {"zip-layout", "zip-plist", "zip-signature"}
    return [f.message for f in findings if f.code == "zip-layout"]


@pytest.fixture
def good(tmp_path):
    path = tmp_path / "a-1.0.0.zip"
    write_zip(path, "a")
    return path


def test_real_zips_read_the_same_as_zipfile(tmp_path, good):
    assert names_of(good) == zipfile.ZipFile(good).namelist()
    deflated = tmp_path / "d.zip"
    with zipfile.ZipFile(deflated, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a.xcframework/x", b"x" * 5000)
        with archive.open("a.xcframework/big", "w", force_zip64=True) as stream:
            stream.write(b"y" * 1000)
        archive.writestr("a.xcframework/ünïcode", b"z")
    assert names_of(deflated) == zipfile.ZipFile(deflated).namelist()


def test_data_descriptor_zips_pass(tmp_path):
    class Unseekable(io.RawIOBase):
        def __init__(self):
            self.data = bytearray()

        def writable(self):
            return True

        def write(self, b):
            self.data += b
            return len(b)

    sink = Unseekable()
    with zipfile.ZipFile(sink, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a.xcframework/Info.plist", b"<plist/>" * 100)
    path = tmp_path / "dd.zip"
    path.write_bytes(bytes(sink.data))
    assert zipfile.ZipFile(path).infolist()[0].flag_bits & 0x08
    assert names_of(path) == ["a.xcframework/Info.plist"]


@pytest.mark.skipif(shutil.which("zip") is None, reason="Info-ZIP zip is not installed")
def test_info_zip_archives_pass(tmp_path):
    tree = tmp_path / "tree" / "a.xcframework" / "ios-arm64"
    tree.mkdir(parents=True)
    (tree / "liba.a").write_bytes(os.urandom(20000))
    (tree.parent / "Info.plist").write_text("<plist/>")
    out = tmp_path / "a-1.0.0.zip"
    subprocess.run(["zip", "-qrX", str(out), "a.xcframework"], cwd=tmp_path / "tree",
                   check=True, timeout=60)
    assert names_of(out) == zipfile.ZipFile(out).namelist()
    # and streamed from stdin (data descriptors on every entry)
    piped = tmp_path / "piped.zip"
    with piped.open("wb") as stream:
        subprocess.run(["zip", "-qrX", "-", "a.xcframework"], cwd=tmp_path / "tree",
                       stdout=stream, check=True, timeout=60)
    assert names_of(piped) == zipfile.ZipFile(piped).namelist()


def test_zeroed_local_headers_are_not_a_framework(good):
    zipfile.ZipFile(good).namelist()  # the listing alone still reads
    zero_local_headers(good)
    assert "no local header where the central directory says" in problem(good)
    assert layout_messages(good.parent)


def test_central_directory_only_is_not_a_framework(good):
    central_directory_only(good)
    assert zipfile.ZipFile(good).namelist()  # zipfile lists it happily
    assert "no local header where the central directory says" in problem(good)
    assert layout_messages(good.parent)


@pytest.mark.parametrize(("fields", "message"), [
    ({"name": b"b"}, "its local header names another file"),
    ({"method": 8}, "flags or method differ"),
    ({"crc": 1}, "CRC or sizes differ"),
    ({"size": 7}, "CRC or sizes differ"),
    ({"compressed": 10**6}, "CRC or sizes differ"),
])
def test_local_header_disagreeing_with_the_directory(good, fields, message):
    if "name" in fields:  # same length as the first entry's name
        fields = {"name": b"b" * len("a.xcframework/")}
    patch_local(good, 1 if "name" not in fields else 0, **fields)
    assert message in problem(good)


def test_data_running_into_the_directory(tmp_path):
    path = tmp_path / "a.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.xcframework/x", b"x" * 100)
    data = bytearray(path.read_bytes())
    # grow both sizes in the local header and the directory: consistent, but past the data
    info = zipfile.ZipFile(path).infolist()[0]
    patch_local(path, 0, compressed=5000, size=5000)
    data = bytearray(path.read_bytes())
    cd = data.rfind(b"PK\x01\x02")
    data[cd + 20:cd + 28] = (5000).to_bytes(4, "little") * 2
    path.write_bytes(bytes(data))
    assert info.file_size == 100
    assert "overlaps the next entry or the central directory" in problem(path)


def test_end_record_count_must_match_the_directory(tmp_path):
    path = tmp_path / "a.zip"
    many_entries_zip(path, "a", 10, claimed=3)
    assert "the end record says 3 entries, the central directory holds 10" in problem(path)


def test_entry_cap_from_the_end_record_costs_nothing(tmp_path):
    path = tmp_path / "a.zip"
    many_entries_zip(path, "a", 70000, local=False)
    assert "70000 entries, more than the 1000" in capped(path, 1000)


def test_entry_cap_holds_when_the_end_record_lies(tmp_path):
    path = tmp_path / "a.zip"
    many_entries_zip(path, "a", 3000, claimed=5)
    assert "the end record says 5 entries, the central directory holds 3000" in problem(path)


def test_the_default_cap_is_enforced(tmp_path):
    path = tmp_path / "a-1.0.0.zip"
    many_entries_zip(path, "a", ZIP_MAX_ENTRIES + 1, local=False)
    messages = layout_messages(tmp_path)
    assert any(f"more than the {ZIP_MAX_ENTRIES}" in m for m in messages), messages


def test_many_valid_entries_pass_under_the_cap(tmp_path):
    path = tmp_path / "a-1.0.0.zip"
    many_entries_zip(path, "a", 70000)  # zip64 end records, 70,000 local headers
    assert layout_messages(tmp_path) == []
    assert len(read_zip_contents(path).entries) == 70000


def test_layout_rules_on_the_new_reader(tmp_path):
    folder = tmp_path / "art"
    folder.mkdir()
    with zipfile.ZipFile(folder / "a-1.0.0.zip", "w") as archive:
        archive.writestr("a.xcframework/Info.plist", b"x")
        archive.writestr("__MACOSX/a.xcframework/._Info.plist", b"x")
    with zipfile.ZipFile(folder / "b-1.0.0.zip", "w") as archive:
        archive.writestr("build/b.xcframework/Info.plist", b"x")
    messages = sorted(layout_messages(folder))
    assert len(messages) == 3
    assert "__MACOSX/a.xcframework/._Info.plist is beside a.xcframework/" in messages[0]
    assert "build/b.xcframework/Info.plist is beside b.xcframework/" in messages[1]
    assert "no b.xcframework/ at the zip's root" in messages[2]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), flips=st.integers(1, 8))
def test_corrupted_zips_give_a_problem_or_entries_never_a_crash(tmp_path_factory, seed, flips):
    path = tmp_path_factory.mktemp("z") / "a.zip"
    write_zip(path, "a")
    data = bytearray(path.read_bytes())
    rng = random.Random(seed)
    for _ in range(flips):
        data[rng.randrange(len(data))] = rng.randrange(256)
    path.write_bytes(bytes(data))
    try:
        contents = read_zip_contents(path)
    except ZipProblem as error:
        assert "\n" not in str(error)
    else:
        assert all("\n" not in d.why for d in contents.damaged)
