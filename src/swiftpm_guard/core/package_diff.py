"""What a published branch offers, and what publishing again would change in it (pure).

A dry run compares the manifest it would publish with a branch already published: the
version's own branch when it exists (what `update` adds a commit to), else the newest branch of
the same `X.Y.Z` (the release `swiftpm-1.2.3`, else its newest nightly `swiftpm-1.2.3.YYYYMMDD`),
else the newest of the same `X.Y` line (for 1.4.1: `swiftpm-1.4.0` and its nightlies; patches up
to this one first, by version, a release above its own nightlies). Both sides are read the same
way, from rendered Swift (`core.audit.read_published`): every named checksum is a binary target,
a product when the manifest declares it in the products (or the role is unknown and a stub
folder exists for it), and per name the checksum, so 20 changed checksums are 20 lines of news,
not "the same products".
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from swiftpm_guard.core.audit import read_published
from swiftpm_guard.core.model import Role

_RELEASE = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+")
_NIGHTLY_DATE = re.compile(r"[0-9]{8}")
_VERSION = re.compile(r"(?P<x>[0-9]+)\.(?P<y>[0-9]+)\.(?P<z>[0-9]+)(?:\.(?P<date>[0-9]{8}))?")


@dataclass(frozen=True, slots=True)
class PackageNames:
    products: tuple[str, ...]
    binary_targets: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PublishedPackage:
    """What rendered manifests offer: the names, and each named binary target's checksum."""

    names: PackageNames
    checksums: tuple[tuple[str, str], ...]  # (name, checksum text), sorted by name


def read_package(texts: Iterable[str], stubs: Iterable[str]) -> PublishedPackage:
    """Names and checksums of rendered manifests (a published branch's, or this run's);
    `stubs` are the stub folder names beside them (they make an unknown role a product)."""
    with_stub = set(stubs)
    products: set[str] = set()
    checksums: dict[str, str] = {}
    for text in texts:
        for site in read_published(text).sites:
            if site.name is None:
                continue
            checksums.setdefault(site.name, site.value)
            if site.role is Role.PRODUCT or (site.role is Role.UNKNOWN and site.name in with_stub):
                products.add(site.name)
    names = PackageNames(tuple(sorted(products)), tuple(sorted(checksums)))
    return PublishedPackage(names, tuple(sorted(checksums.items())))


class Relation(enum.StrEnum):
    """Which published branch a dry run compares with, in the order they are looked for."""

    THIS_BRANCH = "this-branch"  # the version's own branch: what `update` adds a commit to
    SAME_RELEASE = "same-release"  # the newest other branch of the same X.Y.Z
    SAME_LINE = "same-line"  # the newest branch of the same X.Y


@dataclass(frozen=True, slots=True)
class TemplateCommit:
    """A commit of the template branch and its subject (None when it could not be read)."""

    commit: str
    subject: str | None = None

    def as_dict(self) -> dict[str, object]:
        return {"commit": self.commit, "subject": self.subject}

    def shown(self) -> str:
        return self.commit[:12] + (f' "{self.subject}"' if self.subject is not None else "")


@dataclass(frozen=True, slots=True)
class PackageDiff:
    base_branch: str
    base_commit: str
    added_products: tuple[str, ...]
    removed_products: tuple[str, ...]
    added_targets: tuple[str, ...]
    removed_targets: tuple[str, ...]
    relation: Relation = Relation.SAME_RELEASE
    #: Names on both sides whose checksum differs / is the same (empty: not compared).
    changed_checksums: tuple[str, ...] = ()
    unchanged_checksums: tuple[str, ...] = ()
    #: The template commit this run renders, and the one the base branch was built from.
    template_now: TemplateCommit | None = None
    template_base: TemplateCommit | None = None
    template_base_note: str | None = None  # why the base's template commit is not known

    @property
    def changed(self) -> bool:
        return any((self.added_products, self.removed_products, self.added_targets,
                    self.removed_targets, self.changed_checksums))

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
            "relation": str(self.relation),
            "checksums": {
                "changed": list(self.changed_checksums),
                "unchanged": list(self.unchanged_checksums),
            },
            "template_commits": {
                "now": self.template_now.as_dict() if self.template_now else None,
                "base": self.template_base.as_dict() if self.template_base else None,
                "base_note": self.template_base_note,
            },
        }


