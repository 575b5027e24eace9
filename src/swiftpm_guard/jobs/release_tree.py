"""The template and its stub folders as they sit in a git tree (the template ref, a published
branch's parent): which paths to export, and how the exported templates are read.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from pathlib import Path

from swiftpm_guard.core.model import Finding, Template
from swiftpm_guard.errors import InputError
from swiftpm_guard.sources.template import STUB_DIRS, load_template


def wanted(templates: Sequence[str]) -> Callable[[str], bool]:
    """The template files and every path under a stub folder beside one of them."""
    exact = set(templates)
    roots = tuple(
        posixpath.join(posixpath.dirname(t), d) + "/" for t in templates for d in STUB_DIRS
    )
    return lambda path: path in exact or path.startswith(roots)


def load_exported(root: Path, templates: Sequence[str]) -> tuple[list[Template], list[Finding]]:
    """The templates exported under `root`, shown by their path in the ref."""
    loaded: list[Template] = []
    findings: list[Finding] = []
    for path in templates:
        if not (root / path).is_file():
            raise InputError("not a file in the template ref", file=path)
        template, stub_findings = load_template(root / path, display=path)
        loaded.append(template)
        findings += stub_findings
    return loaded, findings
