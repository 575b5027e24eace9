"""What each built zip holds, judged before anything is published (zip rules per artifact).

`scan_zip_folder` is how every job reads a folder of built zips: `scan_artifact_dir` (hashes,
layout) plus these rules on each zip it found, so check, render, publish and the action judge
the same things. A zip that cannot be read is left to `zip-layout`, which already says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from swiftpm_guard.core.model import Artifact, Finding, Severity
from swiftpm_guard.core.zip_rules import content_findings
from swiftpm_guard.sources.artifacts import scan_artifact_dir
from swiftpm_guard.sources.zip_contents import UnreadableZip, read_zip_contents


def scan_zip_folder(folder: Path, *, display: str | None = None
                    ) -> tuple[list[Artifact], list[Finding]]:
    """The zips of `folder` as artifacts, with the layout and content findings of each."""
    artifacts, findings = scan_artifact_dir(folder, display=display)
    signatures: list[Finding] = []
    for artifact in artifacts:
        if artifact.file_name is not None:
            judged = _judge(folder / artifact.file_name, artifact)
            signatures += [f for f in judged if f.code == "zip-signature"]
            findings += [f for f in judged if f.code != "zip-signature"]
    mixed = signature_summary(signatures, display or str(folder))
    return artifacts, [*findings, *([mixed] if mixed else [])]


def signature_summary(notices: Sequence[Finding], folder: str) -> Finding | None:
    """One notice for the folder when some zips are code-signed and others are not (a build
    that lost signing on some frameworks); all or none signed is the release's own choice and
    says nothing. A signature broken by flattened symlinks is `zip-symlinks`' business."""
    unsigned = sorted(f.file.rsplit("/", 1)[-1] for f in notices
                      if f.file and "not code-signed" in f.message)
    if not unsigned or len(unsigned) == len(notices):
        return None
    shown = ", ".join(unsigned[:5]) + (", …" if len(unsigned) > 5 else "")
    message = (f"{len(unsigned)} of {len(notices)} zips carry no code signature "
               f"(_CodeSignature/) while the others do: {shown}")
    return Finding(code="zip-signature", severity=Severity.NOTICE, subject=folder,
                   message=message, file=folder)


def zip_content_findings(artifacts: Sequence[Artifact], root: Path | None = None) -> list[Finding]:
    """The content findings of artifacts whose `origin.file` is their zip (relative to `root`)."""
    found: list[Finding] = []
    for artifact in artifacts:
        if artifact.file_name is None or not artifact.file_name.endswith(".zip"):
            continue  # from a checksums file or a declared list: no zip to look into
        path = Path(artifact.origin.file)
        if root is not None and not path.is_absolute():
            path = root / path
        found += _judge(path, artifact)
    return found


def _judge(path: Path, artifact: Artifact) -> list[Finding]:
    try:
        contents = read_zip_contents(path)
    except UnreadableZip:
        return []
    return content_findings(contents, artifact.origin.file, artifact.name)