def _added(a: Iterable[str], b: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(b) - set(a)))


def diff(base_branch: str, base_commit: str, old: PackageNames, new: PackageNames) -> PackageDiff:
    """The names added and removed (no checksums, no template commits)."""
    return PackageDiff(base_branch=base_branch, base_commit=base_commit,
                       added_products=_added(old.products, new.products),
                       removed_products=_added(new.products, old.products),
                       added_targets=_added(old.binary_targets, new.binary_targets),
                       removed_targets=_added(new.binary_targets, old.binary_targets))


@dataclass(frozen=True, slots=True)
class Base:
    """The published branch compared with: its full ref, tip commit and why it was chosen."""

    ref: str
    commit: str
    relation: Relation


def compare(base: Base, old: PublishedPackage, new: PublishedPackage, *,
            template_now: TemplateCommit | None, template_base: TemplateCommit | None,
            template_base_note: str | None = None) -> PackageDiff:
    """Names added and removed, and per name on both sides whether its checksum changed."""
    names = diff(base.ref.removeprefix("refs/heads/"), base.commit, old.names, new.names)
    before, after = dict(old.checksums), dict(new.checksums)
    common = sorted(set(before) & set(after))
    return PackageDiff(
        base_branch=names.base_branch, base_commit=names.base_commit,
        added_products=names.added_products, removed_products=names.removed_products,
        added_targets=names.added_targets, removed_targets=names.removed_targets,
        relation=base.relation,
        changed_checksums=tuple(n for n in common if before[n] != after[n]),
        unchanged_checksums=tuple(n for n in common if before[n] == after[n]),
        template_now=template_now, template_base=template_base,
        template_base_note=template_base_note,
    )


_WHY = {
    Relation.THIS_BRANCH: "this version's own branch",
    Relation.SAME_RELEASE: "the newest other branch of the same X.Y.Z",
    Relation.SAME_LINE: "the newest branch of the same X.Y line",
}


def describe(result: PackageDiff, debug_suffix: str = "") -> list[str]:
    """The comparison as console lines (the log, the CLI, the summary's fenced block); a name
    and its `debug_suffix` twin whose checksums both change are named once."""
    lines = [f"compared with {result.base_branch} ({result.base_commit[:12]}), "
             f"{_WHY[result.relation]}:"]
    if not any((result.added_products, result.removed_products, result.added_targets,
                result.removed_targets)):
        lines.append("  same products and binary targets")
    else:
        for label, plus, minus in (
            ("products", result.added_products, result.removed_products),
            ("binary targets", result.added_targets, result.removed_targets),
        ):
            changes = [f"+{n}" for n in plus] + [f"-{n}" for n in minus]
            lines.append(f"  {label}: {', '.join(changes) if changes else 'unchanged'}")
    lines += _checksum_lines(result, debug_suffix)
    lines += _template_lines(result)
    return lines


def _checksum_lines(result: PackageDiff, debug_suffix: str) -> list[str]:
    changed, same = result.changed_checksums, result.unchanged_checksums
    if not changed and not same:
        return []
    if not changed:
        return [f"  no checksum changes ({len(same)} compared)"]
    noun = "checksum changes" if len(changed) == 1 else "checksums change"
    rest = f" ({len(same)} unchanged)" if same else ""
    return [f"  {len(changed)} {noun}{_folded(changed, debug_suffix)}{rest}"]


