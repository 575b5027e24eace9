"""A rehearsal's check run: what the action would send to the Checks API, written to a JSON
file instead (`swiftpm-guard rehearse`), and its pull-request comment to a Markdown file.
Nothing is posted."""

from __future__ import annotations

import json
from pathlib import Path

from swiftpm_guard.core.model import CheckRunOutput
from swiftpm_guard.sinks.checks_api import CheckRunTarget, Posted
from swiftpm_guard.sinks.files import write_atomically

#: Stands where GitHub's address of the check run would be (only GitHub assigns its id).
REHEARSAL_RUN = "runs/rehearsal"
#: The pull-request comment (input pr-comment), beside the check run's file.
COMMENT_FILE = "pr-comment.md"


class CheckRunRecording:
    """Keeps the check run a step would create in `path` (GitHub's request body, every
    annotation batch in one list)."""

    def __init__(self, path: Path, server_url: str) -> None:
        self.path = path
        self.server_url = server_url.rstrip("/")
        self.recorded: list[dict[str, object]] = []
        self.comment: str | None = None

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

    def record_comment(self, body: str) -> str:
        """The pull-request comment, as its Markdown, in `pr-comment.md` beside `path`."""
        target = self.path.with_name(COMMENT_FILE)
        write_atomically([(target, body.encode())])
        self.comment = body
        return str(target)
