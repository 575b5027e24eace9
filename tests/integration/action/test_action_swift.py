"""Input `swift`: the action proves the published manifest with the real SwiftPM when given one.

Runs `entrypoint.py` as the runner would (publish on schedule, path origin), with `swift` set to
the toolchain the integration tier uses (see tests/integration/conftest.py).
"""

from __future__ import annotations

import json

import pytest

from support.actions_env import (
    REPOSITORY,
    clone,
    git,
    make_origin,
    run_entrypoint,
)
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, all_names, write_zip
from support.runner_job import Job

TOKEN = "ghs_swiftInputToken0123"


def _step(tmp_path, fake_github, swift: str, mode: str = "auto"):
    origin = make_origin(tmp_path / "remote")
    fake_github.add_repo(REPOSITORY, git_dir=origin.bare)
    fake_github.add_token(TOKEN)
    workspace = clone(origin, "main", tmp_path / "workspace")
    (workspace / "out").mkdir()
    for name in all_names([*PRODUCT_KEYS, *BINARY_ONLY_KEYS]):
        write_zip(workspace / "out" / f"{name}-1.2.3.zip", name)
    step = Job(tmp_path, fake_github.url).step(
        workspace, sha=origin.main,
        inputs={
            "mode": mode,
            "version": "1.2.3",
            "artifacts": "out",
            "github-token": TOKEN,
            "swift": swift,
        })
    return origin, workspace, step


@pytest.mark.parametrize("mode", ["publish", "check"])
def test_the_swift_input_proves_the_manifest(tmp_path, fake_github, swift, mode):
    """publish reads the template from the remote, check through the workspace clone: either
    way SwiftPM gets the stub folders from the scratch copy of the ref."""
    origin, workspace, step = _step(tmp_path, fake_github, swift, mode)
    result = run_entrypoint(step, workspace)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads((workspace / ".swiftpm-guard" / "report.json").read_text())
    assert report["swiftpm"]["used"] is True, report["swiftpm"]
    assert report["swiftpm"]["reason"].startswith("evaluated with")
    assert report["products"] == 18 and report["binary_targets"] == 20
    published = "swiftpm-1.2.3" if mode == "publish" else ""
    assert git(origin.bare, "branch", "--list", "swiftpm-*") == published
    if mode == "publish":  # the commit itself was evaluated by SwiftPM before the push
        assert report["publish"]["proof"] == "swiftpm"
        assert "Proof: **swiftpm**: tree:" in step.summary()


def test_swift_off_never_runs_it(tmp_path, fake_github):
    origin, workspace, step = _step(tmp_path, fake_github, "off")
    # Without SwiftPM publish refuses in one line naming the ways out, and pushes nothing.
    step.env["INPUT_ACCEPT-STATIC"] = "false"  # runner_env accepts a static reading by default
    refused = run_entrypoint(step, workspace)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    errors = [line for line in (refused.stdout + refused.stderr).splitlines()
              if "accept-static" in line]
    assert len(errors) == 1 and "runner with `swift`" in errors[0], errors
    assert git(origin.bare, "branch", "--list", "swiftpm-*") == ""
    step.env["INPUT_ACCEPT-STATIC"] = "true"
    result = run_entrypoint(step, workspace)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads((workspace / ".swiftpm-guard" / "report.json").read_text())
    # The action's report names the option as its input.
    assert report["swiftpm"]["used"] is False and \
        report["swiftpm"]["reason"].startswith("input swift off")
