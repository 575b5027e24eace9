"""What a published branch offers, and how a new one differs from the last of its X.Y.Z (pure).

A dry run compares the products and binary targets it would publish with those of the newest
branch already published for the same `X.Y.Z` (the release `swiftpm-1.2.3`, else the newest
nightly `swiftpm-1.2.3.YYYYMMDD`), so a product that silently disappears is seen before
anyone pushes. Names come from the templates: every `__SHA256_<name>__` is a binary target;
a name is a product when the template text puts it in `products` or a stub folder exists for it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from swiftpm_guard.core.model import Rendered, Role

_RELEASE = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+")
_NIGHTLY_DATE = re.compile(r"[0-9]{8}")


@dataclass(frozen=True, slots=True)
class PackageNames:
    products: tuple[str, ...]
    binary_targets: tuple[str, ...]


def package_names(rendered: Sequence[Rendered]) -> PackageNames:
    products: set[str] = set()
    targets: set[str] = set()
    for item in rendered:
        stubs = {stub.name for stub in item.template.stubs}
        for placeholder in item.placeholders:
            targets.add(placeholder.name)
            if placeholder.role is Role.PRODUCT or (
                placeholder.role is Role.UNKNOWN and placeholder.name in stubs
            ):
                products.add(placeholder.name)
    return PackageNames(tuple(sorted(products)), tuple(sorted(targets)))


@dataclass(frozen=True, slots=True)
class PackageDiff:
    base_branch: str
    base_commit: str
    added_products: tuple[str, ...]
    removed_products: tuple[str, ...]
    added_targets: tuple[str, ...]
    removed_targets: tuple[str, ...]

    @property
    def changed(self) -> bool:
        return any(
            (self.added_products, self.removed_products, self.added_targets, self.removed_targets)
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "base_branch": self.base_branch,
            "base_commit": self.base_commit,
            "products": {
                "added": list(self.added_products),
                "removed": list(self.removed_products),
            },
            "binary_targets": {
                "added": list(self.added_targets),
                "removed": list(self.removed_targets),
            },
        }


def diff(base_branch: str, base_commit: str, old: PackageNames, new: PackageNames) -> PackageDiff:
    def added(a: Iterable[str], b: Iterable[str]) -> tuple[str, ...]:
        return tuple(sorted(set(b) - set(a)))

    return PackageDiff(base_branch=base_branch, base_commit=base_commit,
                       added_products=added(old.products, new.products),
                       removed_products=added(new.products, old.products),
                       added_targets=added(old.binary_targets, new.binary_targets),
                       removed_targets=added(new.binary_targets, old.binary_targets))


def describe(result: PackageDiff) -> list[str]:
    lines = [f"compared with {result.base_branch} ({result.base_commit[:12]}):"]
    if not result.changed:
        return [*lines, "  same products and binary targets"]
    for label, plus, minus in (
        ("products", result.added_products, result.removed_products),
        ("binary targets", result.added_targets, result.removed_targets),
    ):
        changes = [f"+{n}" for n in plus] + [f"-{n}" for n in minus]
        lines.append(f"  {label}: {', '.join(changes) if changes else 'unchanged'}")
    return lines


def release_part(version: str) -> str:
    """`1.2.3.20250101` → `1.2.3`; a version of another shape is its own release part."""
    match = _RELEASE.match(version)
    return match.group() if match else version


def sibling_patterns(prefix: str, version: str) -> tuple[str, str]:
    """ls-remote patterns for every branch of the same X.Y.Z: the release and its nightlies."""
    base = f"refs/heads/{prefix}{release_part(version)}"
    return base, base + ".*"


def newest_sibling(refs: Iterable[str], prefix: str, version: str, exclude: str) -> str | None:
    """The newest published branch of the same X.Y.Z other than `exclude`.

    Nightlies of X.Y.Z come before the X.Y.Z release (main carries the next version), so the
    release ranks above every nightly; nightlies rank by date.
    """
    base = f"refs/heads/{prefix}{release_part(version)}"
    ranked: list[tuple[int, str]] = []
    for ref in refs:
        if ref == exclude:
            continue
        if ref == base:
            ranked.append((10**9, ref))
        elif ref.startswith(base + ".") and _NIGHTLY_DATE.fullmatch(ref[len(base) + 1 :]):
            ranked.append((int(ref[len(base) + 1 :]), ref))
    return max(ranked)[1] if ranked else None


def consumer_snippet(url: str, branch: str) -> str:
    """The line a consumer adds to its own Package.swift dependencies."""

    def quoted(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    return f".package(url: {quoted(url)}, branch: {quoted(branch)})"
