"""Files from another branch: the template (and stubs) or a workflow, read from a git ref.

Two readers with one shape (`RefReader`): the workspace clone (`sources.workspace_clone`,
fetching `origin/<ref>` when the checkout did not), and GitHub's contents API when there is no
usable clone (`sources.contents_api`). Either way the files are copied into a scratch folder
and then read by the same loaders as local files, with display names that are the paths
inside the ref, so findings point at repository lines. Stub files are copied as empty files:
only their names and kinds matter to the checks.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Protocol

from swiftpm_guard.core.model import Finding, Severity, Template
from swiftpm_guard.errors import InputError, UsageError, os_problem
from swiftpm_guard.limits import TEMPLATE_MAX_BYTES, WORKFLOW_MAX_BYTES
from swiftpm_guard.sources.artifacts import DeclaredName
from swiftpm_guard.sources.template import STUB_DIRS, load_template
from swiftpm_guard.sources.workflow import read_workflow_frameworks
from swiftpm_guard.sources.workflow_spec import WorkflowSpec

#: A stub tree larger than this is not a stub tree.
TREE_MAX_ENTRIES = 10_000
_REF_RE = re.compile(r"[A-Za-z0-9._/+-]+")


def validate_ref(value: str, what: str) -> str:
    """A branch name git would accept and that cannot become an option or escape a path."""
    bad = (
        not _REF_RE.fullmatch(value)
        or value.startswith(("-", "/", "."))
        or ".." in value
        or "//" in value
        or value.endswith(("/", ".", ".lock"))
        or "/." in value
        or len(value) > 255
    )
    if bad:
        raise UsageError(f"{what} {value!r} is not a valid branch name")
    return value


def relative_path(value: str, what: str) -> str:
    """A POSIX path inside the repository: relative, no `..`, no control characters."""
    path = PurePosixPath(value)
    if (
        not value
        or path.is_absolute()
        or ".." in path.parts
        or len(value) > 4096
        or any(ord(c) < 32 for c in value)
    ):
        raise UsageError(f"{what} {value!r} must be a relative path inside the repository")
    return str(path)


@dataclass(frozen=True, slots=True)
class TreeEntry:
    path: str  # POSIX, relative to the repository root
    kind: str  # "file", "dir", "symlink" or "submodule"


class RefReader(Protocol):
    """Read-only access to one ref of the repository."""

    @property
    def where(self) -> str: ...

    def read(self, path: str, *, max_bytes: int, what: str) -> bytes: ...

    def tree(self, folder: str) -> list[TreeEntry] | None: ...

    def kind(self, path: str) -> str | None:
        """"file", "dir", "symlink" or "submodule" for `path` itself; None when absent."""
        ...


def _inside(root: Path, path: str) -> Path:
    parts = PurePosixPath(path).parts
    if not parts or PurePosixPath(path).is_absolute() or ".." in parts:
        raise InputError("unsafe path in the repository tree", file=path)
    return root.joinpath(*parts)


def materialize(entries: list[TreeEntry], root: Path) -> None:
    """Folders and (empty) regular files; symlinks and submodules only leave their folder."""
    for entry in entries:
        target = _inside(root, entry.path)
        try:
            if entry.kind == "dir":
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if entry.kind == "file":
                target.touch()
        except (OSError, ValueError) as error:
            # A name git stores but this file system cannot hold (ENAMETOOLONG): bad input.
            raise InputError(f"path in the repository tree {os_problem(error)}",
                             file=_clip(entry.path)) from None


def _clip(path: str) -> str:
    return path if len(path) <= 120 else path[:117] + "..."


def _write(local: Path, data: bytes, shown: str) -> None:
    try:
        local.parent.mkdir(parents=True, exist_ok=True)
        local.write_bytes(data)
    except (OSError, ValueError) as error:
        raise InputError(f"path {os_problem(error)}", file=_clip(shown)) from None


def load_template_from_ref(
    reader: RefReader, template: str, scratch: Path
) -> tuple[Template, list[Finding]]:
    """The template at `template` in the ref, with its stub folders, shown by its ref path."""
    data = reader.read(template, max_bytes=TEMPLATE_MAX_BYTES, what="template")
    local = _inside(scratch, template)
    _write(local, data, template)
    parent = posixpath.dirname(template)
    links: list[Finding] = []
    for name in STUB_DIRS:
        root = posixpath.join(parent, name) if parent else name
        entries = reader.tree(root)
        if entries is None and reader.kind(root) == "symlink":
            # The stub root itself stored as a link: never followed, named.
            links = [_link_finding(root, reader.where, "the stub root")]
            break
        if entries is not None:
            materialize(entries, scratch)
            links = [_link_finding(e.path, reader.where, "stub folder") for e in entries
                     if e.kind == "symlink" and posixpath.dirname(e.path) == root]
            break
    loaded, findings = load_template(local, display=template)
    return loaded, [*findings, *links]


def _link_finding(path: str, where: str, what: str) -> Finding:
    """A stub folder (or root) stored as a symbolic link: never followed, named to be fixed."""
    name = posixpath.basename(path)
    return Finding(
        code="stub-symlink", severity=Severity.ERROR, subject=name, file=path,
        message=f"{what} '{name}' is a symbolic link in {where}; not followed (SwiftPM "
                "would compile whatever it points at)",
    )


def read_workflow_from_ref(
    reader: RefReader, spec: WorkflowSpec, scratch: Path
) -> list[DeclaredName]:
    data = reader.read(spec.path, max_bytes=WORKFLOW_MAX_BYTES, what="workflow")
    local = _inside(scratch, spec.path)
    _write(local, data, spec.path)
    return read_workflow_frameworks(spec, root=scratch, display=spec.path)
