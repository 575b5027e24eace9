"""What each built zip holds, judged before anything is published (zip rules per artifact).

Wiring (check and publish with `--artifacts`): `with_zip_contents(outcome, artifacts,
warn=…)` with the artifacts `scan_artifact_dir` returned (their `origin.file` is the zip's
path as shown; `root` resolves a relative one). A zip that cannot be read is left to
`zip-layout`, which already says so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from swiftpm_guard.core.checks import apply_warn
from swiftpm_guard.core.model import Artifact, Finding
from swiftpm_guard.core.zip_rules import content_findings
from swiftpm_guard.jobs.check import Outcome
from swiftpm_guard.sources.zip_contents import UnreadableZip, read_zip_contents


def zip_content_findings(artifacts: Sequence[Artifact], root: Path | None = None) -> list[Finding]:
    found: list[Finding] = []
    for artifact in artifacts:
        if artifact.file_name is None or not artifact.file_name.endswith(".zip"):
            continue  # from a checksums file or a declared list: no zip to look into
        path = Path(artifact.origin.file)
        if root is not None and not path.is_absolute():
            path = root / path
        try:
            contents = read_zip_contents(path)
        except UnreadableZip:
            continue
        found += content_findings(contents, artifact.origin.file, artifact.name)
    return found


def with_zip_contents(outcome: Outcome, artifacts: Sequence[Artifact], *,
                      root: Path | None = None, warn: frozenset[str] = frozenset()) -> Outcome:
    """The outcome with the zip content findings of every built zip added."""
    found = apply_warn(zip_content_findings(artifacts, root), warn)
    report = dataclasses.replace(outcome.report, findings=(*outcome.report.findings, *found))
    return dataclasses.replace(outcome, report=report)
