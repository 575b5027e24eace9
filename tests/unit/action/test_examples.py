"""The example workflows use the action only with inputs it declares, and read only outputs
it writes: a renamed input would otherwise leave the documentation quietly wrong."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from support.openapi import load_spec
from support.release import write_template_branch
from swiftpm_guard.action.settings import (
    INPUTS,
    MODES,
)
from swiftpm_guard.cli.main import main

ROOT = Path(__file__).resolve().parents[3]
#: The outputs action.yml declares (the action writes each: test_action_contract).
OUTPUTS = set(yaml.safe_load((ROOT / "action.yml").read_text())["outputs"])
EXAMPLES = sorted((ROOT / "docs" / "examples").glob("*.yml"))
EXECUTORCH = ROOT / "docs" / "examples" / "executorch-upload-frameworks-ios.yml"
#: FRAMEWORKS in pytorch/executorch's .github/workflows/apple.yml, job build-frameworks-ios,
#: on main and release/1.0 … release/1.4 (read there; release/0.7 builds another list).
EXECUTORCH_FRAMEWORKS = ("executorch", "executorch_llm", "backend_coreml", "backend_mps",
                         "backend_xnnpack", "kernels_llm", "kernels_optimized",
                         "kernels_quantized", "kernels_torchao", "threadpool")


def _steps(workflow: dict) -> list[dict]:
    return [step for job in workflow["jobs"].values() for step in job.get("steps", [])]


def _ours(step: dict) -> bool:
    return "swiftpm-guard" in step.get("uses", "")


def test_there_are_examples_and_the_executorch_one_is_complete():
    names = {path.name for path in EXAMPLES}
    assert "executorch-upload-frameworks-ios.yml" in names
    workflow = yaml.safe_load(EXECUTORCH.read_text())
    assert set(workflow["jobs"]) == {"set-version", "build-frameworks-ios",
                                     "upload-frameworks-ios"}
    job = workflow["jobs"]["upload-frameworks-ios"]
    assert job["concurrency"]["cancel-in-progress"] is False
    modes = [s["with"]["mode"] for s in job["steps"] if _ours(s)]
    assert modes == ["check", "preflight", "publish"]


@pytest.mark.parametrize("name", ["executorch-upload-frameworks-ios.yml", "apple-release.yml"])
def test_the_release_examples_check_before_the_upload_and_publish_after(name):
    """Issue 23: a check that fails must stop the run before the bucket holds anything, and
    verify-absent must not turn every re-run after a blocked publish into url-exists."""
    workflow = yaml.safe_load((ROOT / "docs" / "examples" / name).read_text())
    for job in workflow["jobs"].values():
        steps = job.get("steps", [])
        uploads = [i for i, s in enumerate(steps) if "aws s3 cp" in s.get("run", "")]
        if not uploads:
            continue
        modes = {s["with"]["mode"]: i for i, s in enumerate(steps) if _ours(s)}
        assert modes["check"] < modes["preflight"] < uploads[0] < modes["publish"], name
        assert not any(s.get("with", {}).get("verify-absent") for s in steps if _ours(s))
        assert steps[modes["publish"]]["with"]["verify-urls"] is True
        return
    raise AssertionError(f"{name} uploads nothing")


def _frameworks_from(path: Path) -> list[str]:
    specs = []
    for step in _steps(yaml.safe_load(path.read_text())):
        if _ours(step) and "frameworks-from" in step.get("with", {}):
            specs.append(step["with"]["frameworks-from"])
    return specs


def test_every_frameworks_from_names_a_job_of_its_apple_workflow():
    """The ExecuTorch examples read ExecuTorch's job (`build-frameworks-ios`: a wrong name is
    exit 2); the generic one its own."""
    executorch_jobs = set(yaml.safe_load(EXECUTORCH.read_text())["jobs"])
    generic = ROOT / "docs" / "examples" / "apple-release.yml"
    generic_jobs = set(yaml.safe_load(generic.read_text())["jobs"])
    for path in EXAMPLES:
        for spec_text in _frameworks_from(path):
            workflow, job, variable = spec_text.split(":")
            assert workflow == ".github/workflows/apple.yml" and variable == "FRAMEWORKS"
            assert job in (generic_jobs if path == generic else executorch_jobs), path.name


def test_no_example_asks_for_the_whole_history():
    for path in EXAMPLES:
        for step in _steps(yaml.safe_load(path.read_text())):
            if step.get("uses", "").startswith("actions/checkout@"):
                assert "fetch-depth" not in step.get("with", {}), path.name


def test_the_executorch_frameworks_are_executorchs_and_pass_its_template_shape(tmp_path, capsys):
    """The example's list is the real one, read by the same reader from the reusable-workflow
    job's script, and consistent with a template in the real shape (nine products with debug
    twins, `threadpool` binary-only): the old example's list failed the real one with 6."""
    script = yaml.safe_load(EXECUTORCH.read_text())["jobs"]["build-frameworks-ios"]["with"][
        "script"]
    listed = re.search(r"FRAMEWORKS=\(\n(.*?)\n\s*\)", script, re.DOTALL)
    assert listed is not None
    assert tuple(line.strip().strip('"') for line in listed[1].splitlines()) == (
        EXECUTORCH_FRAMEWORKS)
    # ExecuTorch's own version line, which the guard steps vouch for (plain-expressions).
    assert 'VERSION="${{ needs.set-version.outputs.version }}"' in script
    vouched = {s["with"].get("plain-expressions") for s in _steps(yaml.safe_load(
        EXECUTORCH.read_text())) if _ours(s) and "frameworks-from" in s["with"]}
    assert vouched == {"needs.set-version.outputs.version"}
    products = [n for n in EXECUTORCH_FRAMEWORKS if n != "threadpool"]
    template = write_template_branch(tmp_path / "swiftpm", products, ["threadpool"])
    code = main(["check", "--template", str(template), "--version", "1.4.1", "--swift", "off",
                 "--accept-static", "--plain-expression", "needs.set-version.outputs.version",
                 "--frameworks-from", f"{EXECUTORCH}:build-frameworks-ios:FRAMEWORKS"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "consistent for 1.4.1: 20 asked" in out


@pytest.mark.skipif(shutil.which("jq") is None, reason="jq is not on PATH")
def test_the_fork_recipe_posts_a_check_run_github_accepts(tmp_path, capsys):
    """swiftpm-pr-check-fork.yml's jq program, on a real report with findings, builds a body
    the checks/create operation of GitHub's OpenAPI description accepts."""
    workflow = yaml.safe_load((ROOT / "docs/examples/swiftpm-pr-check-fork.yml").read_text())
    run = workflow["jobs"]["check-run"]["steps"][1]["run"]
    program = re.search(r"jq --arg sha \"\$HEAD_SHA\" '(.*?)' report/report.json", run,
                        re.DOTALL)
    assert program is not None
    template = write_template_branch(tmp_path / "swiftpm", ["executorch", "kernels_llm"])
    report = tmp_path / "report.json"
    assert main(["check", "--template", str(template), "--version", "1.0.0", "--swift", "off",
                 "--frameworks", "executorch", "--json", str(report)]) == 1
    capsys.readouterr()
    done = subprocess.run(["jq", "--arg", "sha", "a" * 40, program[1], str(report)],
                          capture_output=True, text=True, timeout=60, check=True)
    body = json.loads(done.stdout)
    assert body["conclusion"] == "failure" and body["output"]["annotations"]
    found = load_spec().match("POST", "/repos/o/r/check-runs")
    assert found is not None
    operation, params = found
    assert operation.validate_request(params, {}, done.stdout.encode(),
                                      "application/json") == []


def test_every_swiftpm_guard_step_uses_declared_inputs_and_outputs():
    used = 0
    for path in EXAMPLES:
        text = path.read_text()
        ours: set[str] = set()
        for step in _steps(yaml.safe_load(text)):
            if "swiftpm-guard" not in step.get("uses", ""):
                continue
            used += 1
            ours.add(step.get("id", ""))
            inputs = step.get("with", {})
            assert set(inputs) <= set(INPUTS), (path.name, set(inputs) - set(INPUTS))
            assert inputs.get("mode", "auto") in MODES, path.name
            assert "$RUNNER_TEMP" not in str(inputs) and "runner.temp" not in str(inputs)
        for step_id, output in re.findall(r"steps\.([a-z-]+)\.outputs\.([a-z-]+)", text):
            if step_id in ours:
                assert output in OUTPUTS, (path.name, output)
    assert used >= 4
