"""Run a composite action's steps the way the runner does, from its action.yml.

For each step of `runs.steps`: its `env:` values are evaluated (only the expressions a
composite of ours may use: `inputs.<name>`, `steps.<id>.outputs.<name>`, `github.action_path`;
anything else fails the test), its `run:` is written to a file and started as the runner
starts `shell: bash` (`bash --noprofile --norc -eo pipefail FILE`) with the job's environment,
`GITHUB_ACTION_PATH` and a fresh `GITHUB_OUTPUT` file per step; the step's outputs are read
back from that file. The action's `outputs:` are then evaluated from the steps' outputs.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from support.container import parse_file_command

_EXPRESSION = re.compile(r"\$\{\{\s*(?P<expr>[^}]+?)\s*\}\}")


@dataclass
class CompositeRun:
    exit_code: int
    outputs: dict[str, str]
    logs: str
    steps: dict[str, dict[str, str]] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"exit {self.exit_code}, outputs {self.outputs}\n--- logs ---\n{self.logs[-6000:]}"


def _evaluate(value: str, inputs: Mapping[str, str], steps: Mapping[str, Mapping[str, str]],
              action_path: Path) -> str:
    def one(match: re.Match[str]) -> str:
        expr = match.group("expr")
        if expr == "github.action_path":
            return str(action_path)
        if expr.startswith("inputs."):
            return inputs[expr.removeprefix("inputs.")]
        step = re.fullmatch(r"steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)", expr)
        if step:
            return steps.get(step.group(1), {}).get(step.group(2), "")
        raise AssertionError(f"expression the test runner does not model: {expr!r}")
    return _EXPRESSION.sub(one, value)


def declared_inputs(action_yml: Path, given: Mapping[str, str]) -> dict[str, str]:
    """Defaults from action.yml overridden by `with:` (the runner's `inputs` context)."""
    spec = yaml.safe_load(action_yml.read_text())["inputs"]
    unknown = set(given) - set(spec)
    assert not unknown, f"inputs not declared: {sorted(unknown)}"
    values = {name: str((item or {}).get("default", "")) for name, item in spec.items()}
    values.update(given)
    return values


def run_composite(action_dir: Path, *, inputs: Mapping[str, str], env: Mapping[str, str],
                  cwd: Path, scratch: Path, timeout: float = 900) -> CompositeRun:
    spec = yaml.safe_load((action_dir / "action.yml").read_text())
    assert spec["runs"]["using"] == "composite"
    bash = shutil.which("bash")
    assert bash, "bash is needed to run the steps"
    scratch.mkdir(parents=True, exist_ok=True)
    steps: dict[str, dict[str, str]] = {}
    logs: list[str] = []
    code = 0
    for number, step in enumerate(spec["runs"]["steps"]):
        assert step.get("shell") == "bash", f"step {number} is not shell: bash"
        step_id = step.get("id", f"step{number}")
        script = scratch / f"{step_id}.sh"
        script.write_text(step["run"])
        output = scratch / f"{step_id}.output"
        output.write_text("")
        step_env = {
            **env,
            "GITHUB_ACTION_PATH": str(action_dir),
            "GITHUB_OUTPUT": str(output),
            **{name: _evaluate(str(value), inputs, steps, action_dir)
               for name, value in (step.get("env") or {}).items()},
        }
        done = subprocess.run([bash, "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                              cwd=cwd, env=step_env, capture_output=True, text=True,
                              timeout=timeout, check=False)
        logs.append(f"## {step.get('name', step_id)} (exit {done.returncode})\n"
                    f"{done.stdout}{done.stderr}")
        steps[step_id] = parse_file_command(output.read_text())
        if done.returncode != 0:
            code = done.returncode
            break
    outputs = {name: _evaluate(str(item["value"]), inputs, steps, action_dir)
               for name, item in (spec.get("outputs") or {}).items()}
    return CompositeRun(code, {k: v for k, v in outputs.items() if v != ""}, "".join(logs), steps)
