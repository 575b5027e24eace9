"""Issue 35 in the action: publish with verify-urls states what a consumer downloads against
the previous published version (swiftpm-1.2.2 on the same remote, its zips served), refuses
growth past `download-growth-limit`, and hands the attest step its subjects file
(`attestation-subjects` output) with the consumer's `gh attestation verify` in the summary."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path

import pytest

from support.actions_env import (
    REPOSITORY,
    clone,
    dispatch_payload,
    git,
    make_origin,
    run_entrypoint,
)
from support.fake_github import FakeGitHub
from support.published import BranchSpec, fast_import_stream
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, all_names, write_real_zip
from support.runner_job import Job
from support.zip_server import Route, serve_zips

TOKEN = "ghs_e2eWeightToken0123456789"
NAMES = all_names([*PRODUCT_KEYS, *BINARY_ONLY_KEYS])


@pytest.fixture
def zips():
    with serve_zips() as server:
        yield server


def _publish(tmp_path: Path, fake: FakeGitHub, zips, limit: str):
    """1.2.3's zips twice as heavy as 1.2.2's, which is published and served."""
    origin = make_origin(tmp_path / "remote")
    fake.add_repo(REPOSITORY, git_dir=origin.bare)
    fake.add_token(TOKEN)
    before = tmp_path / "before"
    before.mkdir()
    checksums = {}
    for name in NAMES:
        path = before / f"{name}-1.2.2.zip"
        checksums[name] = write_real_zip(path, name, payload_size=20_000)
        zips.routes[f"/frameworks/{path.name}"] = Route(path.read_bytes())
    spec = BranchSpec("1.2.2", checksums=checksums)
    subprocess.run(["git", "--git-dir", str(origin.bare), "fast-import", "--quiet"],
                   input=fast_import_stream({spec.branch_name: spec.files()},
                                            {spec.branch_name: "1.2.2"}),
                   check=True, capture_output=True, timeout=60)
    workspace = clone(origin, "main", tmp_path / "workspace")
    out = workspace / "out"
    out.mkdir()
    for name in NAMES:
        write_real_zip(out / f"{name}-1.2.3.zip", name, payload_size=40_000)
        zips.routes[f"/frameworks/{name}-1.2.3.zip"] = Route(
            (out / f"{name}-1.2.3.zip").read_bytes())
    step = Job(tmp_path, fake.url).step(
        workspace, "workflow_dispatch", dispatch_payload({"version": "1.2.3"}), sha=origin.main,
        inputs={"mode": "publish", "version": "1.2.3", "artifacts": "out", "verify-urls": "true",
                "base-url": zips.url("frameworks/"), "download-growth-limit": limit,
                "github-token": TOKEN})
    # This checkout's sources, whichever checkout the interpreter's editable install names.
    step.env["PYTHONPATH"] = str(Path(__file__).resolve().parents[3] / "src")
    sizes = (sum(p.stat().st_size for p in before.iterdir()),
             sum(p.stat().st_size for p in out.iterdir()))
    return origin, workspace, step, sizes


def test_publish_within_the_limit_writes_the_subjects_and_says_the_change(
        tmp_path, fake_github, zips):
    origin, workspace, step, (before, after) = _publish(tmp_path, fake_github, zips, "150%")
    result = run_entrypoint(step, workspace)
    assert result.returncode == 0, result.stdout + result.stderr
    assert git(origin.bare, "branch", "--list", "swiftpm-1.2.3") == "swiftpm-1.2.3"
    outputs = step.outputs()
    assert outputs["attestation-subjects"] == ".swiftpm-guard/attestation-subjects.txt"
    report = json.loads((workspace / outputs["report"]).read_text())
    assert report["download"] == {
        "bytes": after, "zips": 20, "measured": "served", "unsized": [],
        "previous_version": "1.2.2", "previous_bytes": before, "previous_note": None,
        "change": after - before, "limit": "150%"}
    # The attest action's subject-checksums format: `<sha256>  <name>`, a zip a line, then
    # the manifest pushed; each digest the bytes' own.
    lines = (workspace / outputs["attestation-subjects"]).read_text().splitlines()
    pairs = [re.fullmatch(r"([0-9a-f]{64})  (\S+)", line).groups() for line in lines]
    assert [name for _digest, name in pairs] == [
        *sorted(f"{n}-1.2.3.zip" for n in NAMES), "Package.swift"]
    for digest, name in pairs[:-1]:
        assert digest == hashlib.sha256((workspace / "out" / name).read_bytes()).hexdigest()
    published = git(origin.bare, "show", "swiftpm-1.2.3:Package.swift") + "\n"
    assert pairs[-1][0] == hashlib.sha256(published.encode()).hexdigest()
    summary = step.summary()
    assert f"gh attestation verify {pairs[0][1]} --repo {REPOSITORY}" in summary
    assert "Download weight: a consumer downloads" in summary
    assert f"1.2.2: {before / 1e6:.1f} MB, change +{(after - before) / 1e6:.1f} MB" in summary


def test_publish_past_the_limit_is_refused_and_attests_nothing(tmp_path, fake_github, zips):
    origin, workspace, step, (before, after) = _publish(tmp_path, fake_github, zips, "50%")
    assert after > 1.5 * before
    result = run_entrypoint(step, workspace)
    assert result.returncode == 1, result.stdout + result.stderr
    assert git(origin.bare, "branch", "--list", "swiftpm-1.2.3") == ""
    outputs = step.outputs()
    assert outputs["pushed"] == "false" and outputs["attestation-subjects"] == ""
    assert not (workspace / ".swiftpm-guard" / "attestation-subjects.txt").exists()
    report = json.loads((workspace / outputs["report"]).read_text())
    (growth,) = [f for f in report["findings"] if f["code"] == "download-growth"]
    assert growth["severity"] == "error"
    assert growth["message"].startswith(f"a consumer of 1.2.3 downloads {after / 1e6:.1f} MB")
    assert "download-growth" in step.summary() and "gh attestation verify" not in step.summary()
