"""Which files of a package's root SwiftPM may read as its manifest, and which files of the
template ref make them (pure).

SwiftPM reads `Package.swift`, or instead of it a version-specific `Package@swift-X[.Y[.Z]].swift`
beside it (checked with SwiftPM 6.0.3): `@swift-6.0.3`, `@swift-6.0` and `@swift-6` are taken
first, whatever `Package.swift` says; otherwise the newest one not newer than the tools is taken
when its tools version is greater than `Package.swift`'s. Which one a consumer gets depends on
the consumer's toolchain, so every one of them is a manifest some consumer reads: each is
rendered, checked and published with `Package.swift`, never copied along unchecked.

Beside a `Package.swift` template the template ref may hold, per version, a template
(`Package@swift-6.0.swift.template` or `.j2`, rendered like `Package.swift.template`) or the
manifest itself (`Package@swift-6.0.swift`, published as it is, so checked as it is and refused
when a placeholder is left in it). A template and a manifest of the same name: the template
wins, as `Package.swift.template` wins over a `Package.swift` beside it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from swiftpm_guard.core.lines import LineIndex
from swiftpm_guard.core.model import (
    Artifact,
    Finding,
    Location,
    Placeholder,
    Rendered,
    Severity,
    Template,
)
from swiftpm_guard.core.render import scan
from swiftpm_guard.errors import InputError

TEMPLATE_SUFFIXES = (".template", ".j2")
PRIMARY = "Package.swift"
#: SwiftPM's own pattern (`ManifestLoader.findManifest`), `.` before `swift` unescaped as there:
#: `Package@swift-6_swift` matches too, and SwiftPM then fails on it ("Manifest files must
#: contain .swift suffix").
_SWIFTPM_PATTERN = re.compile(r"Package@swift-[0-9]+(?:\.[0-9]+)?(?:\.[0-9]+)?(?P<dot>.)swift")


def is_version_specific(name: str) -> bool:
    """Whether `name` (a file name, no folder) is a `Package@swift-X[.Y[.Z]].swift`."""
    match = _SWIFTPM_PATTERN.fullmatch(name)
    return match is not None and match["dot"] == "."


def is_manifest_name(name: str) -> bool:
    """`Package.swift` or a version-specific manifest: what SwiftPM reads in a package root."""
    return name == PRIMARY or is_version_specific(name)


def without_suffix(name: str) -> str | None:
    """`Package@swift-6.0.swift.j2` → `Package@swift-6.0.swift`; None without a suffix."""
    for suffix in TEMPLATE_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name.removesuffix(suffix)
    return None


def manifest_of(path: str) -> str:
    """The manifest a template-ref file becomes: a template's path without its suffix, a
    version-specific manifest's own path."""
    folder, name = posixpath.split(path)
    return posixpath.join(folder, without_suffix(name) or name)


@dataclass(frozen=True, slots=True)
class ManifestSet:
    """The files of the template ref (or workspace) that become the published manifests."""

    templates: tuple[str, ...]  # rendered: the named ones first, then those found beside them
    verbatim: tuple[str, ...] = ()  # version-specific manifests published as they are

    @property
    def paths(self) -> tuple[str, ...]:
        return (*self.templates, *self.verbatim)


def manifest_set(named: Sequence[str], entries: Iterable[tuple[str, str]]) -> ManifestSet:
    """The named templates and every version-specific template or manifest beside a named
    `Package.swift` template. `entries` are (path, kind) of the tree, kind one of "file",
    "dir", "symlink", "submodule"; paths relative and POSIX, as `named` are.

    Raises InputError (exit 2, naming the file) for what SwiftPM would read but cannot be
    published as a checked manifest: a link or submodule by a manifest's name, a name only
    SwiftPM's loose pattern takes, two templates for one manifest."""
    templates = list(dict.fromkeys(named))
    verbatim: list[str] = []
    listed = list(entries)
    for folder in dict.fromkeys(posixpath.dirname(t) for t in named if _is_primary(t)):
        for path, kind in sorted(e for e in listed if posixpath.dirname(e[0]) == folder):
            found = _classify(path, kind)
            if found == "template" and path not in templates:
                templates.append(path)
            elif found == "verbatim":
                verbatim.append(path)
    rendered = _rendered_names(templates)
    return ManifestSet(tuple(templates), tuple(v for v in verbatim if v not in rendered))


