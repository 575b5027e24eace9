"""Template text and its stub folders, read from the file system."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Sequence
from pathlib import Path

from swiftpm_guard.core.manifest_files import ManifestSet, check_verbatim, manifest_set
from swiftpm_guard.core.model import Finding, Location, Severity, Stub, Template
from swiftpm_guard.errors import InputError
from swiftpm_guard.infra.fs import (
    display_name,
    is_directory,
    read_text,
    resolved,
    walk,
)
from swiftpm_guard.limits import TEMPLATE_MAX_BYTES, TREE_MAX_DEPTH

#: Where stub folders live beside the template; `.swift/` is what older releases used.
STUB_DIRS = (".Package.swift", ".swift")
#: A stub counts as non-empty when it holds a file SwiftPM compiles.
SOURCE_SUFFIXES = frozenset({".swift", ".c", ".m", ".mm", ".cpp", ".cc", ".cxx", ".s", ".S"})


def load_template(path: Path, *, display: str | None = None, stubs_dir: Path | None = None,
                  verbatim: bool = False) -> tuple[Template, list[Finding]]:
    """Read one template and the stub folders that belong to it; `verbatim`: a
    version-specific manifest published as it is, refused when a placeholder is left in it."""
    shown = display or str(path)
    what = "manifest" if verbatim else "template"
    text = read_text(path, display=shown, max_bytes=TEMPLATE_MAX_BYTES, what=what)
    if not text.strip():
        raise InputError(f"{what} is empty", file=shown)
    if verbatim:
        check_verbatim(shown, text)
    flavour = "jinja" if path.name.endswith(".j2") else "placeholder"
    root, root_shown, findings = _stub_root(path, shown, stubs_dir)
    stubs: tuple[Stub, ...] = ()
    if root is not None and root_shown is not None:
        tree = resolved(root if stubs_dir is not None else path.parent,
                        display=root_shown, what="stub folder")
        stubs, findings = _scan_stubs(root, root_shown, tree)
    template = Template(path=shown, text=text, flavour=flavour, stubs=stubs, stubs_dir=root_shown,
                        stubs_path=str(root) if root is not None else None, verbatim=verbatim)
    return template, findings


def _stub_root(
    path: Path, shown: str, explicit: Path | None
) -> tuple[Path | None, str | None, list[Finding]]:
    if explicit is not None:
        if not is_directory(explicit, display=str(explicit), what="stub folder"):
            raise InputError("stub folder not found", file=str(explicit))
        return explicit, str(explicit), []
    tree = resolved(path.parent, display=shown, what="template folder")
    for name in STUB_DIRS:
        candidate = path.parent / name
        if is_directory(candidate, display=str(candidate), what="stub folder"):
            where = os.path.join(os.path.dirname(shown), name)
            if _leaves(candidate, tree, where):
                # A pull request can commit `.Package.swift` as a link to `/etc`: its entries
                # would become stub names, findings and annotations. Not followed: reported.
                return None, None, [_symlink_finding(name, where, "the stub root")]
            return candidate, where, []
    return None, None, []


def _leaves(path: Path, tree: Path, where: str) -> bool:
    """Whether `path` is a symbolic link whose target lies outside `tree`."""
    return path.is_symlink() and not resolved(path, display=where, what="stub folder") \
        .is_relative_to(tree)


def _symlink_finding(name: str, where: str, what: str) -> Finding:
    return Finding(
        code="stub-symlink", severity=Severity.ERROR, subject=name, file=where,
        message=f"{what} '{name}' is a symbolic link out of the template's folder; not "
                "followed (SwiftPM would compile whatever it points at)",
    )


def _scan_stubs(root: Path, shown: str, tree: Path) -> tuple[tuple[Stub, ...], list[Finding]]:
    stubs: list[Stub] = []
    findings: list[Finding] = []
    try:
        with os.scandir(root) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError as error:
        raise InputError(f"cannot list the stub folder: {error.strerror}", file=shown) from None
    for entry in entries:
        name = display_name(entry.name)
        where = f"{shown}/{name}"
        if entry.is_dir(follow_symlinks=False):
            stubs.append(Stub(name, Location(where), _has_sources(Path(entry.path), where)))
        elif _leaves(Path(entry.path), tree, where):
            findings.append(_symlink_finding(name, where, "stub folder"))
        else:
            findings.append(Finding(
                code="stray-file", severity=Severity.WARNING, subject=name, file=where,
                message=f"'{name}' in the stub root is not a stub folder; it ships with "
                        "every published branch",
            ))
    return tuple(stubs), findings


def _has_sources(folder: Path, shown: str) -> bool:
    for here, _folders, files in walk(folder, max_depth=TREE_MAX_DEPTH, display=shown,
                                      what="stub folder"):
        for name in files:
            full = here / name
            if Path(name).suffix in SOURCE_SUFFIXES and full.is_file() and not full.is_symlink():
                return True
    return False


def wanted(templates: Sequence[str]) -> Callable[[str], bool]:
    """The template files and every path under a stub folder beside one of them."""
    exact = set(templates)
    roots = tuple(
        posixpath.join(posixpath.dirname(t), d) + "/" for t in templates for d in STUB_DIRS
    )
    return lambda path: path in exact or path.startswith(roots)


def load_exported(root: Path, found: ManifestSet) -> tuple[list[Template], list[Finding]]:
    """The templates and version-specific manifests exported under `root`, shown by their path
    in the ref; the stub findings of a folder they share once."""
    loaded: list[Template] = []
    findings: list[Finding] = []
    for path in found.paths:
        if not (root / path).is_file():
            raise InputError("not a file in the template ref", file=path)
        template, stub_findings = load_template(root / path, display=path,
                                                verbatim=path in found.verbatim)
        loaded.append(template)
        findings += stub_findings
    return loaded, list(dict.fromkeys(findings))


def manifests_beside(templates: Sequence[str], folder: Callable[[str], Path]
                     ) -> ManifestSet:
    """The named templates and the version-specific templates and manifests in the folders
    of the named `Package.swift` ones (`folder` says where a shown folder is on disk)."""
    entries: list[tuple[str, str]] = []
    for shown in dict.fromkeys(posixpath.dirname(t) for t in templates):
        entries += _listing(folder(shown), shown)
    return manifest_set(templates, entries)


def _listing(folder: Path, shown: str) -> list[tuple[str, str]]:
    """(shown path, kind) of every entry directly in `folder`; nothing when it is unreadable
    (loading the named template then says why)."""
    try:
        with os.scandir(folder) as listing:
            return [(posixpath.join(shown, entry.name), _kind(entry)) for entry in listing]
    except OSError:
        return []


def _kind(entry: os.DirEntry[str]) -> str:
    if entry.is_symlink():
        return "symlink"
    return "dir" if entry.is_dir(follow_symlinks=False) else "file"
