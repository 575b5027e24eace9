"""Published branches read straight from git objects: no work tree, a handful of processes.

A local repository is read in place; a remote's matching branches are fetched shallowly (tips
only) into a temporary bare repository. However many branches match, the reading costs the same
few `git` processes: one `for-each-ref` (or `ls-remote` + one shallow `fetch`), then a few
`cat-file --batch` rounds (root trees; manifest sizes; manifests and stub roots; stub folders,
level by level; the tips' commits). Objects are asked for once each, so the stub trees that
hundreds of branches share are read once."""

from __future__ import annotations

import contextlib
import fnmatch
import os
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path, PurePosixPath

from swiftpm_guard.core.audit import ManifestFile, PublishedBranch, TipCommit
from swiftpm_guard.core.lines import split_lines
from swiftpm_guard.core.manifest_files import is_manifest_name
from swiftpm_guard.core.model import Location, Stub
from swiftpm_guard.core.names import ALL_KINDS, DEFAULT_BRANCH_GLOB, Remote, validate_ref_glob
from swiftpm_guard.core.option_names import option
from swiftpm_guard.errors import InfrastructureError, InputError
from swiftpm_guard.infra.fs import is_directory, resolved
from swiftpm_guard.infra.git import Git, TreeEntry, parse_tree
from swiftpm_guard.limits import GIT_AUDIT_SECONDS, TEMPLATE_MAX_BYTES
from swiftpm_guard.sources.template import SOURCE_SUFFIXES, STUB_DIRS

DEFAULT_PATTERN = DEFAULT_BRANCH_GLOB
GIT_TIMEOUT = GIT_AUDIT_SECONDS


def classify_repo(repo: str) -> tuple[str, str]:
    """("remote", url) or ("local", absolute path), read by the one remote type (core.names
    Remote: every form git accepts; ambiguous ones and passwords refused, shown redacted)."""
    remote = Remote.parse(repo, cwd=os.getcwd(), kinds=ALL_KINDS)
    if remote.kind != "path":
        return "remote", remote.url
    shown = str(remote)
    path = resolved(Path(repo), display=shown, what="repository")
    if not is_directory(path, display=shown, what="repository"):
        raise InputError("repository not found", file=shown)
    return "local", str(path)


def _git(git: Git, git_dir: str | None = None, config: Iterable[tuple[str, str]] = ()) -> Git:
    """The run's `git` (its environment, its proxy) as the audit runs it. The user's own git
    configuration (a credential helper, `url.*.insteadOf`) applies only to a CLI run that
    sends no token (infra.git.git_environment decides); a local repository's config never
    starts a program (hooks, fsmonitor: neutralised there)."""
    return git.derive(git_dir, config=config, user_config=True)


@contextlib.contextmanager
def opened_repository(repo: str, pattern: str = DEFAULT_PATTERN, *, git: Git,
                      timeout: float = GIT_TIMEOUT,
                      config: Sequence[tuple[str, str]] = ()) -> Iterator[Git]:
    """The run's `git` in a git directory whose `refs/heads/` holds the matching branches.

    A local repository is read in place; a remote one is fetched shallowly (tips only, only
    the matching branches) into a temporary bare repository that is deleted afterwards.
    `config` goes to the git processes that talk to the remote (an http.<url>.extraHeader
    with a token, say), in git's command-line scope: never in argv or a file.
    """
    kind, where = classify_repo(repo)
    if kind == "local":
        try:
            git_dir = _local_git_dir(git, where, timeout)
        except InfrastructureError:
            raise InputError("not a git repository", file=where) from None
        yield _git(git, git_dir)
        return
    with tempfile.TemporaryDirectory(prefix="swiftpm-guard-audit-") as temporary:
        mirror = str(Path(temporary) / "mirror.git")
        _git(git).output(["init", "--quiet", "--bare", mirror], timeout=timeout)
        # In the mirror (our own config), never in the caller's folder: a workspace's
        # .git/config could name a proxy and turn off TLS checks for the token's request.
        remote = _git(git, mirror, config)
        heads = [ref.removeprefix("refs/heads/")
                 for ref in remote.ls_remote(where, heads=True, timeout=timeout)]
        branches = [b for b in heads if fnmatch.fnmatchcase(b, pattern)]
        if branches:
            refspecs = "".join(f"+refs/heads/{b}:refs/heads/{b}\n" for b in branches)
            remote.output(["fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
                           "--depth=1", "--stdin", where], stdin=refspecs.encode(),
                          timeout=timeout)
        yield _git(git, mirror)


