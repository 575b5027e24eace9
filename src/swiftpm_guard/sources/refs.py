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
import shutil
import stat
import tempfile
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Protocol

from swiftpm_guard.core.manifest_files import ManifestSet, manifest_set
from swiftpm_guard.core.model import Finding, Severity, Template
from swiftpm_guard.core.names import ALL_KINDS, Remote, WorkflowSpec, strip_userinfo
from swiftpm_guard.errors import (
    GitFailed,
    GitHubApiError,
    InfrastructureError,
    InputError,
    Missing,
    UsageError,
    os_problem,
)
from swiftpm_guard.infra.git import Git, TreeEntry, is_object_id
from swiftpm_guard.infra.github import RetryPolicy, call
from swiftpm_guard.infra.process import Done
from swiftpm_guard.limits import TEMPLATE_MAX_BYTES, WORKFLOW_MAX_BYTES
from swiftpm_guard.sources.artifacts import DeclaredName
from swiftpm_guard.sources.template import STUB_DIRS, load_template
from swiftpm_guard.workflow_commands import neutralise

if TYPE_CHECKING:
    from swiftpm_guard.infra.github import ContentFile, GitHubSession, Repository


#: A stub tree larger than this is not a stub tree.
TREE_MAX_ENTRIES = 10_000


@dataclass(frozen=True, slots=True)
class RefEntry:
    """What a RefReader lists, git's or the API's: a path (POSIX, from the repository root)
    and its kind, "file", "dir", "symlink" or "submodule" (infra.git.TreeEntry.what)."""

    path: str
    kind: str


class RefReader(Protocol):
    """Read-only access to one ref of the repository."""

    @property
    def where(self) -> str: ...

    def read(self, path: str, *, max_bytes: int, what: str) -> bytes: ...

    def tree(self, folder: str) -> list[RefEntry] | None: ...

    def kind(self, path: str) -> str | None:
        """"file", "dir", "symlink" or "submodule" for `path` itself; None when absent."""
        ...

    def listing(self, folder: str) -> list[RefEntry]:
        """The entries directly in `folder` ("" is the root); none when it is absent."""
        ...


def _inside(root: Path, path: str) -> Path:
    parts = PurePosixPath(path).parts
    if not parts or PurePosixPath(path).is_absolute() or ".." in parts:
        raise InputError("unsafe path in the repository tree", file=path)
    return root.joinpath(*parts)


def materialize(entries: list[RefEntry], root: Path) -> None:
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
    from swiftpm_guard.sources.workflow import read_workflow_frameworks  # PyYAML: only here

    data = reader.read(spec.path, max_bytes=WORKFLOW_MAX_BYTES, what="workflow")
    local = _inside(scratch, spec.path)
    _write(local, data, spec.path)
    return read_workflow_frameworks(spec, root=scratch, display=spec.path)


_GIT_TIMEOUT = 120.0
#: The clone's `shallow` list and `HEAD` are read as files, never bigger than this.
_CLONE_FILE_MAX_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Upstream:
    """Where the action reads other refs from: the repository by URL
    (`{GITHUB_SERVER_URL}/{GITHUB_REPOSITORY}.git`, never the clone's origin, which an earlier
    step of the job may have rewritten), the header git sends there, and the commit the event
    says the working tree holds."""

    url: str
    config: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    head: str | None = None


@dataclass(frozen=True, slots=True)
class _Source:
    """What reading other refs needs of the workspace clone, however it was learned."""

    url: str | None  # fetched by URL, never by a remote's name
    config: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    objects: Path | None = None  # the clone's object folder, borrowed read-only as data
    shallow: tuple[str, ...] = ()  # the clone's shallow cut, so that blame stops there
    head: str | None = None  # the commit the working tree holds
    tracking: Callable[[str], str | None] | None = None  # the CLI clone's own origin/<ref>
    user_config: bool = False  # a developer's credential helper may answer the fetch


