"""One job on the runner: the steps a test runs `entrypoint.py` in, set up in one place.

Each `step` is `actions_env.runner_env` (GITHUB_*, the event file, the outputs and summary
files, `INPUT_*`) in a folder of its own under the job's root (so two steps never share an
outputs file), with the job's inputs (the tokens, usually) under the step's own, and
GITHUB_SERVER_URL pointed at the served origin when there is one. The `runner` fixture
(tests/conftest.py) is a job against the test's `fake_github`.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from support.actions_env import (
    Origin,
    Step,
    dispatch_payload,
    run_entrypoint,
    runner_env,
    schedule_payload,
)


class Pointing(Protocol):
    """A served origin (support/action_repo.Served): its commits, and where the step finds it."""

    origin: Origin

    def point(self, step: Step) -> Step: ...


def default_payload(event: str, ref: str) -> dict[str, Any]:
    """The payload of an event whose payload says nothing a test varies."""
    if event == "schedule":
        return schedule_payload()
    if event == "workflow_dispatch":
        return dispatch_payload({}, ref)
    raise AssertionError(f"give the {event!r} event's payload")


@dataclass
class Job:
    root: Path
    api_url: str
    inputs: dict[str, str] = field(default_factory=dict)
    served: Pointing | None = None

    def using(self, served: Pointing | None = None, inputs: Mapping[str, str] | None = None
              ) -> Job:
        """This job with a served origin, and inputs every step gets."""
        return Job(self.root, self.api_url, {**self.inputs, **(inputs or {})},
                   served or self.served)

    def step(self, workspace: Path, event: str = "schedule",
             payload: dict[str, Any] | None = None, *, sha: str | None = None,
             ref: str = "refs/heads/main", inputs: Mapping[str, str] | None = None,
             folder: Path | None = None) -> Step:
        """A step's environment; `sha` defaults to the served origin's `main`."""
        if sha is None:
            assert self.served is not None, "give the step's sha (no served origin)"
            sha = self.served.origin.main
        if folder is None:
            folder = self.root / f"step-{len(list(self.root.glob('step-*')))}"
        folder.mkdir(parents=True, exist_ok=True)
        step = runner_env(folder, api_url=self.api_url, workspace=workspace, event_name=event,
                          payload=default_payload(event, ref) if payload is None else payload,
                          sha=sha, ref=ref, inputs={**self.inputs, **(inputs or {})})
        return step if self.served is None else self.served.point(step)

    def run(self, workspace: Path, event: str = "schedule",
            payload: dict[str, Any] | None = None, *, sha: str | None = None,
            ref: str = "refs/heads/main", inputs: Mapping[str, str] | None = None,
            folder: Path | None = None) -> tuple[Step, subprocess.CompletedProcess[str]]:
        """A step, and `entrypoint.py` run in it from the workspace."""
        step = self.step(workspace, event, payload, sha=sha, ref=ref, inputs=inputs,
                         folder=folder)
        return step, run_entrypoint(step, workspace)
