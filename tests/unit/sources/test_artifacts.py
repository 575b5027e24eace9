import hashlib
import os
import signal
import time
import zipfile
from pathlib import Path

import pytest

from support.release import write_zip
from swiftpm_guard.errors import InputError
from swiftpm_guard.sources.artifacts import (
    expand_declared,
    parse_checksums,
    parse_name_list,
    read_declared,
    scan_artifact_dir,
    sha256_file,
)

HEX = "0123456789abcdef" * 4


def test_checksums_both_shapes_comments_and_blank_lines():
    text = f"# built by CI\n\nexecutorch {HEX}\n{HEX}  backend_coreml-1.2.3.zip\n{HEX} *x_debug-1.2.3.zip\n"
    artifacts = parse_checksums(text, file="checksums.txt")
    assert [(a.name, a.origin.line, a.version) for a in artifacts] == [
        ("executorch", 3, None), ("backend_coreml", 4, "1.2.3"), ("x_debug", 5, "1.2.3"),
    ]


def test_checksum_value_of_wrong_shape_is_kept_for_the_checks():
    (artifact,) = parse_checksums(f"executorch {HEX.upper()}\n", file="c")
    assert artifact.sha256 == HEX.upper()


@pytest.mark.parametrize("line", [
    "executorch", f"executorch {HEX} extra", f"back-end {HEX}", f"{HEX}  ../x-1.0.0.zip",
    f"{HEX}  x.zip", "a b c d",
])
def test_other_line_shapes_name_file_and_line(line):
    with pytest.raises(InputError) as caught:
        parse_checksums(f"# ok\n{line}\n", file="sums.txt")
    assert str(caught.value).startswith("sums.txt:2: ")


def test_declared_names_expand_to_debug_twins():
    names = parse_name_list("executorch, backend_coreml # comment\nkernels_llm\n", file="f")
    artifacts = expand_declared(names, "_debug")
    assert [a.name for a in artifacts] == [
        "executorch", "executorch_debug", "backend_coreml", "backend_coreml_debug",
        "kernels_llm", "kernels_llm_debug",
    ]
    assert all(a.sha256 is None for a in artifacts)
    assert [a.origin.line for a in artifacts][-1] == 2


def test_declared_list_rejects_bad_names_and_empty_lists(tmp_path):
    with pytest.raises(InputError, match="'a-b'"):
        read_declared("ok,a-b")
    empty = tmp_path / "list.txt"
    empty.write_text("# nothing\n")
    with pytest.raises(InputError, match="no framework names"):
        read_declared(f"@{empty}")


def test_streaming_hash_equals_hashlib(tmp_path):
    path = tmp_path / "big.bin"
    path.write_bytes(bytes(range(256)) * 20000 + b"tail")
    assert sha256_file(path) == hashlib.sha256(path.read_bytes()).hexdigest()


def test_folder_scan_hashes_in_parallel_and_checks_layout(tmp_path):
    names = ["executorch", "executorch_debug", "backend_coreml"]
    expected = {n: write_zip(tmp_path / f"{n}-1.0.0.zip", n) for n in names}
    (tmp_path / "notes.txt").write_text("ignored")
    artifacts, findings = scan_artifact_dir(tmp_path, display="out", workers=3)
    assert {a.name: a.sha256 for a in artifacts} == expected
    assert {a.origin.file for a in artifacts} == {f"out/{n}-1.0.0.zip" for n in names}
    assert {f.code for f in findings} == {"zip-signature"}  # notices only


def _zip(path, entries):
    with zipfile.ZipFile(path, "w") as archive:
        for entry in entries:
            archive.writestr(entry, b"x")


