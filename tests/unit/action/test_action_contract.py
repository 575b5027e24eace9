"""action.yml, the code and the README agree on every input and output, both ways."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from swiftpm_guard.action.delivery import outputs_for
from swiftpm_guard.action.settings import INPUTS, ActionSettings
from swiftpm_guard.core.model import Report
from swiftpm_guard.sources.config_file import KEYS as CONFIG_KEYS

ROOT = Path(__file__).resolve().parents[3]


def _action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text())


def _reference_table(page: str) -> dict[str, list[str]]:
    """The rows of a generated reference page (docs/reference/inputs.md, outputs.md)."""
    section = (ROOT / "docs" / "reference" / page).read_text()
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        match = re.fullmatch(r"`([a-z0-9-]+)`", cells[0]) if cells else None
        if match:
            rows[match.group(1)] = cells[1:]
    return rows


class RecordingEnv(dict):
    """The runner's environment, remembering which variables the code asked for."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.asked: set[str] = set()

    def get(self, key, default=None):
        self.asked.add(key)
        return super().get(key, default)

    def __getitem__(self, key):
        self.asked.add(key)
        return super().__getitem__(key)


def test_it_is_a_docker_action_built_from_the_dockerfile():
    assert _action()["runs"] == {"using": "docker", "image": "Dockerfile"}


def test_action_yml_declares_exactly_the_inputs_the_code_knows_with_the_same_defaults():
    declared = _action()["inputs"]
    assert set(declared) == set(INPUTS)
    for name, spec in declared.items():
        expected = "${{ github.token }}" if name == "github-token" else INPUTS[name]
        if name in CONFIG_KEYS:
            # Empty in action.yml: an empty input is how the code knows the step did not
            # give it, so the configuration file's value applies; the code's default after.
            expected = ""
            assert "Default: " in spec["description"], name  # the real default, in words
        assert str(spec.get("default", "")) == expected, name
        assert spec.get("description"), name


def test_the_code_reads_every_declared_input(tmp_path):
    env = RecordingEnv(
        {
            "GITHUB_EVENT_NAME": "push",
            "GITHUB_REPOSITORY": "o/r",
            "GITHUB_SHA": "1" * 40,
            "GITHUB_WORKSPACE": str(tmp_path),
            "INPUT_FRAMEWORKS": "a",
        }
    )
    ActionSettings.from_env(env)
    read = {
        key.removeprefix("INPUT_").lower().replace("_", "-")
        for key in env.asked
        if key.startswith("INPUT_")
    }
    assert read == set(_action()["inputs"])


def test_the_code_writes_every_declared_output(tmp_path):
    settings = ActionSettings.from_env(
        {
            "GITHUB_EVENT_NAME": "push",
            "GITHUB_REPOSITORY": "o/r",
            "GITHUB_SHA": "1" * 40,
            "GITHUB_WORKSPACE": str(tmp_path),
            "INPUT_FRAMEWORKS": "a",
        }
    )
    report = Report(
        version="1.0.0",
        templates=(),
        placeholders=(),
        built=(),
        unfilled=(),
        unclaimed=(),
        products=None,
        binary_targets=None,
        counts_source=None,
    )
    written = outputs_for(settings, report, "r.json", "")
    assert list(written) == list(_action()["outputs"])
    assert all(spec.get("description") for spec in _action()["outputs"].values())


def test_the_reference_documents_every_input_and_output_and_nothing_else():
    inputs = _reference_table("inputs.md")
    assert set(inputs) == set(_action()["inputs"])
    for name, (default, meaning) in inputs.items():
        # A setting the configuration file may hold is marked so, with the code's default.
        assert default.endswith(" *file*") == (name in CONFIG_KEYS), name
        default = default.removesuffix(" *file*")
        shown = "" if default == "(empty)" else default.strip("`")
        declared = str(_action()["inputs"][name].get("default", ""))
        assert shown == (INPUTS[name] if name in CONFIG_KEYS else declared), name
        assert meaning, name
    assert set(_reference_table("outputs.md")) == set(_action()["outputs"])
