"""Run every case of the hostile-input corpus (tests/hostile/corpus/*.yml) through the CLI.

A case names its inputs (inline `files`, generated `make` entries, on top of an optional small
release in the real shape), the argv, the exit code, and what must be said: for exit 2 a
substring of the one stderr line; for exit 1 the finding codes in the JSON report; `strict` runs
without --accept-static. Always:
no traceback, and on exit 2 nothing written; on exit 1 no manifest written.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from support.release import write_release, write_zip
from support.zips import central_directory_only, many_entries_zip, zero_local_headers
from swiftpm_guard.cli.main import main

CORPUS = Path(__file__).parent / "corpus"
BASE_PRODUCTS = ("executorch", "backend_coreml")
BASE_BINARY = ("threadpool",)


def load_cases() -> list[Any]:
    cases = []
    for path in sorted(CORPUS.glob("*.yml")):
        for case in yaml.safe_load(path.read_text()):
            cases.append(pytest.param(case, id=f"{path.stem}:{case['id']}"))
    return cases


def _make(root: Path, spec: dict[str, Any]) -> None:
    path = root / spec["path"]
    path.parent.mkdir(parents=True, exist_ok=True)
    kind = spec["kind"]
    if kind == "zip":
        write_zip(path, spec["name"])
    elif kind == "zip-entries":
        with zipfile.ZipFile(path, "w") as archive:
            for entry in spec["entries"]:
                archive.writestr(entry, b"x")
    elif kind == "zip-bomb":
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            entry = spec.get("entry", "bomb.bin")
            info = zipfile.ZipInfo(f"{spec['name']}.xcframework/{entry}")
            info.compress_type = zipfile.ZIP_DEFLATED
            with archive.open(info, "w", force_zip64=True) as stream:
                block = bytes(1 << 20)
                for _ in range(spec["megabytes"]):
                    stream.write(block)
    elif kind == "bytes":
        path.write_bytes(bytes.fromhex(spec["hex"]))
    elif kind == "truncate":
        data = path.read_bytes()
        path.write_bytes(data[: spec["keep"]])
    elif kind == "repeat":
        path.write_bytes(spec["text"].encode() * spec["times"])
    elif kind == "edit":
        # Change the generated file in place: every `old` becomes `new` (it must occur).
        text = path.read_text()
        assert spec["old"] in text, (spec["path"], spec["old"])
        path.write_text(text.replace(spec["old"], spec["new"]))
    elif kind == "zip-zero-locals":
        zero_local_headers(path)
    elif kind == "zip-central-only":
        central_directory_only(path)
    elif kind == "zip-many":
        many_entries_zip(path, spec["name"], spec["count"], claimed=spec.get("claimed"))
    elif kind == "symlink":
        path.symlink_to(spec["to"])
    elif kind == "dir":
        path.mkdir(exist_ok=True)
    elif kind == "delete":
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
    else:
        raise AssertionError(f"unknown make kind {kind}")


def prepare(root: Path, case: dict[str, Any]) -> None:
    if case.get("base", True):
        write_release(root, "1.2.3", BASE_PRODUCTS, BASE_BINARY)
    for name, text in (case.get("files") or {}).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
    for spec in case.get("make") or []:
        _make(root, spec)


def snapshot(root: Path) -> dict[str, float]:
    return {str(p): p.stat().st_mtime_ns for p in root.rglob("*") if not p.is_symlink()}


@pytest.mark.parametrize("case", load_cases())
def test_corpus_case(case, tmp_path, monkeypatch, capsys):
    root = tmp_path / "case"
    root.mkdir()
    prepare(root, case)
    monkeypatch.chdir(root)
    out = tmp_path / "out"
    out.mkdir()
    argv = [str(a) for a in case["argv"]]
    argv += ["--json", str(out / "report.json")]
    if argv[0] in ("check", "render") and not case.get("strict"):
        # The corpus is about hostile input, not SwiftPM: a static reading is accepted unless
        # the case is `strict` (then needs-swiftpm is the error it expects).
        argv.append("--accept-static")
    if argv[0] == "render":
        argv += ["--output", str(out / "Package.swift")]
    before = snapshot(root)
    code = main(argv)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    assert code == case["exit"], captured.err
    assert snapshot(root) == before, "inputs were modified"
    if code == 2:
        assert captured.err.count("\n") == 1, captured.err
        assert case["stderr"] in captured.err
        assert list(out.iterdir()) == []
    if code == 1:
        report = json.loads((out / "report.json").read_text())
        codes = {f["code"] for f in report["findings"] if f["severity"] == "error"}
        assert set(case["findings"]) <= codes, codes
        assert not (out / "Package.swift").exists()
    if code == 0 and "output" in case:
        data = (out / "Package.swift").read_bytes()
        expect = case["output"]
        if "endswith" in expect:
            assert data.endswith(expect["endswith"].encode())
        for needle in expect.get("contains", []):
            assert needle.encode() in data
        for needle in expect.get("absent", []):
            assert needle.encode() not in data


def test_corpus_is_large_enough():
    assert len(load_cases()) >= 60
