"""composite/action.yml is the Docker action's twin: same inputs, same outputs, every input
handed to entrypoint.py and every output read from it."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCKER = yaml.safe_load((ROOT / "action.yml").read_text())
COMPOSITE = yaml.safe_load((ROOT / "composite" / "action.yml").read_text())


def test_same_inputs_with_the_same_defaults_and_descriptions():
    assert COMPOSITE["inputs"] == DOCKER["inputs"]


def test_same_outputs_with_the_same_descriptions():
    assert list(COMPOSITE["outputs"]) == list(DOCKER["outputs"])
    for name, spec in DOCKER["outputs"].items():
        assert " ".join(COMPOSITE["outputs"][name]["description"].split()) == " ".join(
            spec["description"].split()), name


def test_every_input_reaches_the_entrypoint_and_every_output_comes_from_it():
    assert COMPOSITE["runs"]["using"] == "composite"
    guard = next(s for s in COMPOSITE["runs"]["steps"] if s.get("id") == "guard")
    assert "entrypoint.py" in guard["run"] and guard["run"].endswith(" --composite")
    expected = {f"INPUT_{name.upper().replace('-', '_')}": f"${{{{ inputs.{name} }}}}"
                for name in DOCKER["inputs"]}
    given = {k: v for k, v in guard["env"].items() if k.startswith("INPUT_")}
    assert given == expected
    for name, spec in COMPOSITE["outputs"].items():
        assert spec["value"] == f"${{{{ steps.guard.outputs.{name} }}}}"


def test_every_step_runs_in_bash_which_every_runner_os_has():
    steps = COMPOSITE["runs"]["steps"]
    assert steps and all(step["shell"] == "bash" for step in steps)