def _local_git_dir(git: Git, path: str, timeout: float) -> str:
    # A clone owned by another user (a runner's workspace, read as root) is refused as
    # "dubious ownership" unless vouched for; later calls name the git dir explicitly, which
    # git does not question.
    out = _git(git, config=[("safe.directory", str(Path(path).resolve()))]).output(
        ["-C", path, "rev-parse", "--absolute-git-dir"], timeout=timeout)
    return out.decode("utf-8", "surrogateescape").strip()


def list_branches(git: Git, pattern: str, *,
                  timeout: float = GIT_TIMEOUT) -> list[tuple[str, str]]:
    """(branch, commit) for every local branch of `git`'s repository matching the glob."""
    out = git.output(["for-each-ref",
                                "--format=%(objectname) %(objecttype) %(refname)",
                                "refs/heads/"], timeout=timeout)
    found = []
    for line in split_lines(out.decode("utf-8", "replace")):
        oid, kind, ref = line.split(" ", 2)
        name = ref[len("refs/heads/"):]
        if kind == "commit" and fnmatch.fnmatchcase(name, pattern):
            found.append((name, oid))
    return sorted(found)


#: Stub folders nested deeper than this are not searched for sources.
_MAX_STUB_DEPTH = 8
_BLOB_MODES = frozenset({"100644", "100755"})


class Objects:
    """`git cat-file --batch` over many objects at once; each object read at most once."""

    def __init__(self, git: Git, timeout: float) -> None:
        self._git = git
        self._timeout = timeout
        self.contents: dict[str, tuple[str, bytes] | None] = {}

    def load(self, names: Sequence[str]) -> None:
        wanted = [name for name in names if name not in self.contents]
        self.contents.update(self._git.objects(wanted, timeout=self._timeout))

    def sizes(self, oids: Sequence[str]) -> dict[str, int]:
        return self._git.sizes(oids, timeout=self._timeout)

    def tree(self, name: str) -> list[TreeEntry] | None:
        item = self.contents.get(name)
        if item is None or item[0] != "tree":
            return None
        return parse_tree(item[1], 32 if len(name) == 64 else 20)


def read_branches(git: Git, pattern: str = DEFAULT_PATTERN, *,
                  timeout: float = GIT_TIMEOUT) -> list[PublishedBranch]:
    """Every matching branch's manifests and stub folders, read from objects in batches."""
    branches = list_branches(git, pattern, timeout=timeout)
    objects = Objects(git, timeout)
    objects.load([f"{commit}^{{tree}}" for _name, commit in branches])
    roots = {commit: objects.tree(f"{commit}^{{tree}}") or [] for _name, commit in branches}
    manifest_oids = [e.sha for entries in roots.values() for e in entries
                     if e.mode in _BLOB_MODES and is_manifest_name(e.path)]
    sizes = objects.sizes(manifest_oids)
    stub_roots = {commit: _stub_root(entries) for commit, entries in roots.items()}
    objects.load([o for o in manifest_oids if sizes.get(o, 0) <= TEMPLATE_MAX_BYTES]
                 + [e.sha for e in stub_roots.values() if e is not None])
    stub_trees = [e.sha for root in stub_roots.values() if root is not None
                  for e in objects.tree(root.sha) or [] if e.kind == "tree"]
    has_sources = _sources(objects, stub_trees)
    result = []
    for name, commit in branches:
        manifests = _manifests(roots[commit], objects, sizes, TEMPLATE_MAX_BYTES)
        root = stub_roots[commit]
        if root is None:
            result.append(PublishedBranch(name=name, commit=commit, manifests=manifests))
            continue
        stubs: list[Stub] = []
        stray: list[str] = []
        for entry in objects.tree(root.sha) or []:
            if entry.kind == "tree":
                stubs.append(Stub(entry.path, Location(f"{root.path}/{entry.path}"),
                                  has_sources.get(entry.sha, False)))
            else:
                stray.append(entry.path)
        result.append(PublishedBranch(name=name, commit=commit, manifests=manifests,
                                      stubs_dir=root.path, stubs=tuple(stubs),
                                      stray=tuple(stray)))
    return result


def _stub_root(entries: list[TreeEntry]) -> TreeEntry | None:
    by_name = {e.path: e for e in entries if e.kind == "tree"}
    return next((by_name[d] for d in STUB_DIRS if d in by_name), None)


def _manifests(entries: list[TreeEntry], objects: Objects, sizes: dict[str, int],
               limit: int) -> tuple[ManifestFile, ...]:
    found = sorted((e for e in entries if is_manifest_name(e.path)),
                   key=lambda e: (e.path != "Package.swift", e.path))
    if not found or found[0].path != "Package.swift":
        found.insert(0, TreeEntry("", "blob", "", None, "Package.swift"))
    files = []
    for entry in found:
        files.append(_manifest(entry, objects, sizes, limit))
    return tuple(files)


