"""Attestation subjects (pure): which bytes a run built, as `actions/attest-build-provenance`
takes them in its `subject-checksums` input.

GitHub's artifact attestations sign a subject's SHA-256, which is exactly a SwiftPM binary
target's `checksum`: the file is the shasum format (`<hex>  <name>`, one subject a line, at
most 1024), one line per built zip and one per rendered manifest. A consumer checks a
downloaded zip (or the published Package.swift) with `gh attestation verify`.
"""

from __future__ import annotations

import hashlib
import shlex
from collections.abc import Iterable, Mapping, Sequence
from pathlib import PurePosixPath

from swiftpm_guard.core.manifest_files import manifest_of
from swiftpm_guard.core.model import SHA256_RE, Artifact, Rendered

#: The attest actions take at most this many subjects at once.
SUBJECTS_MAX = 1024
SUBJECTS_FILE = "attestation-subjects.txt"


def subject_lines(artifacts: Iterable[Artifact], version: str,
                  manifests: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """(sha256, name) per built zip (by its file name; a checksums file's `<name> <sha256>`
    line by `<name>-<version>.zip`) and per manifest `(path, text)`, zips sorted by name.
    Declared names (no checksum) and malformed checksums are not subjects."""
    subjects: dict[str, str] = {}
    for artifact in sorted(artifacts, key=lambda a: a.name):
        if artifact.sha256 is None or not SHA256_RE.fullmatch(artifact.sha256):
            continue
        name = artifact.file_name or f"{artifact.name}-{version}.zip"
        subjects.setdefault(name, artifact.sha256)
    for path, text in manifests:
        subjects.setdefault(path, hashlib.sha256(text.encode("utf-8")).hexdigest())
    return [(digest, name) for name, digest in subjects.items()]


def subjects_text(subjects: Sequence[tuple[str, str]]) -> str:
    """The `subject-checksums` file: `<hex>  <name>` lines (text mode flag: a space)."""
    return "".join(f"{digest}  {name}\n" for digest, name in subjects)


def verify_command(repository: str, subject: str) -> str:
    """The consumer's check of one downloaded subject against this repository's attestations."""
    return f"gh attestation verify {shlex.quote(subject)} --repo {shlex.quote(repository)}"


def subjects_of(built: Mapping[str, Artifact], version: str,
                rendered: Sequence[Rendered]) -> list[tuple[str, str]]:
    """A check's subjects: its built zips and the manifests it rendered from them."""
    manifests = [(published_path(r.template.path), r.text) for r in rendered]
    return subject_lines(built.values(), version, manifests)


def published_path(template: str) -> str:
    """Where a published branch holds the manifest of `template`: its path in the repository
    (a path outside it, as the CLI may name, by its file name: the branch's root)."""
    path = PurePosixPath(template.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts:
        path = PurePosixPath(path.name)
    return manifest_of(str(path))