class ScratchRefs:
    """Other refs read in two bare repositories of our own under a temporary folder, never
    with the workspace clone as git's repository: in the action the clone's config, hooks and
    attributes are an earlier step's to write, and git starts programs from them.

    `fetched` fetches from the upstream by URL and has no alternates (a fetch runs
    `git for-each-ref` in each alternate, which reads that repository's config). `read` never
    fetches; it borrows, read-only, the objects of `fetched` and of the clone (objects of an
    untrusted repository are data, gitsecurityboundary(7)), and the clone's shallow list as
    data, so a shallow cut gives no blame. Nothing is written into the clone. Every git is
    the run's `git` (its environment, its proxy) in one of these repositories.
    """

    def __init__(self, source: _Source, git: Git) -> None:
        self.source = source
        self._base = git
        self._folder: Path | None = None

    def _ready(self) -> Path:
        if self._folder is not None:
            return self._folder
        folder = Path(tempfile.mkdtemp(prefix="swiftpm-guard-refs-"))
        weakref.finalize(self, shutil.rmtree, folder, True)
        for name in ("fetched.git", "read.git"):
            try:
                self._git(None).output(["init", "--quiet", "--bare", "--template=",
                                        str(folder / name)], timeout=_GIT_TIMEOUT)
            except InfrastructureError as error:
                raise InfrastructureError("cannot make a scratch git repository: "
                                          f"{_why(error)}") from None
        borrowed = [folder / "fetched.git" / "objects"]
        if self.source.objects is not None:
            borrowed.append(self.source.objects)
        info = folder / "read.git" / "objects" / "info"
        info.mkdir(parents=True, exist_ok=True)
        (info / "alternates").write_text("".join(f"{path}\n" for path in borrowed))
        self._folder = folder
        self._sync_shallow()
        return folder

    def _git(self, git_dir: Path | None, config: Sequence[tuple[str, str]] = (),
             user_config: bool = False) -> Git:
        return self._base.derive(git_dir, config=config, user_config=user_config)

    @property
    def reader(self) -> Git:
        """git in the read repository (ours; the borrowed commit-graph and multi-pack index
        of the clone are ignored: they could lie about history)."""
        return self._git(self._ready() / "read.git",
                         config=(("core.commitGraph", "false"), ("core.multiPackIndex", "false")))

    def git(self, *args: str) -> Done:
        """git `args` in the read repository; a timeout or no git is judged like a git
        failure (exit 128)."""
        try:
            return self.reader.run(args, timeout=_GIT_TIMEOUT)
        except InfrastructureError as error:
            return Done(args, 128, b"", str(error).encode())

    def _remote(self) -> Git:
        source = self.source
        return self._git(self._ready() / "fetched.git",
                         config=(("http.followRedirects", "false"), *source.config),
                         user_config=source.user_config)

    def _sync_shallow(self) -> None:
        """The read repository's shallow list: the fetched one's and the clone's."""
        folder = self._ready()
        own = _object_ids(folder / "fetched.git" / "shallow") or ()
        cut = sorted({*own, *self.source.shallow})
        target = folder / "read.git" / "shallow"
        if cut:
            target.write_text("".join(f"{oid}\n" for oid in cut))
        else:
            target.unlink(missing_ok=True)

    def commit(self, ref: str, *, history: bool = False) -> tuple[str | None, str]:
        """The commit of the upstream's branch `ref` (the CLI clone's own `origin/<ref>`
        first); fetched as a tip only, unless `history` is asked for and the clone is not
        shallow itself. (None, why) when it cannot be had."""
        source = self.source
        if source.tracking is not None:
            known = source.tracking(ref)  # with its history, in the clone's own objects
            if known is not None:
                return known, ""
        if source.url is None:
            return None, "no origin to fetch from"
        local = f"refs/heads/{ref}"
        whole = history and source.objects is not None and not source.shallow
        depth = ["--depth=2147483647"] if whole else ["--depth=1"]
        try:
            self._remote().output(["fetch", "--no-tags", "--quiet", "--no-recurse-submodules",
                                   "--no-write-fetch-head", *depth, "--end-of-options",
                                   source.url, f"+{local}:{local}"], timeout=_GIT_TIMEOUT)
            self._sync_shallow()
            sha = self._git(self._ready() / "fetched.git").rev_parse(f"{local}^{{commit}}",
                                                                     timeout=_GIT_TIMEOUT)
        except InfrastructureError as error:
            return None, _why(error)
        return (sha, "") if sha is not None else (None, "no commit")

    def heads(self) -> list[str] | None:
        """The upstream's branch names; None when git cannot ask."""
        if self.source.url is None:
            return None
        try:
            listed = self._remote().ls_remote(self.source.url, heads=True, timeout=_GIT_TIMEOUT)
        except InfrastructureError:
            return None
        return sorted(ref.removeprefix("refs/heads/") for ref in listed)


