"""Template text and its stub folders, read from the file system."""

from __future__ import annotations

import os
from pathlib import Path

from swiftpm_guard.errors import InputError
from swiftpm_guard.limits import TEMPLATE_MAX_BYTES
from swiftpm_guard.model import Finding, Location, Severity, Stub, Template
from swiftpm_guard.sources.files import is_directory, read_text

#: Where stub folders live beside the template; `.swift/` is what older releases used.
STUB_DIRS = (".Package.swift", ".swift")
#: A stub counts as non-empty when it holds a file SwiftPM compiles.
SOURCE_SUFFIXES = frozenset({".swift", ".c", ".m", ".mm", ".cpp", ".cc", ".cxx", ".s", ".S"})


def load_template(path: Path, *, display: str | None = None,
                  stubs_dir: Path | None = None) -> tuple[Template, list[Finding]]:
    """Read one template and the stub folders that belong to it."""
    shown = display or str(path)
    text = read_text(path, display=shown, max_bytes=TEMPLATE_MAX_BYTES, what="template")
    if not text.strip():
        raise InputError("template is empty", file=shown)
    flavour = "jinja" if path.name.endswith(".j2") else "placeholder"
    root, root_shown = _stub_root(path, shown, stubs_dir)
    stubs: tuple[Stub, ...] = ()
    findings: list[Finding] = []
    if root is not None and root_shown is not None:
        stubs, findings = _scan_stubs(root, root_shown)
    template = Template(path=shown, text=text, flavour=flavour, stubs=stubs, stubs_dir=root_shown,
                        stubs_path=str(root) if root is not None else None)
    return template, findings


def _stub_root(path: Path, shown: str, explicit: Path | None) -> tuple[Path | None, str | None]:
    if explicit is not None:
        if not is_directory(explicit, display=str(explicit), what="stub folder"):
            raise InputError("stub folder not found", file=str(explicit))
        return explicit, str(explicit)
    for name in STUB_DIRS:
        candidate = path.parent / name
        if is_directory(candidate, display=str(candidate), what="stub folder"):
            return candidate, os.path.join(os.path.dirname(shown), name)
    return None, None


def _scan_stubs(root: Path, shown: str) -> tuple[tuple[Stub, ...], list[Finding]]:
    stubs: list[Stub] = []
    findings: list[Finding] = []
    with os.scandir(root) as listing:
        entries = sorted(listing, key=lambda e: e.name)
    for entry in entries:
        where = f"{shown}/{entry.name}"
        if entry.is_dir(follow_symlinks=False):
            stubs.append(Stub(entry.name, Location(where), _has_sources(Path(entry.path))))
        else:
            findings.append(Finding(
                code="stray-file", severity=Severity.WARNING, subject=entry.name, file=where,
                message=f"'{entry.name}' in the stub root is not a stub folder; it ships with "
                        "every published branch",
            ))
    return tuple(stubs), findings


def _has_sources(folder: Path) -> bool:
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            full = Path(dirpath) / name
            if Path(name).suffix in SOURCE_SUFFIXES and full.is_file() and not full.is_symlink():
                return True
    return False
