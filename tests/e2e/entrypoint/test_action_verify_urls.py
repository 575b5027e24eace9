"""`verify-urls` in check and publish mode: the zips are fetched from a loopback server the way
SwiftPM fetches them, and a wrong or missing one is a finding that blocks publishing."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.actions_env import (
    REPOSITORY,
    clone,
    dispatch_payload,
    git,
    line_of,
    make_origin,
    run_entrypoint,
)
from support.fake_github import FakeGitHub
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, all_names, write_real_zip
from support.runner_job import Job
from support.zip_server import Route, serve_zips

TOKEN = "ghs_e2eUrlToken0123456789"


@pytest.fixture
def zips():
    with serve_zips() as server:
        yield server


def _release(tmp_path: Path, fake: FakeGitHub, zips, mode: str):
    origin = make_origin(tmp_path / "remote")
    fake.add_repo(REPOSITORY, git_dir=origin.bare)
    fake.add_token(TOKEN)
    workspace = clone(origin, "main", tmp_path / "workspace")
    out = workspace / "out"
    out.mkdir()
    for name in all_names([*PRODUCT_KEYS, *BINARY_ONLY_KEYS]):
        write_real_zip(out / f"{name}-1.2.3.zip", name)
        zips.routes[f"/frameworks/{name}-1.2.3.zip"] = Route((out / f"{name}-1.2.3.zip").read_bytes())
    step = Job(tmp_path, fake.url).step(
        workspace, "workflow_dispatch", dispatch_payload({"version": "1.2.3"}), sha=origin.main,
        inputs={
            "mode": mode,
            "version": "1.2.3",
            "artifacts": "out",
            "verify-urls": "true",
            "base-url": zips.url("frameworks/"),
            "github-token": TOKEN,
        })
    return origin, workspace, step


def _break(zips, folder) -> None:
    """One upload went wrong (another build of the zip), one never happened."""
    write_real_zip(folder / "rebuilt.zip", "kernels_llm", signed=True)
    zips.routes["/frameworks/kernels_llm-1.2.3.zip"] = Route((folder / "rebuilt.zip").read_bytes())
    del zips.routes["/frameworks/threadpool_debug-1.2.3.zip"]


def test_check_mode_fetches_every_zip(tmp_path, fake_github, zips):
    origin, workspace, step = _release(tmp_path, fake_github, zips, "check")
    _break(zips, tmp_path)
    result = run_entrypoint(step, workspace)
    assert result.returncode == 1, result.stdout + result.stderr
    assert len(zips.hits) == 20
    run = fake_github.only_check_run()
    template = tmp_path / "template.swift"
    template.write_text(git(origin.bare, "show", "swiftpm:Package.swift.template"))
    # The template is on swiftpm, not in main's tree: listed with its branch, not annotated.
    assert fake_github.annotations[run["id"]] == []
    text = run["output"]["text"]
    for needle, code in (("__SHA256_kernels_llm__", "url-checksum"),
                         ("__SHA256_threadpool_debug__", "url-missing")):
        assert f"`swiftpm:Package.swift.template:{line_of(template, needle)}` **error** `{code}`" \
            in text


def test_publish_mode_pushes_only_when_every_zip_is_served_right(tmp_path, fake_github, zips):
    origin, workspace, step = _release(tmp_path, fake_github, zips, "publish")
    _break(zips, tmp_path)
    result = run_entrypoint(step, workspace)
    assert result.returncode == 1, result.stdout + result.stderr
    assert git(origin.bare, "branch", "--list", "swiftpm-*") == ""
    assert step.outputs()["pushed"] == "false"
    assert "url-checksum" in step.summary() and "url-missing" in step.summary()


def test_publish_mode_with_every_zip_served(tmp_path, fake_github, zips):
    origin, workspace, step = _release(tmp_path, fake_github, zips, "publish")
    result = run_entrypoint(step, workspace)
    assert result.returncode == 0, result.stdout + result.stderr
    assert len(zips.hits) == 20
    assert git(origin.bare, "branch", "--list", "swiftpm-*") == "swiftpm-1.2.3"
    assert step.outputs()["pushed"] == "true"
