"""Another ref of this repository: its files, read with git from the workspace clone or through
GitHub's contents API, and the template or workflow loaded from them.

Two readers with one shape (`RefReader`): the workspace clone (fetching `origin/<ref>` when the
checkout did not), and the contents API when there is no usable clone. Either way the files
are copied into a scratch folder and then read by the same loaders as local files, with display
names that are the paths inside the ref, so findings point at repository lines. Stub files are
copied as empty files: only their names and kinds matter to the checks."""

from __future__ import annotations

import os
import posixpath
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Protocol

from swiftpm_guard.core.lines import split_lines
from swiftpm_guard.core.manifest_files import ManifestSet, manifest_set
from swiftpm_guard.core.model import Finding, Severity, Template
from swiftpm_guard.core.names import ALL_KINDS, Remote, WorkflowSpec, strip_userinfo
from swiftpm_guard.errors import InfrastructureError, InputError, Missing, UsageError, os_problem
from swiftpm_guard.infra.git import GitSetup, run_git
from swiftpm_guard.infra.github import GitHubApiError, RetryPolicy, call
from swiftpm_guard.limits import TEMPLATE_MAX_BYTES, WORKFLOW_MAX_BYTES
from swiftpm_guard.redact import redact_userinfo
from swiftpm_guard.sources.artifacts import DeclaredName
from swiftpm_guard.sources.template import STUB_DIRS, load_template
from swiftpm_guard.sources.workflow import read_workflow_frameworks
from swiftpm_guard.workflow_commands import neutralise

if TYPE_CHECKING:
    from swiftpm_guard.infra.github import ContentFile, GitHubSession, Repository


#: A stub tree larger than this is not a stub tree.
TREE_MAX_ENTRIES = 10_000


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

    def listing(self, folder: str) -> list[TreeEntry]:
        """The entries directly in `folder` ("" is the root); none when it is absent."""
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


def manifests_in_ref(reader: RefReader, templates: Sequence[str]) -> ManifestSet:
    """The named templates and the version-specific templates and manifests beside the named
    `Package.swift` ones in the ref (core.manifest_files)."""
    entries = [(entry.path, entry.kind)
               for folder in dict.fromkeys(posixpath.dirname(t) for t in templates)
               for entry in reader.listing(folder)]
    return manifest_set(templates, entries)


def load_template_from_ref(
    reader: RefReader, template: str, scratch: Path, *, verbatim: bool = False
) -> tuple[Template, list[Finding]]:
    """The template at `template` in the ref, with its stub folders, shown by its ref path;
    `verbatim`: a version-specific manifest published as it is (sources.template)."""
    data = reader.read(template, max_bytes=TEMPLATE_MAX_BYTES,
                       what="manifest" if verbatim else "template")
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
    loaded, findings = load_template(local, display=template, verbatim=verbatim)
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


