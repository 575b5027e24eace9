"""Files from another branch: the template (and stubs) or a workflow, read from a git ref.

Two readers with one shape: the workspace clone (`git`, fetching `origin/<ref>` when the
checkout did not), and GitHub's contents API when there is no usable clone. Either way the
files are copied into a scratch folder and then read by the same loaders as local files, with
display names that are the paths inside the ref, so findings point at repository lines.
Stub files are copied as empty files: only their names and kinds matter to the checks.
"""

from __future__ import annotations

import os
import posixpath
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Protocol

from swiftpm_guard.core.model import Finding, Severity, Template
from swiftpm_guard.core.text_lines import split_lines
from swiftpm_guard.errors import InfrastructureError, InputError, UsageError, os_problem
from swiftpm_guard.infra.git import find_git, git_environment, run_git
from swiftpm_guard.limits import TEMPLATE_MAX_BYTES, WORKFLOW_MAX_BYTES
from swiftpm_guard.redact import redact_userinfo
from swiftpm_guard.sources.artifacts import DeclaredName
from swiftpm_guard.sources.template import STUB_DIRS, load_template
from swiftpm_guard.sources.workflow import read_workflow_frameworks
from swiftpm_guard.sources.workflow_spec import WorkflowSpec
from swiftpm_guard.workflow_commands import neutralise

#: A stub tree larger than this is not a stub tree.
TREE_MAX_ENTRIES = 10_000
_GIT_TIMEOUT = 120.0
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


# -- git --------------------------------------------------------------------------------------


class GitRef:
    """A ref of the workspace clone. `open` fetches `origin/<ref>` when it is missing."""

    def __init__(self, workspace: Path, commit: str, where: str) -> None:
        self.workspace = workspace
        self.commit = commit
        self._where = where

    @property
    def where(self) -> str:
        return self._where

    @classmethod
    def open(cls, workspace: Path, ref: str, log: Callable[[str], None]) -> GitRef | None:
        """The clone's `origin/<ref>`, fetched if absent; None (and a log line) if unusable."""
        if not (workspace / ".git").exists():
            log(f"swiftpm-guard: {workspace} is not a git clone; reading '{ref}' through the API")
            return None
        tracking = f"refs/remotes/origin/{ref}"
        commit = _rev_parse(workspace, tracking)
        if commit is None:
            shallow = _git(workspace, "rev-parse", "--is-shallow-repository")
            depth = ["--depth=1"] if shallow.stdout.strip() == b"true" else []
            fetched = _git(
                workspace,
                "fetch",
                "--no-tags",
                "--quiet",
                *depth,
                "origin",
                f"+refs/heads/{ref}:{tracking}",
            )
            if fetched.returncode != 0:
                lines = split_lines(fetched.stderr.decode("utf-8", "replace").strip())
                # git's last line may quote the origin URL (with a checkout's credentials) or
                # the remote's own text (`remote: …`): no userinfo, no workflow command.
                reason = neutralise(redact_userinfo(lines[-1])) if lines else (
                    f"exit {fetched.returncode}"
                )
                log(
                    f"swiftpm-guard: git fetch of '{ref}' failed ({reason}); "
                    "reading it through the API"
                )
                return None
            commit = _rev_parse(workspace, tracking)
        if commit is None:
            return None
        return cls(workspace, commit, f"origin/{ref}")

    def read(self, path: str, *, max_bytes: int, what: str) -> bytes:
        listed = _git(self.workspace, "ls-tree", "-z", "-l", self.commit, "--", path)
        entry = listed.stdout.split(b"\0")[0]
        if listed.returncode != 0 or not entry:
            raise InputError(f"{what} not found in {self.where}", file=path)
        meta, _, _name = entry.decode("utf-8", "replace").partition("\t")
        _mode, kind, sha, size = meta.split()
        if kind != "blob":
            raise InputError(f"{what} is a {kind} in {self.where}, expected a file", file=path)
        if int(size) > max_bytes:
            raise InputError(
                f"{what} is larger than {max_bytes} bytes; refusing to read it", file=path
            )
        blob = _git(self.workspace, "cat-file", "blob", sha)
        if blob.returncode != 0:
            raise InputError(f"cannot read {what} from {self.where}", file=path)
        return blob.stdout

    def kind(self, path: str) -> str | None:
        listed = _git(self.workspace, "ls-tree", "-z", self.commit, "--", path.rstrip("/"))
        entry = listed.stdout.split(b"\0")[0]
        if listed.returncode != 0 or not entry:
            return None
        mode, kind, _rest = entry.decode("utf-8", "replace").split(" ", 2)
        return _kind(mode, kind)

    def tree(self, folder: str) -> list[TreeEntry] | None:
        listed = _git(
            self.workspace, "ls-tree", "-r", "-t", "-z", self.commit, "--", folder.rstrip("/") + "/"
        )
        if listed.returncode != 0:
            return None
        entries = []
        for raw in filter(None, listed.stdout.split(b"\0")):
            meta, _, path = raw.decode("utf-8", "replace").partition("\t")
            mode, kind, _sha = meta.split()
            entries.append(TreeEntry(path, _kind(mode, kind)))
            if len(entries) > TREE_MAX_ENTRIES:
                raise InputError(
                    f"more than {TREE_MAX_ENTRIES} entries under {folder} in "
                    f"{self.where}; not a stub folder",
                    file=folder,
                )
        return entries or None


