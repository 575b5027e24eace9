"""A downloaded run artifact is untrusted: its entry names and sizes decide nothing unsafe."""

from __future__ import annotations

import zipfile

import pytest

from swiftpm_guard.errors import InputError
from swiftpm_guard.sources.actions_api import extract_zips


def _archive(path, entries):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return path


def test_only_base_names_are_used_so_nothing_lands_outside(tmp_path):
    archive = _archive(
        tmp_path / "a.zip",
        [
            ("../../escape-1.0.zip", b"x"),
            ("/abs/olute-1.0.zip", b"y"),
            ("dir\\win-1.0.zip", b"z"),
            ("checksums.txt", b"ignored"),
            ("nested/", b""),
        ],
    )
    out = extract_zips(archive, tmp_path / "out", display="frameworks@run-1")
    assert sorted(p.name for p in out.iterdir()) == [
        "escape-1.0.zip",
        "olute-1.0.zip",
        "win-1.0.zip",
    ]
    assert not (tmp_path.parent / "escape-1.0.zip").exists()


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ([("a/x-1.0.zip", b"1"), ("b/x-1.0.zip", b"2")], "two entries are named 'x-1.0.zip'"),
        ([("bad name-1.0.zip", b"1")], "is not <name>-<version>.zip"),
        ([("x-1.0.zip\n.zip", b"1")], "is not <name>-<version>.zip"),
        ([("notes.txt", b"1")], "holds no <name>-<version>.zip files"),
    ],
)
def test_bad_archives_are_named_errors(tmp_path, entries, message):
    archive = _archive(tmp_path / "a.zip", entries)
    with pytest.raises(InputError, match=message) as raised:
        extract_zips(archive, tmp_path / "out", display="frameworks@run-1")
    assert str(raised.value).startswith("frameworks@run-1: ")


def test_the_size_cap_counts_bytes_written_not_bytes_claimed(tmp_path):
    archive = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as out:
        out.writestr("big-1.0.zip", b"\0" * 5_000_000)  # compresses to a few kilobytes
    assert archive.stat().st_size < 100_000
    with pytest.raises(InputError, match="unpacks to more than 1000000 bytes"):
        extract_zips(archive, tmp_path / "out", display="a", max_bytes=1_000_000)


def test_not_a_zip(tmp_path):
    path = tmp_path / "a.zip"
    path.write_bytes(b"<html>expired</html>")
    with pytest.raises(InputError, match="not a readable zip"):
        extract_zips(path, tmp_path / "out", display="a")


def test_a_run_artifact_with_a_huge_directory_is_refused_before_zipfile_lists_it(tmp_path):
    # The end record claims 2 entries; zipfile reads a directory capped at 1 KiB an entry.
    from support.zips import many_entries_zip
    from swiftpm_guard.sources.actions_api import ENTRIES_MAX

    archive = tmp_path / "huge.zip"
    many_entries_zip(archive, "x", ENTRIES_MAX + 1, claimed=2)
    with pytest.raises(InputError, match=f"refusing more than {ENTRIES_MAX}"):
        extract_zips(archive, tmp_path / "out", display="a")


def test_a_run_artifact_with_zeroed_local_headers_is_refused(tmp_path):
    from support.zips import zero_local_headers

    archive = _archive(tmp_path / "a.zip", [("x-1.0.zip", b"1")])
    zero_local_headers(archive)
    with pytest.raises(InputError, match="not a readable zip"):
        extract_zips(archive, tmp_path / "out", display="a")
