"""Published branches read straight from git objects: no work tree, a handful of processes.

However many branches match, the reading costs the same few `git` processes: one
`for-each-ref` (or `ls-remote` + one shallow `fetch` into a temporary bare repository for a
remote), then a few `cat-file --batch` rounds (root trees; manifest sizes; manifests and stub
roots; stub folders, level by level). Objects are asked for once each, so the stub trees that
hundreds of branches share are read once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from swiftpm_guard.core.audit_rules import ManifestFile, PublishedBranch
from swiftpm_guard.core.model import Location, Stub
from swiftpm_guard.core.text_lines import split_lines
from swiftpm_guard.limits import TEMPLATE_MAX_BYTES
from swiftpm_guard.sources.git_repository import (
    DEFAULT_PATTERN,
    GIT_TIMEOUT,
    git,
    list_branches,
    opened_repository,
    validate_pattern,
)
from swiftpm_guard.sources.template import SOURCE_SUFFIXES, STUB_DIRS

#: Stub folders nested deeper than this are not searched for sources.
_MAX_STUB_DEPTH = 8
_MANIFEST_RE = re.compile(r"Package(?:@swift-[0-9][0-9.]*)?\.swift")
_TREE, _BLOB_MODES = "40000", frozenset({"100644", "100755"})


@dataclass(frozen=True, slots=True)
class _Entry:
    mode: str
    name: str
    oid: str


def _parse_tree(data: bytes, oid_bytes: int) -> list[_Entry]:
    """Git's binary tree format: `<mode> <name>\\0<raw object id>` repeated."""
    entries = []
    i = 0
    while i < len(data):
        space = data.index(b" ", i)
        nul = data.index(b"\0", space)
        raw = data[nul + 1:nul + 1 + oid_bytes]
        entries.append(_Entry(data[i:space].decode(), data[space + 1:nul].decode(
            "utf-8", "surrogateescape"), raw.hex()))
        i = nul + 1 + oid_bytes
    return entries


class Objects:
    """`git cat-file --batch` over many objects at once; each object read at most once."""

    def __init__(self, git_dir: str, timeout: float) -> None:
        self._git_dir = git_dir
        self._timeout = timeout
        self.contents: dict[str, tuple[str, bytes] | None] = {}

    def load(self, names: Sequence[str]) -> None:
        wanted = list(dict.fromkeys(n for n in names if n not in self.contents))
        if not wanted:
            return
        out = git(["cat-file", "--batch"], git_dir=self._git_dir,
                   stdin="".join(f"{n}\n" for n in wanted).encode(), timeout=self._timeout)
        position = 0
        for name in wanted:
            end = out.index(b"\n", position)
            header = out[position:end].decode("utf-8", "replace").split(" ")
            position = end + 1
            if len(header) != 3:  # "<name> missing" or "ambiguous"
                self.contents[name] = None
                continue
            size = int(header[2])
            self.contents[name] = (header[1], out[position:position + size])
            position += size + 1

    def sizes(self, oids: Sequence[str]) -> dict[str, int]:
        wanted = list(dict.fromkeys(oids))
        if not wanted:
            return {}
        out = git(["cat-file", "--batch-check"], git_dir=self._git_dir,
                   stdin="".join(f"{o}\n" for o in wanted).encode(), timeout=self._timeout)
        sizes = {}
        for oid, line in zip(wanted, split_lines(out.decode()), strict=True):
            parts = line.split(" ")
            if len(parts) == 3:
                sizes[oid] = int(parts[2])
        return sizes

    def tree(self, name: str) -> list[_Entry] | None:
        item = self.contents.get(name)
        if item is None or item[0] != "tree":
            return None
        return _parse_tree(item[1], 32 if len(name) == 64 else 20)


