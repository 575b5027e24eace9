"""Repositories of published `swiftpm-*` branches in the real shape, built fast.

Every branch is a root commit holding `Package.swift` (the template of `release.py`,
substituted) and the stub folders, as the publish step leaves it. All branches are written
by one `git fast-import` process, so hundreds of branches take well under a second and no
work tree is ever checked out. `BranchSpec` says how a branch is broken, if at all.
"""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from support.release import BINARY_ONLY_KEYS, DEBUG, PRODUCT_KEYS, all_names, template_text
from swiftpm_guard.core.audit import PublishedBranch
from swiftpm_guard.core.names import validate_ref_glob
from swiftpm_guard.core.option_names import option
from swiftpm_guard.infra.git import Git
from swiftpm_guard.sources.published import (
    DEFAULT_PATTERN,
    GIT_TIMEOUT,
    opened_repository,
    read_branches,
)

STUB = b"// Wrapper target stub: SwiftPM needs a source.\n"


def checksum_for(name: str, version: str) -> str:
    """A distinct, well-formed SHA-256 per (name, version), as real builds produce."""
    return hashlib.sha256(f"{name}-{version}.zip".encode()).hexdigest()


@dataclass
class BranchSpec:
    version: str
    products: Sequence[str] = PRODUCT_KEYS
    binary_only: Sequence[str] = BINARY_ONLY_KEYS
    #: keys whose zips were built; the others' placeholders stay in the manifest
    built: Sequence[str] | None = None
    #: published checksum text per name, overriding the computed one
    checksums: dict[str, str] = field(default_factory=dict)
    #: what `__VERSION__` became (default: `version`)
    manifest_version: str | None = None
    stub_dir: str = ".Package.swift"
    #: names that get a stub folder (default: every product name and its debug twin)
    stubs: Sequence[str] | None = None
    #: stub folders that hold no source file (just a README.md)
    empty_stubs: Sequence[str] = ()
    #: more files, path → bytes (a `.DS_Store` in the stub root, say)
    extra_files: dict[str, bytes] = field(default_factory=dict)
    branch: str | None = None

    @property
    def branch_name(self) -> str:
        return self.branch or f"swiftpm-{self.version}"

    def checksum_of(self) -> dict[str, str]:
        keys = self.built if self.built is not None else [*self.products, *self.binary_only]
        values = {n: checksum_for(n, self.version) for n in all_names(keys)}
        values.update(self.checksums)
        return values

    def manifest(self) -> str:
        text = template_text(self.products, self.binary_only)
        text = text.replace("__VERSION__", self.manifest_version or self.version)
        for name, value in self.checksum_of().items():
            text = text.replace(f"__SHA256_{name}__", value)
        return text

    def files(self) -> dict[str, bytes]:
        files = {"Package.swift": self.manifest().encode()}
        names = self.stubs if self.stubs is not None else all_names(self.products)
        for name in names:
            if name in self.empty_stubs:
                files[f"{self.stub_dir}/{name}/README.md"] = b"stub\n"
            else:
                files[f"{self.stub_dir}/{name}/dummy.swift"] = STUB
        files.update(self.extra_files)
        return files


def _data(payload: bytes) -> bytes:
    return b"data %d\n" % len(payload) + payload + b"\n"


def fast_import_stream(branches: dict[str, dict[str, bytes]], message: dict[str, str]) -> bytes:
    """One fast-import stream: each distinct blob once, one root commit per branch."""
    marks: dict[bytes, int] = {}
    chunks: list[bytes] = []
    for files in branches.values():
        for content in files.values():
            if content not in marks:
                marks[content] = len(marks) + 1
                chunks.append(b"blob\nmark :%d\n" % marks[content] + _data(content))
    for stamp, (branch, files) in enumerate(branches.items()):
        chunks.append(f"commit refs/heads/{branch}\n".encode())
        chunks.append(b"committer Release Bot <bot@example.invalid> %d +0000\n"
                      % (1_700_000_000 + stamp))
        chunks.append(_data(message.get(branch, branch).encode()))
        for path, content in sorted(files.items()):
            chunks.append(f"M 100644 :{marks[content]} {path}\n".encode())
        chunks.append(b"\n")
    return b"".join(chunks)


def build_repo(path: Path, specs: Sequence[BranchSpec], *,
               others: dict[str, dict[str, bytes]] | None = None) -> Path:
    """A bare repository holding every spec's branch plus `others` (branch → files)."""
    subprocess.run(["git", "init", "--quiet", "--bare", str(path)], check=True)
    branches = {s.branch_name: s.files() for s in specs}
    messages = {s.branch_name: s.manifest_version or s.version for s in specs}
    if others is None:
        others = default_other_branches()
    branches.update(others)
    stream = fast_import_stream(branches, messages)
    subprocess.run(["git", "--git-dir", str(path), "fast-import", "--quiet"], input=stream,
                   check=True, timeout=120)
    return path


def default_other_branches() -> dict[str, dict[str, bytes]]:
    """`main`, the `swiftpm` template branch and a feature branch: none match `swiftpm-*`."""
    template = {"Package.swift.template": template_text().encode()}
    template.update({f".Package.swift/{n}/dummy.swift": STUB for n in all_names(PRODUCT_KEYS)})
    return {
        "main": {"README.md": b"# project\n"},
        "swiftpm": template,
        "feature/swiftpm-x": {"README.md": b"work in progress\n"},
    }


def nightly_versions(count: int, start: str = "20250509", base: str = "0.7.0") -> list[str]:
    """`count` consecutive daily nightly versions starting at the date `start` (YYYYMMDD)."""
    import datetime

    day = datetime.date(int(start[:4]), int(start[4:6]), int(start[6:]))
    return [f"{base}.{(day + datetime.timedelta(days=i)):%Y%m%d}" for i in range(count)]


__all__ = ["DEBUG", "BranchSpec", "build_repo", "checksum_for", "nightly_versions"]


def read_published_branches(repo: str, pattern: str = DEFAULT_PATTERN, *, git: Git,
                            timeout: float = GIT_TIMEOUT,
                            config: Sequence[tuple[str, str]] = ()) -> list[PublishedBranch]:
    """The matching branches as the audit reads them, without their tip commits."""
    validate_ref_glob(pattern, option("branches"))
    with opened_repository(repo, pattern, git=git, timeout=timeout, config=config) as opened:
        return read_branches(opened, pattern, timeout=timeout)
