"""The example workflows use the action only with inputs it declares, and read only outputs
it writes: a renamed input would otherwise leave the documentation quietly wrong."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from swiftpm_guard.action.settings import (
    INPUTS,
    MODES,
    OUTPUTS,
)

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = sorted((ROOT / "docs" / "examples").glob("*.yml"))


def _steps(workflow: dict) -> list[dict]:
    return [step for job in workflow["jobs"].values() for step in job.get("steps", [])]


def test_there_are_examples_and_the_executorch_one_is_complete():
    names = {path.name for path in EXAMPLES}
    assert "executorch-upload-frameworks-ios.yml" in names
    workflow = yaml.safe_load((ROOT / "docs/examples/executorch-upload-frameworks-ios.yml")
                              .read_text())
    assert set(workflow["jobs"]) == {"set-version", "build-frameworks-ios",
                                     "upload-frameworks-ios"}
    job = workflow["jobs"]["upload-frameworks-ios"]
    assert job["concurrency"]["cancel-in-progress"] is False
    modes = [s["with"]["mode"] for s in job["steps"] if "swiftpm-guard" in s.get("uses", "")]
    assert modes == ["preflight", "auto"]


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
