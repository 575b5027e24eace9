"""Roles and stub folders as SwiftPM evaluated them, and where the static reading differs (pure).

The static reader guesses each name's role from the template text (`let products = …` makes a
product with a stub folder, `let targets = …` a binary-only target, anything else is
`unknown-role`). Once `dump-package` has evaluated the manifest there is nothing to guess:

- a binary target is a product's when some product reaches it, through the product's targets
  and their dependencies (directly, `.library(name: x, targets: [x])`, or through a wrapper);
- a stub folder is needed when an evaluated source target's `path` is that folder of the stub
  root, and an orphan when no target's path is; one no target needs is never required.

`stub_findings` gives `missing-stub`, `empty-stub` and `orphan-stub` from that evaluation in
place of the static ones, and never `unknown-role`. `disagreements` compares the static reading
with the evaluation and says, per name, where the static reading is wrong (`static-disagrees`):
binary targets it asks for that SwiftPM does not evaluate or the reverse, roles, stub verdicts
and the product count. That is what a check without SwiftPM (the action's container) would have
got wrong; with SwiftPM, its answer decides.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from swiftpm_guard.core.checks import static_roles
from swiftpm_guard.core.checks import stub_findings as static_stub_findings
from swiftpm_guard.core.model import Finding, Rendered, Role, Severity, Template

if TYPE_CHECKING:
    from swiftpm_guard.core.swiftpm_evaluation import EvaluatedTarget, Evaluation

DISAGREES = "static-disagrees"
#: The codes the static reading derives from its guessed roles; SwiftPM's evaluation replaces them.
ROLE_CODES = frozenset({"unknown-role", "missing-stub", "empty-stub", "orphan-stub"})
_STUB_CODES = ("missing-stub", "empty-stub", "orphan-stub")
#: Where stubs sit when the template has no stub folder (what the static messages name too).
DEFAULT_STUB_ROOT = ".Package.swift"


@dataclass(frozen=True, slots=True)
class EvaluatedRoles:
    """What one evaluated manifest says of its names."""

    products: tuple[str, ...]
    binary_targets: tuple[str, ...]
    #: binary target → the first product (in SwiftPM's order) that reaches it
    exposed_by: dict[str, str]
    #: stub folder name → the source targets whose path is that folder (or inside it)
    stub_users: dict[str, tuple[str, ...]]

    def role(self, name: str) -> Role:
        return Role.PRODUCT if name in self.exposed_by else Role.BINARY_ONLY


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


def evaluated_roles(evaluation: Evaluation, root: str) -> EvaluatedRoles:
    """Products, binary targets, which product reaches each binary target and which source
    targets use each stub folder: one walk over the targets from every product (linear)."""
    by_name = {t.name: t for t in evaluation.targets}
    exposed: dict[str, str] = {}
    reached: set[str] = set()
    for product in evaluation.products:
        stack = [n for n in reversed(product.targets) if n in by_name]
        while stack:
            name = stack.pop()
            if name in reached:
                continue
            reached.add(name)
            target = by_name[name]
            if target.kind == "binary":
                exposed.setdefault(name, product.name)
            stack += [d for d in reversed(target.dependencies) if d in by_name]
    users: dict[str, list[str]] = {}
    prefix = posixpath.normpath(root) + "/"
    for target in evaluation.targets:
        if target.kind == "binary" or target.path is None:
            continue
        path = posixpath.normpath(target.path)
        if path.startswith(prefix) and len(path) > len(prefix):
            users.setdefault(path[len(prefix):].split("/", 1)[0], []).append(target.name)
    return EvaluatedRoles(
        products=tuple(p.name for p in evaluation.products),
        binary_targets=tuple(t.name for t in evaluation.binary_targets),
        exposed_by=exposed,
        stub_users={k: tuple(v) for k, v in users.items()},
    )


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
    shape = evaluated_roles(evaluation, root)
    stubs = {stub.name: stub for stub in template.stubs}
    lines = _lines(rendered)
    by_name = {t.name: t for t in evaluation.targets}
    findings: list[Finding] = []
    for folder, users in sorted(shape.stub_users.items()):
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
        if stub.name not in shape.stub_users:
            findings.append(Finding(
                code="orphan-stub", severity=Severity.ERROR, subject=stub.name,
                file=stub.location.file,
                message=f"stub folder for '{stub.name}' is the path of no target SwiftPM "
                "evaluates",
            ))
    return findings


def _static_role_words(role: Role) -> str:
    return "a product (with a stub folder)" if role is Role.PRODUCT else "a binary-only target"


def disagreements(rendered: Rendered, evaluation: Evaluation, root: str) -> list[Finding]:
    """`static-disagrees` (a warning) per name where the static reading and SwiftPM's
    evaluation differ, and one for the product count; empty when they agree."""
    template = rendered.template
    shape = evaluated_roles(evaluation, root)
    lines = _lines(rendered)
    asked = list(lines)
    evaluated = set(shape.binary_targets)
    said: dict[str, list[str]] = {}
    for name in asked:
        if name not in evaluated:
            said.setdefault(name, []).append(
                "the template asks for its checksum, but SwiftPM evaluates no binary target "
                f"'{name}' (without SwiftPM, a built '{name}' counts as claimed)")
    for name in shape.binary_targets:
        if name not in lines:
            said.setdefault(name, []).append(
                f"SwiftPM evaluates binary target '{name}', but the static reading finds no "
                "checksum placeholder for it")
    guessed = static_roles(rendered)
    for name in asked:
        role = guessed.get(name, Role.UNKNOWN)
        if role is Role.UNKNOWN or name not in evaluated or shape.role(name) is role:
            continue
        product = shape.exposed_by.get(name)
        what = (f"product '{product}' reaches it" if product is not None
                else "no product reaches it")
        said.setdefault(name, []).append(
            f"the static reading takes it for {_static_role_words(role)}; SwiftPM evaluates it "
            f"as {'a product' if product else 'a binary-only target'} ({what})")
    mine = {(f.code, f.subject) for f in stub_findings(rendered, evaluation, root)}
    theirs = {(f.code, f.subject) for f in static_stub_findings(rendered) if f.code in _STUB_CODES}
    for code, subject in sorted(theirs - mine):
        users = shape.stub_users.get(subject)
        why = (f"SwiftPM evaluates target '{users[0]}' at {root}/{subject}" if users
               else f"no target SwiftPM evaluates has the path {root}/{subject}, so none is needed")
        said.setdefault(subject, []).append(f"without SwiftPM the check reports {code} for it; "
                                            f"{why}")
    for code, subject in sorted(mine - theirs):
        said.setdefault(subject, []).append(
            f"SwiftPM's evaluation gives {code} for it, which the static reading misses")
    findings = [
        Finding(code=DISAGREES, severity=Severity.WARNING, subject=name, file=template.path,
                line=lines.get(name),
                message=f"the static reading (the check without SwiftPM) is wrong about "
                f"'{name}': {'; '.join(parts)}. This verdict follows SwiftPM's evaluation",
                )
        for name, parts in sorted(said.items())
    ]
    counted = sum(role is Role.PRODUCT for role in guessed.values())
    if all(role is not Role.UNKNOWN for role in guessed.values()) and \
            counted != len(shape.products):
        findings.append(Finding(
            code=DISAGREES, severity=Severity.WARNING, subject="products", file=template.path,
            message=f"the static reading (the check without SwiftPM) counts {counted} "
            f"product{'s' * (counted != 1)}; SwiftPM evaluates {len(shape.products)} "
            f"({', '.join(shape.products[:8]) or 'none'}{', …' * (len(shape.products) > 8)}). "
            "The counts follow SwiftPM's evaluation",
        ))
    return findings