def test_layout_problems_are_findings(tmp_path):
    _zip(tmp_path / "a-1.0.0.zip", ["b.xcframework/Info.plist"])
    _zip(tmp_path / "c-1.0.0.zip", ["c.xcframework/Info.plist", "__MACOSX/._c"])
    _zip(tmp_path / "d-1.0.0.zip", ["d.xcframework/Info.plist", "../evil"])
    (tmp_path / "e-1.0.0.zip").write_bytes(b"PK\x03\x04 truncated")
    (tmp_path / "nodash.zip").write_bytes(b"")
    artifacts, findings = scan_artifact_dir(tmp_path)
    assert sorted(a.name for a in artifacts) == ["a", "c", "d", "e"]
    layout = {(f.file.rsplit("/", 1)[-1], f.subject): f.message for f in findings
              if f.code == "zip-layout"}
    assert set(layout) == {("a-1.0.0.zip", "a.xcframework/"),
                           ("a-1.0.0.zip", "b.xcframework/Info.plist"),
                           ("c-1.0.0.zip", "__MACOSX/._c"), ("d-1.0.0.zip", "../evil"),
                           ("e-1.0.0.zip", "e"), ("nodash.zip", "nodash.zip")}
    assert "no a.xcframework/" in layout["a-1.0.0.zip", "a.xcframework/"]
    assert "beside c.xcframework/" in layout["c-1.0.0.zip", "__MACOSX/._c"]
    assert "not canonical" in layout["d-1.0.0.zip", "../evil"]
    assert "not a zip in the shape" in layout["e-1.0.0.zip", "e"]
    assert "not <name>-<version>.zip" in layout["nodash.zip", "nodash.zip"]


def test_symlink_leaving_the_folder_is_refused(tmp_path):
    outside = tmp_path / "outside-1.0.0.zip"
    write_zip(outside, "outside")
    folder = tmp_path / "artifacts"
    folder.mkdir()
    (folder / "outside-1.0.0.zip").symlink_to(outside)
    with pytest.raises(InputError, match="outside the artifact folder"):
        scan_artifact_dir(folder)


def test_missing_or_empty_folder_is_bad_input(tmp_path):
    with pytest.raises(InputError, match="not found"):
        scan_artifact_dir(tmp_path / "nope")
    with pytest.raises(InputError, match=r"no \*\.zip"):
        scan_artifact_dir(tmp_path)


def test_hashing_stops_at_its_deadline_naming_the_zip(tmp_path: Path) -> None:
    from swiftpm_guard.sources import artifacts

    zip_file = tmp_path / "kernels-1.0.zip"
    zip_file.write_bytes(b"PK\x03\x04" + b"\0" * (3 << 20))
    with zip_file.open("rb") as stream, pytest.raises(InputError) as raised:
        artifacts._sha256_stream(stream, "out/kernels-1.0.zip", time.monotonic() - 1)
    assert str(raised.value).startswith("out/kernels-1.0.zip: hashing the zips took longer")
    with zip_file.open("rb") as stream:  # within its deadline: the digest
        digest = artifacts._sha256_stream(stream, "out/kernels-1.0.zip", time.monotonic() + 60)
    assert digest == hashlib.sha256(zip_file.read_bytes()).hexdigest()


def _crash(_fd: int, _full: object) -> None:
    os.kill(os.getpid(), signal.SIGSEGV)


def test_a_zip_whose_reading_crashes_its_child_is_still_hashed_and_judged_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from swiftpm_guard.sources import zip_archive

    expected = {n: write_zip(tmp_path / f"{n}-1.0.0.zip", n) for n in ("a", "b", "c")}
    monkeypatch.setattr(zip_archive, "contents_or_problem", _crash)  # the child's reading
    artifacts, findings = scan_artifact_dir(tmp_path, display="out", workers=2)
    assert {a.name: a.sha256 for a in artifacts} == expected
    assert sorted((f.code, f.file, f.subject) for f in findings) == [
        ("zip-layout", f"out/{n}-1.0.0.zip", n) for n in ("a", "b", "c")]
    assert all(f.message.endswith("reading it crashed (SIGSEGV)") for f in findings)


def test_hashing_past_its_deadline_in_the_child_is_the_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from swiftpm_guard.sources import artifacts

    for name in ("a", "b"):
        write_zip(tmp_path / f"{name}-1.0.0.zip", name)
    monkeypatch.setattr(artifacts, "HASH_SECONDS", -1.0)
    with pytest.raises(InputError) as raised:
        scan_artifact_dir(tmp_path, display="out")
    assert str(raised.value).startswith("out/a-1.0.0.zip: hashing the zips took longer than")
