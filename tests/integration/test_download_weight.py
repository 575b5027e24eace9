"""Download weight against a real published branch and a loopback host (issue 35): a release
whose zips doubled in size, checked with --verify-urls and a growth limit, from a clone whose
origin holds the previous version's branch; and the attestation subjects it writes."""

import hashlib
import json
import re
import subprocess

import pytest

from support.markdown import rendered_text
from support.published import BranchSpec, build_repo
from support.release import (
    BINARY_ONLY_KEYS,
    PRODUCT_KEYS,
    all_names,
    write_real_zip,
    write_release,
)
from support.zip_server import Route, serve_zips
from swiftpm_guard.cli.main import main

#: Each slice's binary, before and after: the release's zips about double.
BEFORE, AFTER = 40_000, 80_000


@pytest.fixture
def server():
    with serve_zips() as running:
        yield running


def _published(tmp_path, server):
    """swiftpm-1.2.2 on a bare origin, its zips served at /frameworks/; a clone of it."""
    folder = tmp_path / "zips-1.2.2"
    folder.mkdir()
    checksums = {}
    for name in all_names([*PRODUCT_KEYS, *BINARY_ONLY_KEYS]):
        path = folder / f"{name}-1.2.2.zip"
        checksums[name] = write_real_zip(path, name, payload_size=BEFORE)
        server.routes[f"/frameworks/{path.name}"] = Route(path.read_bytes())
    origin = build_repo(tmp_path / "origin.git", [BranchSpec("1.2.2", checksums=checksums)])
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(origin), str(clone)], check=True,
                   capture_output=True, timeout=60)
    return sum(p.stat().st_size for p in folder.iterdir())


def _release(tmp_path, server):
    """1.2.3 with every zip rebuilt twice as heavy, served beside the previous one's."""
    release = write_release(tmp_path / "release", real_zips=True)
    for path in sorted(release.artifacts.iterdir()):
        write_real_zip(path, path.name.split("-", 1)[0], payload_size=AFTER)
        server.routes[f"/frameworks/{path.name}"] = Route(path.read_bytes())
    return release


def test_a_release_whose_download_doubled_is_refused_past_the_limit(server, tmp_path,
                                                                    monkeypatch, capsys):
    before = _published(tmp_path, server)
    release = _release(tmp_path, server)
    after = sum(p.stat().st_size for p in release.artifacts.iterdir())
    assert 1.9 < after / before < 2.1  # the fixture is what the test says
    monkeypatch.chdir(tmp_path / "clone")
    out = {name: tmp_path / name for name in ("r.json", "r.md", "subjects.txt")}
    args = ["check", "--template", str(release.template), "--version", release.version,
            "--artifacts", str(release.artifacts), "--verify-urls",
            "--base-url", server.url("frameworks/"), "--url-timeout", "5",
            "--swift", "off", "--accept-static", "--config", "none",
            "--json", str(out["r.json"]), "--markdown", str(out["r.md"]),
            "--attestation-subjects", str(out["subjects.txt"])]
    assert main([*args, "--download-growth-limit", "50%"]) == 1
    printed = capsys.readouterr().out
    document = json.loads(out["r.json"].read_text())
    change = after - before
    assert document["download"] == {
        "bytes": after, "zips": 20, "measured": "served", "unsized": [],
        "previous_version": "1.2.2", "previous_bytes": before, "previous_note": None,
        "change": change, "limit": "50%"}
    (growth,) = [f for f in document["findings"] if f["code"] == "download-growth"]
    assert growth["severity"] == "error" and growth["subject"] == "1.2.3"
    percent = f"+{change * 100 / before:.0f}%"
    assert growth["message"].startswith(
        f"a consumer of 1.2.3 downloads {after / 1e6:.1f} MB, {change / 1e6:.1f} MB more than "
        f"1.2.2 ({before / 1e6:.1f} MB, {percent}): past the limit of 50% ")
    said = (f"a consumer downloads {after / 1e6:.1f} MB (20 zips, served); 1.2.2: "
            f"{before / 1e6:.1f} MB, change +{change / 1e6:.1f} MB ({percent}); growth limit 50%")
    assert said in printed
    assert f"Download weight: {said}." in rendered_text(out["r.md"].read_text())
    # Every zip of both versions was asked once: 20 now in full, 20 before only sized (one
    # byte of each sent: `Range: bytes=0-0`).
    assert sorted(server.hits) == sorted(server.routes)
    assert set(server.hits.values()) == {1}
    assert {path: sent for path, sent in server.sent.items() if "-1.2.2." in path} == {
        path: 1 for path in server.routes if "-1.2.2." in path}
    assert sum(server.sent.values()) == after + 20
    # Within the limit the same release passes, and the report still states the change.
    assert main([*args, "--download-growth-limit", "150%"]) == 0
    assert json.loads(out["r.json"].read_text())["download"]["change"] == change
    capsys.readouterr()
    # The subjects file: one shasum line per built zip, then the manifest, digests real.
    lines = out["subjects.txt"].read_text().splitlines()
    assert len(lines) == 21
    parsed = [re.fullmatch(r"([0-9a-f]{64})  (\S+)", line) for line in lines]
    assert all(parsed)
    names = [m[2] for m in parsed]
    assert names[:20] == sorted(p.name for p in release.artifacts.iterdir())
    assert names[20] == "Package.swift"
    for match in parsed[:20]:
        digest = hashlib.sha256((release.artifacts / match[2]).read_bytes()).hexdigest()
        assert match[1] == digest == release_checksum(document, match[2])