_GIT_TIMEOUT = 120.0


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
            log(f"{workspace} is not a git clone; reading '{ref}' through the API")
            return None
        tracking = f"refs/remotes/origin/{ref}"
        commit = _rev_parse(workspace, tracking)
        origin = _origin_for_git(workspace) if commit is None else None
        if commit is None and origin is None:
            log(f"the workspace clone has no usable origin; reading '{ref}' through the API")
            return None
        if commit is None and origin is not None:
            shallow = _git(workspace, "rev-parse", "--is-shallow-repository")
            depth = ["--depth=1"] if shallow.stdout.strip() == b"true" else []
            fetched = _git(workspace, "fetch", "--no-tags", "--quiet", "--no-recurse-submodules",
                           "--no-write-fetch-head", *depth, origin,
                           f"+refs/heads/{ref}:{tracking}")
            if fetched.returncode != 0:
                lines = split_lines(fetched.stderr.decode("utf-8", "replace").strip())
                # git's last line may quote the origin URL (with a checkout's credentials) or
                # the remote's own text (`remote: …`): no userinfo, no workflow command.
                reason = neutralise(redact_userinfo(lines[-1])) if lines else (
                    f"exit {fetched.returncode}"
                )
                log(
                    f"git fetch of '{ref}' failed ({reason}); "
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
            raise Missing(f"{what} not found in {self.where}", file=path)
        meta, _, _name = entry.decode("utf-8", "replace").partition("\t")
        _mode, kind, sha, size = meta.split()
        if kind != "blob":
            raise InputError(f"{what} is a {kind} in {self.where}, expected a file", file=path)
        if int(size) > max_bytes:
            raise InputError(f"{what} is larger than {max_bytes} bytes; refusing to read it",
                             file=path)
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
        listed = _git(self.workspace, "ls-tree", "-r", "-t", "-z", self.commit, "--",
                      folder.rstrip("/") + "/")
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

    def listing(self, folder: str) -> list[TreeEntry]:
        where = [folder.rstrip("/") + "/"] if folder else []
        listed = _git(self.workspace, "ls-tree", "-z", self.commit, "--", *where)
        if listed.returncode != 0:
            return []
        entries = []
        for raw in filter(None, listed.stdout.split(b"\0")):
            meta, _, path = raw.decode("utf-8", "replace").partition("\t")
            mode, kind, _sha = meta.split()
            entries.append(TreeEntry(path, _kind(mode, kind)))
        return entries


def _kind(mode: str, kind: str) -> str:
    if kind == "tree":
        return "dir"
    if kind == "commit":
        return "submodule"
    return "symlink" if mode == "120000" else "file"


def _git(workspace: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """git in the workspace clone, whose .git/config an earlier step of the job may have
    written: infra.git's environment (no token, no hook, no program from that config) and
    `safe.directory` for exactly this folder (the runner's workspace belongs to uid 1001, the
    container's git runs as root). The clone's config may hold a token (actions/checkout
    persists one as an extraHeader by default): a redirect from origin must not carry it."""
    root = str(workspace.resolve())
    setup = GitSetup(environ=os.environ, safe_directories=(root,),
                     config=(("http.followRedirects", "false"),))
    command = ["-C", root, *args]
    try:
        return run_git(command, setup, timeout=_GIT_TIMEOUT)
    except InfrastructureError as error:  # a timeout or no git: judged like a git failure
        return subprocess.CompletedProcess(command, 128, b"", str(error).encode())


def workspace_origin(workspace: Path) -> str | None:
    """The URL (or path) of the workspace clone's `origin`, None without a clone or origin."""
    if not (workspace / ".git").exists():
        return None
    done = _git(workspace, "remote", "get-url", "origin")
    url = done.stdout.decode("utf-8", "replace").strip()
    return url if done.returncode == 0 and url else None


def _origin_for_git(workspace: Path) -> str | None:
    """origin's URL as git is given it: by URL, never by the remote's name, so that
    `remote.origin.uploadpack`, `.vcs` or `.proxy` in the clone's config play no part."""
    url = workspace_origin(workspace)
    if url is None:
        return None
    try:
        # Read as git reads it (a helper `ext::…` or an option is refused); a userinfo the
        # checkout wrote into it is that checkout's own credential path, so it stays.
        Remote.parse(strip_userinfo(url)[0], cwd=str(workspace), option="origin",
                     kinds=ALL_KINDS)
    except UsageError:
        return None
    return url


def _rev_parse(workspace: Path, ref: str) -> str | None:
    done = _git(workspace, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    sha = done.stdout.decode().strip()
    return sha if done.returncode == 0 and sha else None


def workspace_branches(workspace: Path) -> list[str] | None:
    """Branch names of the workspace clone's `origin` (`git ls-remote --heads`), None when
    there is no clone or git cannot ask (then the API lists them)."""
    if not (workspace / ".git").exists():
        return None
    origin = _origin_for_git(workspace)
    if origin is None:
        return None
    listed = _git(workspace, "ls-remote", "--heads", origin)
    if listed.returncode != 0:
        return None
    names = []
    for line in listed.stdout.decode("utf-8", "replace").splitlines():
        _sha, _tab, ref = line.partition("\t")
        if ref.startswith("refs/heads/"):
            names.append(ref.removeprefix("refs/heads/"))
    return sorted(names)


#: Folder listings one tree walk may request (a stub tree has one folder per product).
TREE_MAX_REQUESTS = 200
_KINDS = {"file": "file", "dir": "dir", "symlink": "symlink", "submodule": "submodule"}


class ContentsRef:
    def __init__(self, repo: Repository, ref: str, policy: RetryPolicy) -> None:
        self.repo = repo
        self.ref = ref
        self.policy = policy

    @property
    def where(self) -> str:
        return f"'{self.ref}' (contents API)"

    def _get(self, path: str) -> list[ContentFile] | ContentFile | None:
        try:
            return call(self.policy, f"read {path} at {self.ref}",
                        lambda: self.repo.get_contents(path, ref=self.ref))
        except GitHubApiError as error:
            if error.status == 404:
                return None
            raise

    def read(self, path: str, *, max_bytes: int, what: str) -> bytes:
        found = self._get(path)
        if found is None:
            raise Missing(f"{what} not found in {self.where}", file=path)
        if isinstance(found, list) or found.type != "file":
            raise InputError(f"{what} is not a file in {self.where}", file=path)
        if found.size > max_bytes:
            raise InputError(f"{what} is larger than {max_bytes} bytes; refusing to read it",
                             file=path)
        if found.encoding != "base64":
            raise InputError(f"{what} is too large for the contents API", file=path)
        return found.decoded_content

    def kind(self, path: str) -> str | None:
        found = self._get(path.rstrip("/"))
        if found is None:
            return None
        if isinstance(found, list):
            return "dir"
        # The API answers a link to a file with that file; only other links say "symlink".
        return _KINDS.get(found.type, "file")

    def listing(self, folder: str) -> list[TreeEntry]:
        found = self._get(folder.rstrip("/"))
        if not isinstance(found, list):
            return []
        return [TreeEntry(item.path, _KINDS.get(item.type, "file")) for item in found]

    def tree(self, folder: str) -> list[TreeEntry] | None:
        entries: list[TreeEntry] = []
        pending = [folder.rstrip("/")]
        requests = 0
        while pending:
            current = pending.pop()
            requests += 1
            if requests > TREE_MAX_REQUESTS or len(entries) > TREE_MAX_ENTRIES:
                raise InputError(
                    f"too many folders under {folder} in {self.where}; not a stub folder",
                    file=folder,
                )
            listing = self._get(current)
            if listing is None or not isinstance(listing, list):
                if current == folder.rstrip("/"):
                    return None
                continue
            for item in listing:
                kind = _KINDS.get(item.type, "file")
                entries.append(TreeEntry(item.path, kind))
                if kind == "dir":
                    pending.append(item.path)
        return entries


def api_branches(repo: Repository, prefix: str, policy: RetryPolicy) -> list[str]:
    """Branch names under `prefix` (`release/`) through the git refs API."""
    def listed() -> list[str]:
        refs = repo.get_git_matching_refs(f"heads/{prefix}")
        return [r.ref.removeprefix("refs/heads/") for r in refs]

    return sorted(call(policy, f"list the branches under {prefix or '/'}", listed))


class Checkout:
    """The working tree a job runs in (a clone, or a folder that is none) and, when there is a
    session, the GitHub API serving the same repository: other refs are read from the clone,
    else through the API."""

    def __init__(self, root: Path, *, github: GitHubSession | None = None,
                 default_branch: str | None = None,
                 log: Callable[[str], None] = lambda _line: None) -> None:
        self.root = root
        self.github = github
        self._default_branch = default_branch
        self.log = log

    def reader(self, ref: str) -> RefReader:
        """A ref of this repository: the clone's (fetched if absent), else the API's."""
        found = GitRef.open(self.root, ref, self.log)
        if found is not None:
            return found
        if self.github is None:
            raise InputError(f"cannot read '{ref}': {self.root} is not a git clone that has it "
                             "(and no GitHub API to ask)")
        return ContentsRef(self.github.repo, ref, self.github.policy)

    def default_branch(self) -> str:
        """The repository's default branch: from the event when it says, else the API."""
        if self._default_branch:
            return self._default_branch
        github = self.github
        if github is None:
            raise InputError("cannot tell the repository's default branch: name the ref")
        self._default_branch = call(github.policy, "read the repository's default branch",
                                    lambda: github.repo.default_branch)
        return self._default_branch

    def branches(self, globs: Sequence[str]) -> list[str]:
        """The remote's branch names (for matching `globs`): from the clone, else the API."""
        names = workspace_branches(self.root)
        if names is not None or self.github is None:
            return names or []
        found: set[str] = set()
        for pattern in globs:
            head = pattern[: min(pattern.find(c) for c in "*?[" if c in pattern)]
            found.update(api_branches(self.github.repo, head[: head.rfind("/") + 1],
                                      self.github.policy))
        return sorted(found)

    def origin(self) -> str | None:
        return workspace_origin(self.root)

    def commit_day(self, branch: str) -> str | None:
        """The day (YYYY-MM-DD) of `branch`'s newest commit: when a release line last
        published. None when neither the clone nor the API can tell."""
        found = GitRef.open(self.root, branch, lambda _line: None)
        if found is not None:
            done = _git(self.root, "show", "-s", "--format=%cs", found.commit)
            day = done.stdout.decode("ascii", "replace").strip()
            return day if done.returncode == 0 and len(day) == 10 else None
        github = self.github
        if github is None:
            return None
        try:
            head = call(github.policy, f"read branch {branch}",
                        lambda: github.repo.get_branch(branch).commit.commit.committer.date)
        except GitHubApiError:
            return None
        return head.date().isoformat() if head is not None else None

    def blame(self, ref: str | None, path: str, line: int) -> Blame | None:
        """The commit that last changed `path:line` at `ref` (None: the working tree's HEAD).
        None when the clone cannot say for sure: no clone, or a shallow clone whose boundary
        commit git would name for every line."""
        if not (self.root / ".git").exists():
            return None
        commit = "HEAD"
        if ref is not None:
            found = GitRef.open(self.root, ref, lambda _line: None)
            if found is None:
                return None
            commit = found.commit
        done = _git(self.root, "blame", "--root", "--porcelain", "-L", f"{line},{line}",
                    commit, "--", path)
        if done.returncode != 0 or not done.stdout:
            return None
        head, *fields = done.stdout.decode("utf-8", "replace").splitlines()
        sha = head.split(" ", 1)[0]
        if _rev_parse(self.root, f"{sha}^") is None and _git(
                self.root, "rev-parse", "--is-shallow-repository").stdout.strip() != b"false":
            return None  # a shallow clone's cut, not who wrote the line: do not guess
        subject = next((f.removeprefix("summary ") for f in fields
                        if f.startswith("summary ")), "")
        return Blame(sha, neutralise(subject[:200]))

    def removal(self, ref: str | None, path: str, text: str) -> Blame | None:
        """The commit that last removed `text` from `path` at `ref` (None: HEAD): blame's
        counterpart for a line that is gone. None when the clone cannot say for sure."""
        if not (self.root / ".git").exists():
            return None
        commit = "HEAD"
        if ref is not None:
            found = GitRef.open(self.root, ref, lambda _line: None)
            if found is None:
                return None
            commit = found.commit
        done = _git(self.root, "log", "-1", "--no-renames", "--format=%H%x00%s",
                    f"-S{text}", commit, "--", path)
        head = done.stdout.decode("utf-8", "replace").strip()
        if done.returncode != 0 or "\x00" not in head:
            return None
        sha, subject = head.split("\x00", 1)
        if _rev_parse(self.root, f"{sha}^") is None:
            return None  # a root or a shallow boundary adds lines; it removed none
        shown = _git(self.root, "cat-file", "-p", f"{commit}:{path}")
        if shown.returncode != 0 or text.encode() in shown.stdout:
            return None  # still there: the newest change added it
        return Blame(sha, neutralise(subject[:200]))


@dataclass(frozen=True, slots=True)
class Blame:
    commit: str
    subject: str
