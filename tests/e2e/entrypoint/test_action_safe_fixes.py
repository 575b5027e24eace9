"""Issue 33, as the action runs it: a check refuses the partial build publish would refuse,
and a refusal over a published version leads to the safe fix (`update`), never first to
`allow-overwrite`.

`entrypoint.py` in a fresh process against the ExecuTorch-shaped origin (support/executorch.py)
by path and the loopback fake GitHub API. Each test prints the log lines and the check run's
title it asserts on, so the note can quote them (`pytest -s`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.action_repo import served
from support.actions_env import (
    FRAMEWORKS_FROM,
    REPOSITORY,
    WORKFLOW,
    Origin,
    line_of,
)
from support.executorch import LIVE_KEYS, ExecuTorchOrigin, make_executorch
from support.fake_github import FakeGitHub
from support.release import all_names, write_zip

API_TOKEN = "ghs_e2eApiToken0123456789abcdef"
PUSH_TOKEN = "github_pat_e2ePushToken0123456789"
TOKENS = {"github-token": API_TOKEN, "push-token": PUSH_TOKEN}
NIGHTLY = "1.2.0.20250101"


@pytest.fixture
def origin(tmp_path: Path, fake_github: FakeGitHub) -> Iterator[tuple[ExecuTorchOrigin, object]]:
    et = make_executorch(tmp_path / "remote")
    with served("path", Origin(et.bare, et.main, et.swiftpm), tmp_path / "srv",
                PUSH_TOKEN) as made:
        fake_github.add_repo(REPOSITORY, git_dir=made.bare)
        fake_github.add_token(API_TOKEN)
        yield et, made


def _show(result, run: dict) -> str:
    """What the note quotes: the log's finding and fix lines, and the check run's title."""
    log = result.stdout + result.stderr
    shown = [line for line in log.splitlines()
             if ": error: " in line or line.startswith("  fix: ")]
    print("\n".join([*shown, f"check run title: {run['output']['title']}"]))
    return log


def test_a_partial_build_fails_the_check_before_any_upload(tmp_path, origin, fake_github, runner):
    et, made = origin
    workspace = made.clone("main", tmp_path / "workspace")
    out = workspace / "frameworks-ios"
    out.mkdir()
    for name in all_names(k for k in LIVE_KEYS if k != "kernels_llm"):
        write_zip(out / f"{name}-{NIGHTLY}.zip", name)
    step, result = runner.using(made, TOKENS).run(
        workspace, "workflow_dispatch", sha=et.main,
        inputs={"mode": "check", "version": NIGHTLY, "artifacts": "frameworks-ios",
                "frameworks-from": FRAMEWORKS_FROM})
    run = fake_github.only_check_run()
    log = _show(result, run)
    assert result.returncode == 1, log
    assert run["conclusion"] == "failure"
    assert run["output"]["title"] == "kernels_llm: declared, but main did not build it"
    declared = line_of(workspace / WORKFLOW, '"kernels_llm"')
    found = {(a["path"], a["start_line"], a["title"]) for a in fake_github.annotations[run["id"]]}
    assert (WORKFLOW, declared, "missing-checksum: kernels_llm, kernels_llm_debug") in found
    assert (f"{WORKFLOW}:{declared}: error: missing-checksum: 'kernels_llm' is declared at "
            f"{WORKFLOW}:{declared} but was not built: kernels_llm-{NIGHTLY}.zip is missing"
            ) in log
    assert f"  fix: make the build produce kernels_llm-{NIGHTLY}.zip" in log
    assert step.outputs()["consistent"] == "false"
    report = json.loads((workspace / ".swiftpm-guard/report.json").read_text())
    assert {f["code"] for f in report["findings"] if f["severity"] == "error"} == \
        {"missing-checksum"}


def test_republishing_a_published_version_leads_to_update_first(tmp_path, origin, fake_github,
                                                                runner):
    et, made = origin
    workspace = made.clone("main", tmp_path / "workspace")
    out = workspace / "frameworks-ios"
    out.mkdir()
    for name in all_names(LIVE_KEYS):
        write_zip(out / f"{name}-1.1.0.zip", name)
    step, result = runner.using(made, TOKENS).run(
        workspace, "workflow_dispatch", sha=et.main,
        inputs={"mode": "publish", "version": "1.1.0", "artifacts": "frameworks-ios",
                "frameworks-from": FRAMEWORKS_FROM})
    run = fake_github.only_check_run()
    log = _show(result, run)
    assert result.returncode == 1, log
    assert made.heads()["swiftpm-1.1.0"] == et.publish_110
    fix = next(line for line in log.splitlines() if line.startswith("  fix: "))
    assert fix.startswith("  fix: republish this version with input update (a new commit on "
                          "top of the published tip")
    assert fix.index("input update") < fix.index("input allow-overwrite")
    assert "a last resort" in fix
    assert "pass --allow-overwrite deliberately" not in log
    assert run["output"]["title"] == ("swiftpm-1.1.0 is already published; the manifest itself "
                                      "is consistent (republish with input update)")
    # The check run and the summary say the same, the safe way first.
    assert "Fix: republish this version with input update" in run["output"]["summary"]
    assert "republish this version with input update" in step.summary()


def test_a_taken_preflight_says_what_to_do_next(tmp_path, origin, fake_github, runner):
    et, made = origin
    workspace = made.clone("main", tmp_path / "workspace")
    step, result = runner.using(made, TOKENS).run(
        workspace, "workflow_dispatch", sha=et.main,
        inputs={"mode": "preflight", "version": "1.1.0"})
    run = fake_github.only_check_run()
    log = result.stdout + result.stderr
    print(log)
    assert result.returncode == 1, log
    assert run["output"]["title"] == "swiftpm-1.1.0 is taken"
    assert ("  fix: stop before uploading: apps pin swiftpm-1.1.0's zips by checksum. Ship "
            "this build as a new version") in log
    assert "republish it with input update" in log
    assert "Next: stop before uploading" in step.summary()
    assert "Next: stop before uploading" in run["output"]["summary"]


# -- verify-urls when the host cannot be reached ---------------------------------------------------


def _refused_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("base", ["https://zips.invalid/frameworks/", "refused"])
def test_an_unreachable_host_is_could_not_verify_not_a_finding(tmp_path, origin, fake_github,
                                                               base, runner):
    et, made = origin
    if base == "refused":
        base = f"http://127.0.0.1:{_refused_port()}/frameworks/"
    workspace = made.clone("main", tmp_path / "workspace")
    out = workspace / "frameworks-ios"
    out.mkdir()
    for name in all_names(LIVE_KEYS):
        write_zip(out / f"{name}-{NIGHTLY}.zip", name)
    inputs = {"mode": "check", "version": NIGHTLY, "artifacts": "frameworks-ios",
              "frameworks-from": FRAMEWORKS_FROM, "verify-urls": "true", "base-url": base}
    _step, result = runner.using(made, TOKENS).run(workspace, "workflow_dispatch", sha=et.main,
                                                   inputs=inputs)
    log = result.stdout + result.stderr
    print(log)
    assert result.returncode == 3, log
    assert f"verify-urls: could not verify 18 zip URLs: {base}" in log
    assert "url-error" not in log

    # The same with a partial build: the build's finding is the title, the host a notice.
    for name in ("kernels_llm", "kernels_llm_debug"):
        (out / f"{name}-{NIGHTLY}.zip").unlink()
    _step, result = runner.using(made, TOKENS).run(workspace, "workflow_dispatch", sha=et.main,
                                                   inputs=inputs)
    run = fake_github.only_check_run()
    log = _show(result, run)
    assert result.returncode == 1, log
    assert run["output"]["title"] == "kernels_llm: declared, but main did not build it"
    levels = {a["title"]: a["annotation_level"] for a in fake_github.annotations[run["id"]]}
    assert levels["missing-checksum: kernels_llm, kernels_llm_debug"] == "failure"
    assert "could not verify 18 zip URLs" in run["output"]["summary"]