def _why(error: InfrastructureError) -> str:
    """Why git failed, as one line (infra.git.Git.last_line: no userinfo, no workflow
    command, which git's quoting of the URL or the remote's own text could hold)."""
    return error.line if isinstance(error, GitFailed) else neutralise(str(error))


def _small_file(path: Path) -> bytes | None:
    """A regular file of the clone read as data (never followed if it is a link); None when
    absent, not a regular file, or too big."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None
        data = handle.read(_CLONE_FILE_MAX_BYTES + 1)
    return data if len(data) <= _CLONE_FILE_MAX_BYTES else None


def _object_ids(path: Path) -> tuple[str, ...] | None:
    """The object ids of a file that lists one a line (`shallow`); () when it is absent,
    None when it is anything else."""
    if not path.exists() and not path.is_symlink():
        return ()
    data = _small_file(path)
    if data is None:
        return None
    lines = data.decode("ascii", "replace").split()
    return tuple(lines) if all(is_object_id(line) for line in lines) else None


def _action_source(root: Path, upstream: Upstream) -> _Source | None:
    """The action's: fetched from the upstream by URL; from the clone only its objects, its
    shallow list and a detached HEAD, read as files (a `.git` that is not a plain folder,
    or a shallow list that is not one, lends nothing)."""
    dot_git = root / ".git"
    if not dot_git.exists():
        return None
    objects: Path | None = None
    shallow: tuple[str, ...] = ()
    head = upstream.head
    if dot_git.is_dir() and not dot_git.is_symlink():
        listed = _object_ids(dot_git / "shallow")
        folder = dot_git / "objects"
        if listed is not None and folder.is_dir() and not folder.is_symlink():
            objects, shallow = folder, listed
        detached = (_small_file(dot_git / "HEAD") or b"").decode("ascii", "replace").strip()
        if is_object_id(detached):
            head = detached  # the checkout's own commit (a pull request's head, say)
    return _Source(upstream.url, upstream.config, objects, shallow, head)


def clone_git(git: Git, root: Path, *args: str) -> str | None:
    """`git` in a developer's own clone (the CLI's; never the action's): its output, or None."""
    mine = git.derive(safe_directories=(str(root.resolve()),))
    try:
        done = mine.run(["-C", str(root.resolve()), *args], timeout=_GIT_TIMEOUT)
    except InfrastructureError:
        return None
    text = done.stdout.decode("utf-8", "surrogateescape").strip()
    return text if done.returncode == 0 and text else None