def release_checksum(document, file_name):
    return document["checksums"][file_name.split("-", 1)[0]]


def test_without_verify_urls_the_weight_is_the_built_zips_and_a_limit_says_why(
        server, tmp_path, monkeypatch, capsys):
    release = _release(tmp_path, server)
    report = tmp_path / "r.json"
    assert main(["check", "--template", str(release.template), "--version", release.version,
                 "--artifacts", str(release.artifacts), "--swift", "off", "--accept-static",
                 "--config", "none", "--download-growth-limit", "10%",
                 "--json", str(report)]) == 0
    capsys.readouterr()
    download = json.loads(report.read_text())["download"]
    assert download["bytes"] == sum(p.stat().st_size for p in release.artifacts.iterdir())
    assert (download["measured"], download["previous_version"], download["change"]) == (
        "built zips", None, None)
    assert download["previous_note"] == ("the previous version's served sizes are fetched "
                                         "with --verify-urls")
    assert not server.hits  # nothing fetched without --verify-urls


def test_a_previous_zip_served_without_a_size_is_unsized_not_downloaded(server, tmp_path,
                                                                        monkeypatch, capsys):
    _published(tmp_path, server)
    release = _release(tmp_path, server)
    old = sorted(path for path in server.routes if "-1.2.2." in path)
    server.routes[old[0]].sized = False  # no Content-Length, no total in a Content-Range
    server.routes[old[0]].ranges = False
    monkeypatch.chdir(tmp_path / "clone")
    report = tmp_path / "r.json"
    assert main(["check", "--template", str(release.template), "--version", release.version,
                 "--artifacts", str(release.artifacts), "--verify-urls",
                 "--base-url", server.url("frameworks/"), "--url-timeout", "5",
                 "--swift", "off", "--accept-static", "--config", "none",
                 "--download-growth-limit", "50%", "--json", str(report)]) == 0
    capsys.readouterr()
    document = json.loads(report.read_text())
    download = document["download"]
    assert (download["previous_version"], download["previous_bytes"], download["change"]) == (
        "1.2.2", None, None)
    assert download["previous_note"] == ("1 of its 20 zip URLs are unsized (unsized: HTTP 200 "
                                         "without a size in its Content-Length)")
    (notice,) = [f for f in document["findings"] if f["code"] == "download-growth"]
    assert notice["severity"] == "notice"
    assert notice["message"].endswith(download["previous_note"])
    # The other 19 were sized with one byte each; the unsized one was asked once, not retried.
    assert all(server.sent[path] == 1 for path in old[1:])
    assert server.hits[old[0]] == 1