def read_branches(git_dir: str, pattern: str = DEFAULT_PATTERN, *,
                  timeout: float = GIT_TIMEOUT,
                  max_manifest_bytes: int = TEMPLATE_MAX_BYTES) -> list[PublishedBranch]:
    """Every matching branch's manifests and stub folders, read from objects in batches."""
    branches = list_branches(git_dir, pattern, timeout=timeout)
    objects = Objects(git_dir, timeout)
    objects.load([f"{commit}^{{tree}}" for _name, commit in branches])
    roots = {commit: objects.tree(f"{commit}^{{tree}}") or [] for _name, commit in branches}
    manifest_oids = [e.oid for entries in roots.values() for e in entries
                     if e.mode in _BLOB_MODES and _MANIFEST_RE.fullmatch(e.name)]
    sizes = objects.sizes(manifest_oids)
    stub_roots = {commit: _stub_root(entries) for commit, entries in roots.items()}
    objects.load([o for o in manifest_oids if sizes.get(o, 0) <= max_manifest_bytes]
                 + [e.oid for e in stub_roots.values() if e is not None])
    stub_trees = [e.oid for root in stub_roots.values() if root is not None
                  for e in objects.tree(root.oid) or [] if e.mode == _TREE]
    has_sources = _sources(objects, stub_trees)
    result = []
    for name, commit in branches:
        manifests = _manifests(roots[commit], objects, sizes, max_manifest_bytes)
        root = stub_roots[commit]
        if root is None:
            result.append(PublishedBranch(name=name, commit=commit, manifests=manifests))
            continue
        stubs: list[Stub] = []
        stray: list[str] = []
        for entry in objects.tree(root.oid) or []:
            if entry.mode == _TREE:
                stubs.append(Stub(entry.name, Location(f"{root.name}/{entry.name}"),
                                  has_sources.get(entry.oid, False)))
            else:
                stray.append(entry.name)
        result.append(PublishedBranch(name=name, commit=commit, manifests=manifests,
                                      stubs_dir=root.name, stubs=tuple(stubs),
                                      stray=tuple(stray)))
    return result


def _stub_root(entries: list[_Entry]) -> _Entry | None:
    by_name = {e.name: e for e in entries if e.mode == _TREE}
    return next((by_name[d] for d in STUB_DIRS if d in by_name), None)


def _manifests(entries: list[_Entry], objects: Objects, sizes: dict[str, int],
               limit: int) -> tuple[ManifestFile, ...]:
    found = sorted((e for e in entries if _MANIFEST_RE.fullmatch(e.name)),
                   key=lambda e: (e.name != "Package.swift", e.name))
    if not found or found[0].name != "Package.swift":
        found.insert(0, _Entry("", "Package.swift", ""))
    files = []
    for entry in found:
        files.append(_manifest(entry, objects, sizes, limit))
    return tuple(files)


def _manifest(entry: _Entry, objects: Objects, sizes: dict[str, int],
              limit: int) -> ManifestFile:
    path = entry.name
    if not entry.oid:
        return ManifestFile(path, None, "the branch has no Package.swift")
    if entry.mode not in _BLOB_MODES:
        return ManifestFile(path, None, f"{path} is not a regular file (mode {entry.mode})")
    if sizes.get(entry.oid, 0) > limit:
        return ManifestFile(path, None, f"{path} is {sizes[entry.oid]} bytes, more than "
                                        f"{limit}; not read")
    item = objects.contents.get(entry.oid)
    if item is None:
        return ManifestFile(path, None, f"{path}: object {entry.oid} is missing")
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
            direct[oid] = any(e.mode in _BLOB_MODES and PurePosixPath(e.name).suffix
                              in SOURCE_SUFFIXES for e in entries)
            children[oid] = [e.oid for e in entries if e.mode == _TREE]
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


def read_published_branches(repo: str, pattern: str = DEFAULT_PATTERN, *,
                            timeout: float = GIT_TIMEOUT,
                            config: Sequence[tuple[str, str]] = ()) -> list[PublishedBranch]:
    """The matching branches of a local repository or a remote, read without work trees."""
    validate_pattern(pattern)
    with opened_repository(repo, pattern, timeout=timeout, config=config) as git_dir:
        return read_branches(git_dir, pattern, timeout=timeout)