def _kind(mode: str, kind: str) -> str:
    if kind == "tree":
        return "dir"
    if kind == "commit":
        return "submodule"
    return "symlink" if mode == "120000" else "file"


def _git(workspace: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    root = str(workspace.resolve())
    # The runner's workspace belongs to another user (uid 1001) than the container's root:
    # vouch for it in git's command-line scope, through the environment (see infra.git).
    # The clone's own config may hold a token (actions/checkout persists one as an
    # extraHeader by default): a redirect from origin must not carry it to another host.
    env = git_environment(
        {**os.environ, "LC_ALL": "C"},
        safe_directories=[root],
        config=[("http.followRedirects", "false")],
    )
    # The job's PATH may not lead to git in the container (the runner passes it through).
    try:
        git = find_git(env.get("PATH"))
    except InfrastructureError as error:
        return subprocess.CompletedProcess(["git", *args], 128, b"", str(error).encode())
    command = [git, "-C", root, *args]
    try:
        return run_git(command, env=env, timeout=_GIT_TIMEOUT)
    except InfrastructureError as error:  # a timeout or no git: judged like a git failure
        return subprocess.CompletedProcess(command, 128, b"", str(error).encode())


def workspace_origin(workspace: Path) -> str | None:
    """The URL (or path) of the workspace clone's `origin`, None without a clone or origin."""
    if not (workspace / ".git").exists():
        return None
    done = _git(workspace, "remote", "get-url", "origin")
    url = done.stdout.decode("utf-8", "replace").strip()
    return url if done.returncode == 0 and url else None


def _rev_parse(workspace: Path, ref: str) -> str | None:
    done = _git(workspace, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    sha = done.stdout.decode().strip()
    return sha if done.returncode == 0 and sha else None


# -- materializing and loading ----------------------------------------------------------------


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


def workspace_branches(workspace: Path) -> list[str] | None:
    """Branch names of the workspace clone's `origin` (`git ls-remote --heads`), None when
    there is no clone or git cannot ask (then the API lists them)."""
    if not (workspace / ".git").exists():
        return None
    listed = _git(workspace, "ls-remote", "--heads", "origin")
    if listed.returncode != 0:
        return None
    names = []
    for line in listed.stdout.decode("utf-8", "replace").splitlines():
        _sha, _tab, ref = line.partition("\t")
        if ref.startswith("refs/heads/"):
            names.append(ref.removeprefix("refs/heads/"))
    return sorted(names)