def _manifest(entry: TreeEntry, objects: Objects, sizes: dict[str, int],
              limit: int) -> ManifestFile:
    path = entry.path
    if not entry.sha:
        return ManifestFile(path, None, "the branch has no Package.swift")
    if entry.mode not in _BLOB_MODES:
        return ManifestFile(path, None, f"{path} is not a regular file (mode {entry.mode})")
    if sizes.get(entry.sha, 0) > limit:
        return ManifestFile(path, None, f"{path} is {sizes[entry.sha]} bytes, more than "
                                        f"{limit}; not read")
    item = objects.contents.get(entry.sha)
    if item is None:
        return ManifestFile(path, None, f"{path}: object {entry.sha} is missing")
    try:
        return ManifestFile(path, item[1].decode("utf-8"))
    except UnicodeDecodeError as error:
        return ManifestFile(path, None, f"{path} is not UTF-8 (byte offset {error.start})")


def _sources(objects: Objects, trees: Sequence[str]) -> dict[str, bool]:
    """For each stub tree, whether it holds a source file at any depth (up to a bound)."""
    direct: dict[str, bool] = {}
    children: dict[str, list[str]] = {}
    level = list(dict.fromkeys(trees))
    for _depth in range(_MAX_STUB_DEPTH):
        level = [t for t in level if t not in direct]
        if not level:
            break
        objects.load(level)
        following: list[str] = []
        for oid in level:
            entries = objects.tree(oid) or []
            direct[oid] = any(e.mode in _BLOB_MODES and PurePosixPath(e.path).suffix
                              in SOURCE_SUFFIXES for e in entries)
            children[oid] = [e.sha for e in entries if e.kind == "tree"]
            if not direct[oid]:
                following += children[oid]
        level = following

    known: dict[str, bool] = {}

    def holds(oid: str, depth: int) -> bool:
        if oid not in known:
            known[oid] = direct.get(oid, False) or (depth < _MAX_STUB_DEPTH and any(
                holds(child, depth + 1) for child in children.get(oid, ())))
        return known[oid]

    return {oid: holds(oid, 0) for oid in trees}


def read_tips(git: Git, commits: Sequence[str], *,
              timeout: float = GIT_TIMEOUT) -> dict[str, TipCommit]:
    """Author, date and subject of each commit, through one `cat-file --batch`."""
    objects = Objects(git, timeout)
    objects.load(list(commits))
    tips = {}
    for commit in commits:
        item = objects.contents.get(commit)
        if item is not None and item[0] == "commit":
            tips[commit] = _tip(commit, item[1])
    return tips


def _tip(commit: str, raw: bytes) -> TipCommit:
    header, _, message = raw.decode("utf-8", "replace").partition("\n\n")
    author, date = "", ""
    for line in header.splitlines():
        if line.startswith("author "):
            author, date = _signature(line.removeprefix("author "))
    subject = message.strip().splitlines()[0] if message.strip() else ""
    return TipCommit(commit, author, date, subject)


def _signature(text: str) -> tuple[str, str]:
    """`Name <email> 1700000000 +0100` → ("Name <email>", "2023-11-14T23:13:20+01:00")."""
    import datetime

    who, _, when = text.rpartition(">")
    parts = when.split()
    try:
        seconds, offset = int(parts[0]), parts[1]
        sign = -1 if offset.startswith("-") else 1
        zone = datetime.timezone(sign * datetime.timedelta(hours=int(offset[1:3]),
                                                           minutes=int(offset[3:5])))
        date = datetime.datetime.fromtimestamp(seconds, zone).isoformat()
    except (IndexError, ValueError, OverflowError):
        date = when.strip()
    return who + ">", date


def read_published_with_tips(repo: str, pattern: str = DEFAULT_PATTERN, *, git: Git,
                             timeout: float = GIT_TIMEOUT,
                             config: Sequence[tuple[str, str]] = ()) -> list[PublishedBranch]:
    """The matching branches of a local repository or a remote, read without work trees, each
    with its tip commit's author, date and subject."""
    import dataclasses

    validate_ref_glob(pattern, option("branches"))
    with opened_repository(repo, pattern, git=git, timeout=timeout, config=config) as opened:
        branches = read_branches(opened, pattern, timeout=timeout)
        tips = read_tips(opened, [b.commit for b in branches], timeout=timeout)
    return [dataclasses.replace(b, tip=tips.get(b.commit)) for b in branches]
