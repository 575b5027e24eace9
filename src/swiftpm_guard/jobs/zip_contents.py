"""What each built zip holds, judged before anything is published (zip rules per artifact).

Wiring (check and publish with `--artifacts`): call `zip_content_findings(artifacts)` with the
artifacts `scan_artifact_dir` returned (their `origin.file` is the zip's path as shown, and
`root` resolves a relative one) and add the findings to the report's. A zip that cannot be
read is left to `zip-layout`, which already says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from swiftpm_guard.core.model import Artifact, Finding
from swiftpm_guard.core.zip_rules import content_findings
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
