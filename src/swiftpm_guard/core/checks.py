"""The two-way check and the rest: model in, findings and report out (pure).

Direction 1: every name a template asks for has a built artifact (else the placeholder text
ships as a checksum and every consumer fails). Direction 2: every built name is asked for, by
exact name (a `_debug` twin claims only itself), by every manifest of its package: a consumer
reads one of `Package.swift` and the `Package@swift-X.swift` beside it, so each must stand on
its own (else the product silently vanishes for that consumer).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from swiftpm_guard.core.model import (
    SHA256_RE,
    Artifact,
    Finding,
    Location,
    Placeholder,
    Rendered,
    Report,
    Role,
    Severity,
    Template,
    TemplateSummary,
)
from swiftpm_guard.core.static_gate import tools_version_findings

#: Release versions are `X.Y.Z`; nightlies append the Pacific date: `X.Y.Z.YYYYMMDD`.
DEFAULT_VERSION_PATTERN = r"[0-9]+\.[0-9]+\.[0-9]+(?:\.[0-9]{8})?"


@dataclass(frozen=True, slots=True)
class CheckOptions:
    version: str
    debug_suffix: str = "_debug"
    version_pattern: str = DEFAULT_VERSION_PATTERN
    warn: frozenset[str] = frozenset()
    #: `render` needs real checksums; `check` on a PR accepts declared names without them.
    require_checksums: bool = False
    #: No version was given (names only): zips of any version are not a mismatch.
    names_only: bool = False
    #: `--accept-static`: without SwiftPM, `needs-swiftpm` is a warning (core.static_gate).
    accept_static: bool = False


def base_name(name: str, debug_suffix: str) -> str:
    if debug_suffix and name.endswith(debug_suffix) and len(name) > len(debug_suffix):
        return name[: -len(debug_suffix)]
    return name


def merge_artifacts(artifacts: Iterable[Artifact]) -> tuple[dict[str, Artifact], list[Finding]]:
    """Combine every source into one built set; two checksums for one name is a finding."""
    built: dict[str, Artifact] = {}
    findings: list[Finding] = []
    for artifact in artifacts:
        seen = built.get(artifact.name)
        if seen is None or (seen.sha256 is None and artifact.sha256 is not None):
            built[artifact.name] = artifact
            continue
        if artifact.sha256 is not None and artifact.sha256 != seen.sha256:
            findings.append(_finding(
                "conflicting-artifact", artifact.name, artifact.origin.file, artifact.origin.line,
                f"'{artifact.name}' has checksum {artifact.sha256} here but {seen.sha256} "
                f"from {_where(seen)}",
            ))
    return built, findings


def check(rendered: Sequence[Rendered], artifacts: Sequence[Artifact], options: CheckOptions,
          source_findings: Iterable[Finding] = ()) -> Report:
    """Every finding for these rendered templates against every artifact read, as a Report."""
    built, findings = merge_artifacts(artifacts)
    findings += source_findings
    findings += _version_findings(options)
    findings += _artifact_findings(artifacts, options)
    requested: dict[str, Placeholder] = {}
    for item in rendered:
        findings += item.findings
        findings += _template_findings(item, built, options)
        findings += tools_version_findings(item)
        for placeholder in item.placeholders:
            requested.setdefault(placeholder.name, placeholder)
    unclaimed = sorted(n for n in built if n not in requested)
    findings += [_unclaimed_finding(built[name]) for name in unclaimed]
    missed = _missed_by_manifest(rendered, built)
    findings += [_missed_finding(built[name], path, by) for name, path, by in missed]
    unclaimed = sorted({*unclaimed, *(name for name, _path, _by in missed)})
    summaries = tuple(_summary(item) for item in rendered)
    primary = summaries[0] if summaries else None
    products = primary.products if primary else None
    targets = primary.binary_targets if primary else None
    return Report(version=options.version, templates=summaries,
                  placeholders=tuple(sorted(requested)), built=tuple(sorted(built)),
                  unfilled=tuple(sorted(n for n in requested if n not in built)),
                  unclaimed=tuple(unclaimed), products=products, binary_targets=targets,
                  counts_source="static" if products is not None or targets is not None else None,
                  findings=tuple(apply_warn(findings, options.warn)),
                  artifacts=tuple(built[name] for name in sorted(built)))


def _where(artifact: Artifact) -> str:
    origin = artifact.origin
    return f"{origin.file}:{origin.line}" if origin.line else origin.file


def _finding(code: str, subject: str, file: str | None, line: int | None, message: str,
             severity: Severity = Severity.ERROR) -> Finding:
    return Finding(code=code, severity=severity, subject=subject, message=message,
                   file=file, line=line)


def _version_findings(options: CheckOptions) -> list[Finding]:
    if options.names_only or re.fullmatch(options.version_pattern, options.version,
                                          flags=re.ASCII):
        return []
    return [_finding("bad-version", options.version, None, None,
                     f"version '{options.version}' does not match {options.version_pattern}")]


def _artifact_findings(artifacts: Iterable[Artifact], options: CheckOptions) -> list[Finding]:
    findings: list[Finding] = []
    for artifact in artifacts:
        file, line = artifact.origin.file, artifact.origin.line
        if artifact.sha256 is not None and not SHA256_RE.fullmatch(artifact.sha256):
            findings.append(_finding(
                "bad-checksum", artifact.name, file, line,
                f"checksum of '{artifact.name}' is not 64 lowercase hex digits: "
                f"'{artifact.sha256[:80]}'",
            ))
        if (artifact.version is not None and artifact.version != options.version
                and not options.names_only):
            findings.append(_finding(
                "version-mismatch", artifact.name, file, line,
                f"'{artifact.file_name}' is version {artifact.version}, "
                f"not {options.version}",
            ))
    return findings


def _template_findings(item: Rendered, built: dict[str, Artifact],
                       options: CheckOptions) -> list[Finding]:
    findings: list[Finding] = []
    path = item.template.path
    seen: set[str] = set()
    for placeholder in item.placeholders:
        name, where = placeholder.name, placeholder.location
        if name in seen:
            continue
        seen.add(name)
        artifact = built.get(name)
        if artifact is None and item.template.verbatim:
            findings.append(_finding(
                "unfilled-placeholder", name, where.file, where.line,
                f"{path} (published as it is) declares binary target '{name}' but no source "
                "built it; whoever SwiftPM reads it for fetches a zip this release lacks",
            ))
        elif artifact is None:
            findings.append(_finding(
                "unfilled-placeholder", name, where.file, where.line,
                f"the template asks for '{name}' but no source built it; publishing stays "
                "blocked until it is built or the template stops asking (published, the "
                "placeholder would break every consumer)",
            ))
        elif artifact.sha256 is None and options.require_checksums:
            findings.append(_not_built(artifact, where, options.version))
    if not item.version_used:
        findings.append(_finding(
            "missing-version", "__VERSION__", path, None,
            "the template never uses the version; binary target URLs cannot point at this release",
            Severity.WARNING,
        ))
    findings += _text_stub_findings(item)
    return findings


def _not_built(artifact: Artifact, asked: Location, version: str) -> Finding:
    """A name declared (a FRAMEWORKS line) that no zip or checksum gave: the finding stands on
    the line that declares it, which is where the build was told to make it."""
    name = artifact.name
    declared = artifact.origin
    on = declared if declared.line else asked
    return _finding(
        "missing-checksum", name, on.file, on.line,
        f"'{name}' is declared at {_where(artifact)} but was not built: {name}-{version}.zip "
        f"is missing, so its checksum is unknown and publish refuses this release (the "
        f"template asks for it at {asked.file}{f':{asked.line}' if asked.line else ''})",
    )


def _text_stub_findings(item: Rendered) -> list[Finding]:
    """What the text decides about stub folders: one no placeholder asks for is an orphan, one
    without a source file is empty. Which names are products is SwiftPM's to say."""
    asked = {p.name for p in item.placeholders}
    findings: list[Finding] = []
    for stub in item.template.stubs:
        if stub.name not in asked:
            findings.append(_finding(
                "orphan-stub", stub.name, stub.location.file, None,
                f"stub folder for '{stub.name}' has no product (not asked for by the template)",
            ))
        elif not stub.has_sources:
            findings.append(_finding(
                "empty-stub", stub.name, stub.location.file, None,
                f"stub folder for '{stub.name}' holds no source file; SwiftPM rejects it",
            ))
    return findings


