"""What the action leaves behind for later steps and people: `.swiftpm-guard/` in the
workspace, the step outputs, log lines, and where each annotation goes; and its exit code.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from swiftpm_guard.action.settings import ActionSettings
from swiftpm_guard.core.model import Finding, Report
from swiftpm_guard.errors import InputError
from swiftpm_guard.sinks import actions_io

#: Reports and the manifest go here, inside the workspace, so later steps can use them.
OUT_DIR = ".swiftpm-guard"
EXIT_OK, EXIT_FINDINGS = 0, 1


def locator(
    settings: ActionSettings, anchor: str, ref_paths: set[str]
) -> Callable[[Finding], tuple[str, int]]:
    """Repository path and line for an annotation; findings elsewhere sit on `anchor` (the
    template's path)."""
    root = settings.workspace.resolve()

    def locate(finding: Finding) -> tuple[str, int]:
        file = finding.file
        if file and (file in ref_paths or _exists_in(root, file)):
            return file, finding.line or 1
        return anchor, 1

    return locate


def _exists_in(root: Path, relative: str) -> bool:
    if relative.startswith("/") or ".." in Path(relative).parts:
        return False
    return (root / relative).exists()


def out_folder(settings: ActionSettings) -> Path:
    """`.swiftpm-guard/` in the workspace, created; refused when it is not a plain folder."""
    folder = settings.workspace / OUT_DIR
    try:
        folder.mkdir(exist_ok=True)
    except OSError as error:
        raise InputError(
            f"cannot create the output folder: {error.strerror}", file=OUT_DIR
        ) from None
    if folder.is_symlink() or not folder.is_dir():
        # A pull request could commit `.swiftpm-guard` as a link to somewhere else.
        raise InputError("exists in the workspace and is not a plain folder", file=OUT_DIR)
    return folder


def exit_for(settings: ActionSettings, consistent: bool, conclusion: str) -> int:
    if consistent:
        return EXIT_OK
    if settings.event.is_pull_request and conclusion == "neutral":
        return EXIT_OK
    return EXIT_FINDINGS


def outputs_for(
    settings: ActionSettings,
    report: Report,
    report_rel: str,
    manifest_rel: str,
    *,
    pushed: bool = False,
    not_pushed: str = "",
    document: Mapping[str, object] | None = None,
) -> dict[str, str]:
    """The step outputs (action.yml declares exactly these); `document` is the JSON report."""
    return {
        "consistent": "true" if report.consistent else "false",
        "products": "" if report.products is None else str(report.products),
        "binary-targets": "" if report.binary_targets is None else str(report.binary_targets),
        "report": report_rel,
        "manifest": manifest_rel,
        "branch": settings.branch or "",
        "pushed": "true" if pushed else "false",
        "not-pushed-reason": "" if pushed else not_pushed,
        "json": json_output(document, report_rel) if document is not None else "",
    }


def outputs_without_manifest(consistent: bool, report_rel: str, *, branch: str = "",
                             not_pushed: str = "",
                             document: Mapping[str, object] | None = None) -> dict[str, str]:
    """The step outputs of a mode that renders no manifest and pushes nothing (audit,
    preflight); `json` only when there is a JSON report (`document`)."""
    values = {
        "consistent": "true" if consistent else "false",
        "products": "",
        "binary-targets": "",
        "report": report_rel,
        "manifest": "",
        "branch": branch,
        "pushed": "false",
        "not-pushed-reason": not_pushed,
    }
    if document is not None:
        values["json"] = json_output(document, report_rel)
    return values


#: GitHub takes up to 1 MB per step output; the report inline stays below this, else the
#: output is a small stand-in that says so and where the whole report is.
JSON_OUTPUT_MAX_BYTES = 900_000


def json_output(document: Mapping[str, object], report_rel: str) -> str:
    """The JSON report on one line, or past JSON_OUTPUT_MAX_BYTES a stand-in with
    `truncated: true`, its size, the verdict and the report file's path."""
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
    size = len(text.encode("utf-8"))
    if size <= JSON_OUTPUT_MAX_BYTES:
        return text
    keep = ("schema_version", "kind", "tool", "consistent", "version")
    stand_in = {key: document[key] for key in keep if key in document}
    stand_in.update(truncated=True, bytes=size, report=report_rel)
    return json.dumps(stand_in, ensure_ascii=False, separators=(",", ":"))


def log_findings(lines: Sequence[str]) -> None:
    for line in actions_io.plain(lines):
        print(line, file=sys.stderr, flush=True)
