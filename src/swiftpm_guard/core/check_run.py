"""What a check run carries, as values: annotations and the output, within GitHub's limits.

`report.check_run` builds these from a report; `sinks.checks_api` sends them, and
`sinks.actions_io` writes the same annotations as workflow commands when it cannot.
"""

from __future__ import annotations

from dataclasses import dataclass

TITLE_MAX = 255
SUMMARY_MAX = TEXT_MAX = 65535
MESSAGE_MAX_BYTES = 64 * 1024 - 1
ANNOTATIONS_PER_REQUEST = 50
#: 20 requests at most; findings past this are listed in the text instead.
ANNOTATIONS_MAX = 1000
CONCLUSIONS = ("success", "failure", "neutral")


@dataclass(frozen=True, slots=True)
class Annotation:
    path: str
    line: int
    level: str  # the Checks API's word: "failure" or "warning" ("error" is rejected)
    title: str
    message: str

    def as_api(self) -> dict[str, object]:
        return {
            "path": self.path,
            "start_line": self.line,
            "end_line": self.line,
            "annotation_level": self.level,
            "title": self.title,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class CheckRunOutput:
    conclusion: str
    title: str
    summary: str
    text: str | None
    annotations: tuple[Annotation, ...]
    cut: tuple[str, ...] = ()

    def batches(self) -> list[tuple[Annotation, ...]]:
        """Annotations in requests of at most 50: the create, then one edit per batch."""
        step = ANNOTATIONS_PER_REQUEST
        return [self.annotations[i : i + step] for i in range(0, len(self.annotations), step)]