def static_roles(item: Rendered) -> dict[str, Role]:
    """Each requested name's role: the template's word first, then a stub folder's evidence."""
    stubs = {stub.name for stub in item.template.stubs}
    roles: dict[str, Role] = {}
    for placeholder in item.placeholders:
        role = placeholder.role
        if role is Role.UNKNOWN and placeholder.name in stubs:
            role = Role.PRODUCT
        if roles.get(placeholder.name, Role.UNKNOWN) is Role.UNKNOWN:
            roles[placeholder.name] = role
    return roles


def _stub_path(template: Template, name: str) -> str:
    if template.stubs_dir is None:
        return f".Package.swift/{name}/ (there is no stub folder beside the template)"
    return f"{template.stubs_dir}/{name}/"


def stub_findings(item: Rendered) -> list[Finding]:
    """Missing, empty and orphan stub folders of one manifest (the audit applies the same rules)."""
    template = item.template
    stubs = {stub.name: stub for stub in template.stubs}
    where = {p.name: p.location for p in reversed(item.placeholders)}
    findings: list[Finding] = []
    roles = static_roles(item)
    for name, role in sorted(roles.items()):
        loc = where[name]
        if role is Role.PRODUCT and name not in stubs:
            findings.append(_finding(
                "missing-stub", name, loc.file, loc.line,
                f"product '{name}' has no stub folder {_stub_path(template, name)}; "
                "SwiftPM rejects a source target without sources",
            ))
        elif role is Role.UNKNOWN:
            findings.append(_finding(
                "unknown-role", name, loc.file, loc.line,
                f"cannot tell from the template whether '{name}' is a product (needs "
                f"{_stub_path(template, name)}) or a binary-only target; not guessing",
                Severity.WARNING,
            ))
    for stub in template.stubs:
        file = stub.location.file
        if roles.get(stub.name) is not Role.PRODUCT:
            what = ("a binary-only target" if roles.get(stub.name) is Role.BINARY_ONLY
                    else "not asked for by the template")
            findings.append(_finding(
                "orphan-stub", stub.name, file, None,
                f"stub folder for '{stub.name}' has no product ({what})",
            ))
        elif not stub.has_sources:
            findings.append(_finding(
                "empty-stub", stub.name, file, None,
                f"stub folder for '{stub.name}' holds no source file; SwiftPM rejects it",
            ))
    return findings


