"""A rehearsal's check run: what the action would send to the Checks API, written to a JSON
file instead (`swiftpm-guard rehearse`). Nothing is posted."""

from __future__ import annotations

import json
from pathlib import Path

from swiftpm_guard.core.model import CheckRunOutput
from swiftpm_guard.sinks.checks_api import CheckRunTarget, Posted
from swiftpm_guard.sinks.files import write_atomically

#: Stands where GitHub's address of the check run would be (only GitHub assigns its id).
REHEARSAL_RUN = "runs/rehearsal"


class CheckRunRecording:
    """Keeps the check run a step would create in `path` (GitHub's request body, every
    annotation batch in one list)."""

    def __init__(self, path: Path, server_url: str) -> None:
        self.path = path
        self.server_url = server_url.rstrip("/")
        self.recorded: list[dict[str, object]] = []

    def record(self, target: CheckRunTarget, output: CheckRunOutput,
               skipped: str | None) -> Posted:
        document: dict[str, object] = {
            "created": skipped is None,
            "not_created_because": skipped,
            "name": target.name,
            "head_sha": target.head_sha,
            "details_url": target.details_url,
            "updates_check_run": target.update,
            "status": "completed",
            "conclusion": output.conclusion,
            "output": {"title": output.title, "summary": output.summary, "text": output.text},
            "annotations": [a.as_api() for a in output.annotations],
        }
        self.recorded.append(document)
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        write_atomically([(self.path, text.encode())])
        url = f"{self.server_url}/{target.repository}/{REHEARSAL_RUN}"
        return Posted(url=url, annotations=len(output.annotations))
