"""`swiftpm-guard check --resolve`: the CLI runs the real SwiftPM's resolve after a passing
check and says, target by target, what SwiftPM said (console, exit code, JSON)."""

from __future__ import annotations

import json

import pytest

from support.hosted_release import FIXTURE_BASE, serve_release
from support.release import write_release
from swiftpm_guard.cli.main import main

pytestmark = pytest.mark.slow


def _release(tmp_path, https):
    release = write_release(tmp_path / "release", products=("executorch",),
                            binary_only=("threadpool",), real_zips=True)
    text = release.template.read_text().replace(FIXTURE_BASE, https.url("frameworks/"))
    release.template.write_text(text)
    return release


def _argv(release, swift_net, test_ca, tmp_path, *extra):
    return ["check", "--template", str(release.template), "--version", release.version,
            "--checksums", str(release.checksums), "--swift", "off", "--accept-static",
            "--resolve",
            "--resolve-swift", swift_net, "--resolve-ca-file", str(test_ca.ca_pem),
            "--resolve-cache", str(tmp_path / "cache"), "--json", str(tmp_path / "r.json"),
            *extra]


def test_check_resolve_passes_and_records_swiftpms_word(tmp_path, https, swift_net, test_ca,
                                                        capsys):
    release = _release(tmp_path, https)
    serve_release(https, release)
    assert main(_argv(release, swift_net, test_ca, tmp_path)) == 0
    document = json.loads((tmp_path / "r.json").read_text())
    (manifest,) = document["resolve"]["manifests"]
    assert manifest["ok"] is True
    assert sorted(t["name"] for t in manifest["targets"]) == sorted(release.checksum_of)
    assert sum(f["code"] == "resolved" for f in document["findings"]) == len(
        release.checksum_of)
    assert "resolve: " in capsys.readouterr().err


def test_check_resolve_fails_when_swiftpm_rejects_a_zip(tmp_path, https, swift_net, test_ca):
    release = _release(tmp_path, https)
    serve_release(https, release)
    broken = next(iter(sorted(release.checksum_of)))
    del https.routes[f"/frameworks/{broken}-{release.version}.zip"]  # the host answers 404
    assert main(_argv(release, swift_net, test_ca, tmp_path)) == 1
    document = json.loads((tmp_path / "r.json").read_text())
    failed = [f for f in document["findings"] if f["code"] == "resolve-failed"]
    assert [f["subject"] for f in failed] == [broken]


def test_resolve_without_a_swift_is_bad_usage(tmp_path, capsys, monkeypatch):
    release = write_release(tmp_path / "release", products=("executorch",), binary_only=())
    monkeypatch.setenv("PATH", str(tmp_path))  # no swift to be found
    code = main(["check", "--template", str(release.template), "--version", release.version,
                 "--checksums", str(release.checksums), "--resolve"])
    assert code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "--resolve needs a swift" in line