def _cli_source(root: Path, git: Git) -> _Source | None:
    """The CLI's: the developer's own clone is theirs, so git reads it (through the same
    Git adapter): its origin, HEAD, object folder and `origin/<ref>` refs."""
    if not (root / ".git").exists():
        return None
    common = clone_git(git, root, "rev-parse", "--path-format=absolute", "--git-common-dir")
    if common is None:
        return None
    shallow = _object_ids(Path(common) / "shallow")

    def tracking(ref: str) -> str | None:
        return clone_git(git, root, "rev-parse", "--verify", "--quiet",
                         f"refs/remotes/origin/{ref}^{{commit}}")

    return _Source(clone_origin(git, root), (), Path(common) / "objects", shallow or (),
                   clone_git(git, root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"),
                   tracking, user_config=True)


def clone_origin(git: Git, root: Path) -> str | None:
    """The CLI clone's origin URL as git is given it: by URL, never by the remote's name."""
    url = clone_git(git, root, "remote", "get-url", "origin")
    if url is None:
        return None
    try:
        # Read as git reads it (a helper `ext::…` or an option is refused); a userinfo the
        # checkout wrote into it is that checkout's own credential path, so it stays.
        Remote.parse(strip_userinfo(url)[0], cwd=str(root), option="origin", kinds=ALL_KINDS)
    except UsageError:
        return None
    return url


class GitRef:
    """A ref of the repository, read from a commit in the scratch repositories."""

    def __init__(self, refs: ScratchRefs, commit: str, where: str) -> None:
        self.refs = refs
        self.commit = commit
        self._where = where

    @property
    def where(self) -> str:
        return self._where

    def _entries(self, *paths: str, **options: bool) -> list[TreeEntry] | None:
        """`git ls-tree` of the commit (infra.git); None when git fails."""
        try:
            return self.refs.reader.ls_tree(self.commit, *paths, timeout=_GIT_TIMEOUT,
                                            errors="replace", **options)
        except InfrastructureError:
            return None

    def read(self, path: str, *, max_bytes: int, what: str) -> bytes:
        entries = self._entries(path, sizes=True)
        if not entries:
            raise Missing(f"{what} not found in {self.where}", file=path)
        entry = entries[0]
        if entry.kind != "blob":
            raise InputError(f"{what} is a {entry.kind} in {self.where}, expected a file",
                             file=path)
        if (entry.size or 0) > max_bytes:
            raise InputError(f"{what} is larger than {max_bytes} bytes; refusing to read it",
                             file=path)
        try:
            blob = self.refs.reader.objects([entry.sha], timeout=_GIT_TIMEOUT).get(entry.sha)
        except InfrastructureError:
            blob = None
        if blob is None:
            raise InputError(f"cannot read {what} from {self.where}", file=path)
        return blob[1]

    def kind(self, path: str) -> str | None:
        entries = self._entries(path.rstrip("/"))
        return entries[0].what if entries else None

    def tree(self, folder: str) -> list[RefEntry] | None:
        entries = self._entries(folder.rstrip("/") + "/", recursive=True, trees=True)
        if entries is not None and len(entries) > TREE_MAX_ENTRIES:
            raise InputError(f"more than {TREE_MAX_ENTRIES} entries under {folder} in "
                             f"{self.where}; not a stub folder", file=folder)
        return [RefEntry(e.path, e.what) for e in entries or ()] or None

    def listing(self, folder: str) -> list[RefEntry]:
        where = [folder.rstrip("/") + "/"] if folder else []
        return [RefEntry(e.path, e.what) for e in self._entries(*where) or ()]


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

    def listing(self, folder: str) -> list[RefEntry]:
        found = self._get(folder.rstrip("/"))
        if not isinstance(found, list):
            return []
        return [RefEntry(item.path, _KINDS.get(item.type, "file")) for item in found]

    def tree(self, folder: str) -> list[RefEntry] | None:
        entries: list[RefEntry] = []
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
                entries.append(RefEntry(item.path, kind))
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
    session, the GitHub API serving the same repository: other refs are read with git (in
    scratch repositories: ScratchRefs) when the workspace is a clone, else through the API.

    The action names the repository (`upstream`): git fetches from that URL and borrows only
    the clone's objects. Without one (the CLI in a developer's own clone), the clone's origin,
    HEAD and `origin/<ref>` refs are read with git from the clone itself. `git` is the run's
    one Git (jobs.adapters), from which every git here derives."""

    def __init__(self, root: Path, *, git: Git, github: GitHubSession | None = None,
                 default_branch: str | None = None,
                 log: Callable[[str], None] = lambda _line: None,
                 upstream: Upstream | None = None) -> None:
        self.root = root
        self.git = git
        self.github = github
        self._default_branch = default_branch
        self.log = log
        self.upstream = upstream
        self._refs: ScratchRefs | None = None
        self._looked = False

    def scratch(self) -> ScratchRefs | None:
        """The scratch repositories, made on first use; None when the workspace is no clone."""
        if not self._looked:
            self._looked = True
            source = (_action_source(self.root, self.upstream) if self.upstream is not None
                      else _cli_source(self.root, self.git))
            self._refs = ScratchRefs(source, self.git) if source is not None else None
        return self._refs

    def git_ref(self, ref: str, log: Callable[[str], None] | None = None, *,
                history: bool = False) -> GitRef | None:
        """The upstream's branch `ref` read with git; None (and a log line) if unusable."""
        say = self.log if log is None else log
        refs = self.scratch()
        if refs is None:
            say(f"{self.root} is not a git clone; reading '{ref}' through the API")
            return None
        if refs.source.url is None and refs.source.tracking is None:
            say(f"the workspace clone has no usable origin; reading '{ref}' through the API")
            return None
        commit, why = refs.commit(ref, history=history)
        if commit is None:
            say(f"git fetch of '{ref}' failed ({why}); reading it through the API")
            return None
        return GitRef(refs, commit, f"origin/{ref}")

    def reader(self, ref: str) -> RefReader:
        """A ref of this repository: with git when the workspace is a clone, else the API."""
        found = self.git_ref(ref)
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
        """The remote's branch names (for matching `globs`): with git, else the API."""
        refs = self.scratch()
        names = refs.heads() if refs is not None else None
        if names is not None or self.github is None:
            return names or []
        found: set[str] = set()
        for pattern in globs:
            head = pattern[: min(pattern.find(c) for c in "*?[" if c in pattern)]
            found.update(api_branches(self.github.repo, head[: head.rfind("/") + 1],
                                      self.github.policy))
        return sorted(found)

    def commit_day(self, branch: str) -> str | None:
        """The day (YYYY-MM-DD) of `branch`'s newest commit: when a release line last
        published. None when neither git nor the API can tell."""
        found = self.git_ref(branch, lambda _line: None)
        if found is not None:
            done = found.refs.git("show", "-s", "--no-show-signature", "--format=%cs",
                                  found.commit)
            day = done.stdout.decode("ascii", "replace").strip()
            return day if done.returncode == 0 and len(day) == 10 else None
        github = self.github
        if github is None:
            return None
        try:
            committer = call(github.policy, f"read branch {branch}",
                             lambda: github.repo.get_branch(branch).commit.commit.committer)
        except GitHubApiError:
            return None
        head = committer.date if committer is not None else None  # an answer without one
        return head.date().isoformat() if head is not None else None

    def _history_at(self, ref: str | None) -> tuple[ScratchRefs, str] | None:
        """The scratch refs and the commit of `ref` with its history (None: the commit the
        working tree holds); None without a clone or that commit."""
        refs = self.scratch()
        if refs is None:
            return None
        commit = refs.source.head
        if ref is not None:
            found = self.git_ref(ref, lambda _line: None, history=True)
            commit = found.commit if found is not None else None
        return (refs, commit) if commit is not None else None

    def blame(self, ref: str | None, path: str, line: int) -> Blame | None:
        """The commit that last changed `path:line` at `ref` (None: the commit the working tree
        holds). None when git cannot say for sure: no clone, or a shallow history whose
        boundary commit git would name for every line."""
        at = self._history_at(ref)
        if at is None:
            return None
        refs, commit = at
        done = refs.git("blame", "--root", "--porcelain", "-L", f"{line},{line}", commit,
                        "--", path)
        if done.returncode != 0 or not done.stdout:
            return None
        head, *fields = done.stdout.decode("utf-8", "replace").splitlines()
        sha = head.split(" ", 1)[0]
        parent = refs.git("rev-parse", "--verify", "--quiet", f"{sha}^")
        if parent.returncode != 0 and refs.git(
                "rev-parse", "--is-shallow-repository").stdout.strip() != b"false":
            return None  # a shallow cut, not who wrote the line: do not guess
        subject = next((f.removeprefix("summary ") for f in fields
                        if f.startswith("summary ")), "")
        return Blame(sha, neutralise(subject[:200]))

    def removal(self, ref: str | None, path: str, text: str) -> Blame | None:
        """The commit that last removed `text` from `path` at `ref` (None: the commit the
        working tree holds): blame's counterpart for a line that is gone. None when git
        cannot say for sure (no clone, a shallow boundary, the text still there)."""
        at = self._history_at(ref)
        if at is None:
            return None
        refs, commit = at
        done = refs.git("log", "-1", "--no-renames", "--format=%H%x00%s", f"-S{text}", commit,
                        "--", path)
        head = done.stdout.decode("utf-8", "replace").strip()
        if done.returncode != 0 or "\x00" not in head:
            return None
        sha, subject = head.split("\x00", 1)
        if refs.git("rev-parse", "--verify", "--quiet", f"{sha}^").returncode != 0:
            return None  # a root or a shallow boundary adds lines; it removed none
        shown = refs.git("cat-file", "-p", f"{commit}:{path}")
        if shown.returncode != 0 or text.encode() in shown.stdout:
            return None  # still there: the newest change added it
        return Blame(sha, neutralise(subject[:200]))


@dataclass(frozen=True, slots=True)
class Blame:
    commit: str
    subject: str
