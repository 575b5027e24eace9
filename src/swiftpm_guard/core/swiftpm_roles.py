"""Stub folders as SwiftPM evaluated them (pure).

The static reader guesses each name's role from the template text (`let products = …` makes a
product with a stub folder, `let targets = …` a binary-only target, anything else is
`unknown-role`). Once `dump-package` has evaluated the manifest there is nothing to guess: a
stub folder is needed when an evaluated source target's `path` is that folder of the stub root,
and an orphan when no target's path is; one no target needs is never required.

`stub_findings` gives `missing-stub`, `empty-stub` and `orphan-stub` from that evaluation in
place of the static ones, and never `unknown-role`: with SwiftPM, its answer decides.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from typing import TYPE_CHECKING

from swiftpm_guard.core.model import Finding, Rendered, Severity, Template

if TYPE_CHECKING:
    from swiftpm_guard.core.swiftpm_evaluation import EvaluatedTarget, Evaluation

#: The codes the static reading derives from its guessed roles; SwiftPM's evaluation replaces them.
ROLE_CODES = frozenset({"unknown-role", "missing-stub", "empty-stub", "orphan-stub"})
#: Where stubs sit when the template has no stub folder (what the static messages name too).
DEFAULT_STUB_ROOT = ".Package.swift"


def stub_root(template: Template) -> str:
    """The stub root's place in the package, as `infra.swiftpm.package_files` lays it out when
    the caller does not say: beside the template under its relative path, else by its name."""
    if template.stubs_dir is None:
        return DEFAULT_STUB_ROOT
    stubs = posixpath.normpath(template.stubs_dir)
    folder = posixpath.normpath(posixpath.dirname(template.path) or ".")
    if folder == ".":
        inside = not stubs.startswith(("/", "../")) and stubs != ".."
        return stubs if inside else posixpath.basename(stubs)
    if stubs.startswith(folder + "/"):
        return stubs[len(folder) + 1:]
    return posixpath.basename(stubs)


def stub_users(evaluation: Evaluation, root: str) -> dict[str, tuple[str, ...]]:
    """Stub folder name → the source targets whose evaluated path is that folder (or inside)."""
    users: dict[str, list[str]] = {}
    prefix = posixpath.normpath(root) + "/"
    for target in evaluation.targets:
        if target.kind == "binary" or target.path is None:
            continue
        path = posixpath.normpath(target.path)
        if path.startswith(prefix) and len(path) > len(prefix):
            users.setdefault(path[len(prefix):].split("/", 1)[0], []).append(target.name)
    return {k: tuple(v) for k, v in users.items()}


def _stub_shown(template: Template, root: str, name: str) -> str:
    if template.stubs_dir is None:
        return f"{root}/{name}/ (there is no stub folder beside the template)"
    return f"{template.stubs_dir}/{name}/"


def _lines(rendered: Rendered) -> dict[str, int | None]:
    lines: dict[str, int | None] = {}
    for placeholder in rendered.placeholders:
        lines.setdefault(placeholder.name, placeholder.location.line)
    return lines


def _user_line(lines: dict[str, int | None], by_name: dict[str, EvaluatedTarget],
               users: Iterable[str], folder: str) -> int | None:
    """The template line of the folder's name, else of a binary target a user depends on."""
    if lines.get(folder) is not None:
        return lines[folder]
    for user in users:
        for dependency in by_name[user].dependencies if user in by_name else ():
            if lines.get(dependency) is not None:
                return lines[dependency]
    return None


def stub_findings(rendered: Rendered, evaluation: Evaluation, root: str) -> list[Finding]:
    """Missing, empty and orphan stub folders by the evaluated targets' paths."""
    template = rendered.template
    users_of = stub_users(evaluation, root)
    stubs = {stub.name: stub for stub in template.stubs}
    lines = _lines(rendered)
    by_name = {t.name: t for t in evaluation.targets}
    findings: list[Finding] = []
    for folder, users in sorted(users_of.items()):
        stub = stubs.get(folder)
        line = _user_line(lines, by_name, users, folder)
        if stub is None:
            findings.append(Finding(
                code="missing-stub", severity=Severity.ERROR, subject=folder,
                file=template.path, line=line,
                message=f"SwiftPM evaluates target '{users[0]}' at {root}/{folder} but there is "
                f"no stub folder {_stub_shown(template, root, folder)}; SwiftPM rejects a "
                "source target without sources",
            ))
        elif not stub.has_sources:
            findings.append(Finding(
                code="empty-stub", severity=Severity.ERROR, subject=folder,
                file=stub.location.file,
                message=f"stub folder for '{folder}' (the path of target '{users[0]}') holds no "
                "source file; SwiftPM rejects it",
            ))
    for stub in template.stubs:
        if stub.name not in users_of:
            findings.append(Finding(
                code="orphan-stub", severity=Severity.ERROR, subject=stub.name,
                file=stub.location.file,
                message=f"stub folder for '{stub.name}' is the path of no target SwiftPM "
                "evaluates",
            ))
    return findings