def _is_primary(template: str) -> bool:
    name = posixpath.basename(template)
    return (without_suffix(name) or name) == PRIMARY


def _classify(path: str, kind: str) -> str | None:
    """"template", "verbatim" or None (not a manifest SwiftPM reads, nor a template of one)."""
    name = posixpath.basename(path)
    manifest = without_suffix(name)
    if manifest is not None:
        return "template" if is_version_specific(manifest) and _regular(path, kind) else None
    if _SWIFTPM_PATTERN.fullmatch(name) is None:
        return None
    if not is_version_specific(name):
        raise InputError(f"SwiftPM takes '{name}' for a version-specific manifest (its pattern "
                         "reads any character before 'swift') and then fails on it; rename it",
                         file=path)
    return "verbatim" if _regular(path, kind) else None


def _regular(path: str, kind: str) -> bool:
    if kind == "file":
        return True
    if kind == "dir":
        return False  # a folder is not read as a manifest
    raise InputError(f"a {kind} by a manifest's name is not followed: SwiftPM would read "
                     "whatever it points at as the manifest; make it a regular file", file=path)


def _rendered_names(templates: Sequence[str]) -> set[str]:
    """The manifest each template becomes; two templates for one manifest are refused."""
    seen: dict[str, str] = {}
    for template in templates:
        name = without_suffix(posixpath.basename(template))
        if name is None:
            continue  # `check --template x.swift`: a template named as is, rendered elsewhere
        manifest = posixpath.join(posixpath.dirname(template), name)
        if manifest in seen:
            raise InputError(f"two templates for {manifest}: {seen[manifest]} and {template}; "
                             "keep one", file=template)
        seen[manifest] = template
    return set(seen)


def check_verbatim(path: str, text: str) -> None:
    """A version-specific manifest published as it is must hold no placeholder (nor a
    near-miss): nothing renders it, and SwiftPM reads it instead of `Package.swift`."""
    for token in scan(text):
        line = LineIndex(text).line_of(token.start)
        name = posixpath.basename(path)
        what = "a near-miss of a placeholder" if token.kind == "malformed" else "a placeholder"
        raise InputError(
            f"'{token.text}' ({what}) is in a version-specific manifest the template ref holds "
            f"as is: it is published unrendered and SwiftPM reads it instead of Package.swift; "
            f"rename it {name}.template to have it rendered",
            file=path, line=line)


def render_verbatim(template: Template, version: str, built: Mapping[str, Artifact]) -> Rendered:
    """A version-specific manifest published as it is, read as the audit reads a published
    one: its text unchanged; the names it asks for are its binary targets' checksum sites, so
    both directions and the stub rules apply as to a template; a checksum that is not the one
    built for this version is an error (the same file ships with every version)."""
    # Here, not at the top: the audit's reader costs every `check` ~30 ms to import, and
    # only a release with a verbatim manifest needs it.
    from swiftpm_guard.core.audit import read_published

    published = read_published(template.text)
    placeholders = tuple(Placeholder(site.name, Location(template.path, site.line), site.role)
                         for site in published.sites if site.name is not None)
    findings = []
    for site in published.sites:
        artifact = built.get(site.name) if site.name is not None else None
        if artifact is None or artifact.sha256 is None or artifact.sha256 == site.value:
            continue
        findings.append(Finding(
            code="checksum-mismatch", severity=Severity.ERROR, subject=artifact.name,
            file=template.path, line=site.line,
            message=f"{template.path} is published as it is, with every version, and its "
                    f"checksum of '{artifact.name}' ({site.value[:12]}…) is not the one built "
                    f"for {version} ({artifact.sha256[:12]}…): whoever SwiftPM reads it for "
                    "gets another build or a checksum failure; make it a template "
                    f"({posixpath.basename(template.path)}.template) to have it filled in"))
    # Without a binary target it points at no release: no version to use.
    used = not placeholders or published.version == version
    return Rendered(template=template, text=template.text, placeholders=placeholders,
                    version_used=used, findings=tuple(findings))
