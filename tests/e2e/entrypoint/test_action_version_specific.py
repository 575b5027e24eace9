"""Version-specific manifests through `entrypoint.py` on the ExecuTorch-shaped repository
(issue 24). SwiftPM 6.0 reads `Package@swift-6.0.swift` instead of `Package.swift` (checked with
the real 6.0.3), so a pull request that adds one with placeholders left fails, a template of
one is rendered and pushed with `Package.swift`, and the audit judges one on a published
branch like `Package.swift`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.action_repo import Served, served
from support.actions_env import (
    FRAMEWORKS_FROM,
    REPOSITORY,
    Origin,
    commit_all,
    git,
    line_of,
    pull_request_payload,
)
from support.executorch import LIVE_KEYS, LIVE_PRODUCTS, ExecuTorchOrigin, make_executorch
from support.fake_github import FakeGitHub
from support.release import BINARY_ONLY_KEYS, all_names, template_text, write_zip
from support.runner_job import Job

API_TOKEN = "ghs_e2eApiToken0123456789abcdef"
PUSH_TOKEN = "github_pat_e2ePushToken0123456789"
TOKENS = {"github-token": API_TOKEN, "push-token": PUSH_TOKEN}
NIGHTLY = "1.2.0.20250101"
VARIANT = "Package@swift-6.0.swift"


@pytest.fixture(params=["path", "http"])
def repo(request, tmp_path: Path, fake_github: FakeGitHub) -> Iterator[tuple[Served,
                                                                             ExecuTorchOrigin]]:
    et = make_executorch(tmp_path / "remote")
    with served(request.param, Origin(et.bare, et.main, et.swiftpm), tmp_path / "srv",
                PUSH_TOKEN) as made:
        fake_github.add_repo(REPOSITORY, git_dir=made.bare)
        fake_github.add_token(API_TOKEN)
        yield made, et


def _on_origin(bare: Path, branch: str, files: dict[str, str], tmp_path: Path, *,
               start: str = "swiftpm") -> str:
    """A commit on `branch` of the origin (from `start`) that adds `files`."""
    seed = tmp_path / f"seed-{branch}"
    git(tmp_path, "clone", "-q", "--branch", start, str(bare), str(seed))
    git(seed, "checkout", "-q", "-B", branch)
    for name, text in files.items():
        (seed / name).write_text(text)
    commit = commit_all(seed, f"add {', '.join(files)}")
    git(seed, "push", "-q", "origin", f"HEAD:refs/heads/{branch}")
    return commit


def _template_pr(tmp_path, made, et, runner: Job, files: dict[str, str], number: int):
    workspace = made.clone("swiftpm", tmp_path / "workspace")
    git(workspace, "checkout", "-q", "-b", "swift-6")
    for name, text in files.items():
        (workspace / name).write_text(text)
    head = commit_all(workspace, "a manifest for Swift 6")
    payload = pull_request_payload(number=number, head_sha=head, head_ref="swift-6",
                                   base_ref="swiftpm", base_sha=et.swiftpm)
    step, result = runner.using(made, {"github-token": API_TOKEN}).run(
        workspace, "pull_request", payload, sha=head, ref=f"refs/pull/{number}/merge",
        inputs={"frameworks-from": FRAMEWORKS_FROM})
    return workspace, step, result


def test_a_pr_adding_a_version_specific_manifest_with_placeholders_fails(tmp_path, repo,
                                                                        fake_github, runner):
    made, et = repo
    before = made.heads()
    # Copied from the template instead of renamed to a template: SwiftPM 6 would read the
    # placeholders, so every consumer on Swift 6 would fail.
    text = template_text(LIVE_PRODUCTS)
    _workspace, step, result = _template_pr(tmp_path, made, et, runner, {VARIANT: text}, 31)
    assert result.returncode == 2, result.stdout + result.stderr
    [error] = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert f"{VARIANT}:5: '__VERSION__' (a placeholder) is in a version-specific manifest" \
        in error
    assert f"rename it {VARIANT}.template to have it rendered" in error
    assert "Traceback" not in result.stderr
    assert step.output_file.read_text() == "" and made.heads() == before


def test_a_pr_adding_a_version_specific_template_is_checked_like_the_template(tmp_path, repo,
                                                                              fake_github, runner):
    made, et = repo
    text = template_text(LIVE_PRODUCTS, (*BINARY_ONLY_KEYS, "kleidiai"))
    workspace, _, result = _template_pr(tmp_path, made, et, runner,
                                        {f"{VARIANT}.template": text}, 32)
    assert result.returncode == 1, result.stdout + result.stderr
    run = fake_github.only_check_run()
    assert run["conclusion"] == "failure"
    line = line_of(workspace / f"{VARIANT}.template", "__SHA256_kleidiai__")
    found = {(a["path"], a["start_line"], a["title"]) for a in fake_github.annotations[run["id"]]}
    assert (f"{VARIANT}.template", line, "unfilled-placeholder: kleidiai") in found
    assert all(a[0] == f"{VARIANT}.template" for a in found), found


def test_publish_renders_and_pushes_both_and_the_audit_finds_them_clean(tmp_path, repo,
                                                                        fake_github, runner):
    made, et = repo
    variant = template_text(LIVE_PRODUCTS).replace("swift-tools-version:5.9",
                                                   "swift-tools-version:6.0")
    template_commit = _on_origin(made.bare, "swiftpm", {f"{VARIANT}.template": variant},
                                 tmp_path)
    workspace = made.clone("main", tmp_path / "workspace")
    out = workspace / "out"
    out.mkdir()
    checksums = {name: write_zip(out / f"{name}-{NIGHTLY}.zip", name)
                 for name in all_names(LIVE_KEYS)}
    step, result = runner.using(made, TOKENS).run(
        workspace, sha=et.main,
        inputs={"version": NIGHTLY, "artifacts": "out",
                "frameworks-from": FRAMEWORKS_FROM})
    assert result.returncode == 0, result.stdout + result.stderr
    commit = made.heads()[f"swiftpm-{NIGHTLY}"]
    assert git(made.bare, "rev-parse", f"{commit}^") == template_commit
    files = git(made.bare, "ls-tree", "--name-only", commit).splitlines()
    assert "Package.swift" in files and VARIANT in files
    assert not any(name.endswith(".template") for name in files)
    published = git(made.bare, "show", f"{commit}:{VARIANT}")
    assert published.startswith("// swift-tools-version:6.0") and "__SHA256_" not in published
    assert f'"{checksums["executorch"]}"' in published
    report = json.loads((workspace / step.outputs()["report"]).read_text())
    assert report["publish"]["manifests"] == ["Package.swift", VARIANT]
    assert (workspace / ".swiftpm-guard" / VARIANT).read_text().rstrip("\n") == published
    assert VARIANT in step.summary()

    _audit, result = runner.using(made, TOKENS).run(
        workspace, sha=et.main, inputs={"mode": "audit"})
    assert result.returncode == 0, result.stdout + result.stderr  # warnings only (1.0.0)
    data = json.loads((workspace / ".swiftpm-guard/audit.json").read_text())
    nightly = next(b for b in data["branches"] if b["branch"] == f"swiftpm-{NIGHTLY}")
    assert nightly["findings"] == []


def test_the_audit_judges_a_broken_version_specific_manifest_like_package_swift(
        tmp_path, repo, fake_github, runner):
    made, et = repo
    # swiftpm-1.1.0 as published, plus the variant with its placeholders left (what publish
    # pushed before issue 24), plus a file SwiftPM never reads as a manifest.
    left = template_text(LIVE_PRODUCTS).replace("__VERSION__", "1.2.0")
    _on_origin(made.bare, "swiftpm-1.2.0", {VARIANT: left,
                                            "Package@swift-6.0.3.1.swift": left},
               tmp_path, start="swiftpm-1.1.0")
    workspace = made.clone("main", tmp_path / "workspace")
    _step, result = runner.using(made, TOKENS).run(
        workspace, sha=et.main, inputs={"mode": "audit"})
    assert result.returncode == 1, result.stdout + result.stderr
    data = json.loads((workspace / ".swiftpm-guard/audit.json").read_text())
    broken = next(b for b in data["branches"] if b["branch"] == "swiftpm-1.2.0")
    errors = {(f["code"], f["subject"], f["file"]) for f in broken["findings"]
              if f["severity"] == "error"}
    assert errors == {("placeholder-left", name, VARIANT) for name in all_names(LIVE_KEYS)} | {
        ("branch-version", "1.1.0", "Package.swift")}
    run = fake_github.only_check_run()
    assert run["conclusion"] == "failure"
    assert VARIANT in run["output"]["summary"] + (run["output"].get("text") or "")