def _missed_by_manifest(rendered: Sequence[Rendered], built: dict[str, Artifact]
                        ) -> list[tuple[str, str, str]]:
    """(name, manifest, asked by): a built name another manifest of the same package (folder)
    asks for and this one does not. Templates in other folders are other packages."""
    packages: dict[str, list[Rendered]] = {}
    for item in rendered:
        packages.setdefault(posixpath.dirname(item.template.path), []).append(item)
    missed: list[tuple[str, str, str]] = []
    for items in packages.values():
        asks = {item.template.path: {p.name for p in item.placeholders} for item in items}
        for name in sorted(built):
            askers = [path for path, names in asks.items() if name in names]
            missed += [(name, path, askers[0]) for path in asks if askers and path not in askers]
    return missed


def _unclaimed_finding(artifact: Artifact) -> Finding:
    return _finding(
        "unclaimed-artifact", artifact.name, artifact.origin.file, artifact.origin.line,
        f"'{artifact.name}' was {'built' if artifact.sha256 is not None else 'declared'} but "
        f"no template asks for '{artifact.name}' (by exact name: a debug twin claims only "
        "itself); publishing stays blocked until a template has its product or the build "
        "stops making it (published, the product would vanish)",
    )


def _missed_finding(artifact: Artifact, path: str, asker: str) -> Finding:
    return _finding(
        "unclaimed-artifact", artifact.name, path, None,
        f"'{artifact.name}' was {'built' if artifact.sha256 is not None else 'declared'} and "
        f"{asker} asks for it, but {path} does not; a consumer whose SwiftPM reads {path} "
        "gets no product for it: every manifest must ask for every built name on its own",
    )


def _summary(item: Rendered) -> TemplateSummary:
    names = tuple(dict.fromkeys(p.name for p in item.placeholders))
    roles = static_roles(item)
    products = (None if any(r is Role.UNKNOWN for r in roles.values())
                else sum(r is Role.PRODUCT for r in roles.values()))
    return TemplateSummary(path=item.template.path, placeholders=tuple(sorted(names)),
                           products=products, binary_targets=len(names))


def apply_warn(findings: Iterable[Finding], warn: frozenset[str]) -> list[Finding]:
    """`--warn CODE`: error findings of those codes become warnings (notices stay notices)."""
    return [replace(f, severity=Severity.WARNING)
            if f.code in warn and f.severity is Severity.ERROR else f
            for f in findings]