def _folded(names: Sequence[str], suffix: str) -> str:
    """`: a, b (each with its _debug twin)`, or `: a (+_debug), c` when only some pair up."""
    present = set(names)
    twins = {n for n in names if suffix and n + suffix in present}
    shown = [n for n in names if not (suffix and n.endswith(suffix)
                                      and n.removesuffix(suffix) in twins)]
    if twins and len(twins) == len(shown):
        return f" (each with its {suffix} twin): {', '.join(shown)}"
    return ": " + ", ".join(f"{n} (+{suffix})" if n in twins else n for n in shown)


def _template_lines(result: PackageDiff) -> list[str]:
    now, base = result.template_now, result.template_base
    if now is None:
        return []
    lines = [f"  template now: {now.shown()}"]
    if base is None:
        lines.append(f"  {result.base_branch} was built from: not known "
                     f"({result.template_base_note or 'no publish commit found'})")
    elif base.commit == now.commit:
        lines.append(f"  {result.base_branch} was built from the same template commit")
    else:
        lines.append(f"  {result.base_branch} was built from: {base.shown()}")
    return lines


def release_part(version: str) -> str:
    """`1.2.3.20250101` → `1.2.3`; a version of another shape is its own release part."""
    match = _RELEASE.match(version)
    return match.group() if match else version


def line_part(version: str) -> str | None:
    """`1.4.1` and `1.4.1.20250101` → `1.4`; None for a version of another shape."""
    match = _VERSION.fullmatch(version)
    return f"{match['x']}.{match['y']}" if match else None


def sibling_patterns(prefix: str, version: str) -> tuple[str, str]:
    """ls-remote patterns for every branch of the same X.Y.Z: the release and its nightlies."""
    base = f"refs/heads/{prefix}{release_part(version)}"
    return base, base + ".*"


def comparison_patterns(prefix: str, version: str) -> tuple[str, ...]:
    """ls-remote patterns for every branch a dry run may compare with: the same X.Y.Z, and
    the whole X.Y line when the version has that shape."""
    line = line_part(version)
    extra = (f"refs/heads/{prefix}{line}.*",) if line is not None else ()
    return (*sibling_patterns(prefix, version), *extra)


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


def newest_in_line(refs: Iterable[str], prefix: str, version: str,
                   exclude: str) -> str | None:
    """The newest published branch of the same X.Y line other than `exclude`: patches up to
    this version's first, then by patch, a release above its own nightlies, nightlies by date."""
    mine = _VERSION.fullmatch(version)
    if mine is None:
        return None
    head = f"refs/heads/{prefix}"
    ranked: list[tuple[bool, int, bool, str, str]] = []
    for ref in refs:
        match = _VERSION.fullmatch(ref.removeprefix(head)) if ref.startswith(head) else None
        if ref == exclude or match is None or (match["x"], match["y"]) != (mine["x"], mine["y"]):
            continue
        patch = int(match["z"])
        ranked.append((patch <= int(mine["z"]), patch, match["date"] is None,
                       match["date"] or "", ref))
    return max(ranked)[-1] if ranked else None


def choose_base(refs: Mapping[str, str], prefix: str, version: str, branch: str) -> Base | None:
    """The branch a dry run compares with: this version's own, else the newest of the same
    X.Y.Z, else the newest of the same X.Y line (None: nothing published to compare with)."""
    if branch in refs:
        return Base(branch, refs[branch], Relation.THIS_BRANCH)
    for relation, found in (
        (Relation.SAME_RELEASE, newest_sibling(refs, prefix, version, exclude=branch)),
        (Relation.SAME_LINE, newest_in_line(refs, prefix, version, exclude=branch)),
    ):
        if found is not None:
            return Base(found, refs[found], relation)
    return None


def nothing_to_compare(version: str) -> str:
    """Why a dry run shows no comparison."""
    line = line_part(version)
    scope = f"of {release_part(version)}" + (f" or of the {line} line" if line else "")
    return f"no published branch {scope} on the remote to compare with"


def consumer_snippet(url: str, branch: str) -> str:
    """The line a consumer adds to its own Package.swift dependencies."""

    def quoted(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    return f".package(url: {quoted(url)}, branch: {quoted(branch)})"
