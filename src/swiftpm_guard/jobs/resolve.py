"""The `resolve` proof: does the real SwiftPM give a consumer every binary target we publish?

One throwaway consumer per rendered manifest, resolved by `swift package resolve`
(infra.swiftpm) and read by core.resolution; the check job runs it only after a passing check,
since with placeholders left SwiftPM could only repeat what the check said.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from swiftpm_guard.core.model import Artifact, Finding, Rendered
from swiftpm_guard.core.resolution import Resolution, ResolveTarget, findings
from swiftpm_guard.core.urls import UrlSettings, zips_of_rendered

DEFAULT_TIMEOUT = 900.0  # a real manifest took ~45 s of CPU, and CI shares two cores


@dataclass(frozen=True, slots=True, kw_only=True)
class ResolveSettings:
    """`swift`: an executable that can reach the zips' hosts (on macOS the real `swift`; on
    Linux the toolchain's `bin/swift-net`, never the network-less `bin/swift`)."""

    swift: str
    cache_dir: Path | None = None  # None: ~/.cache/swiftpm-guard/resolve
    timeout: float = DEFAULT_TIMEOUT
    ca_file: Path | None = None  # a PEM the run trusts too (the wrapper's SWIFTPM_GUARD_CA_FILE)


@dataclass(frozen=True, slots=True)
class ResolveOutcome:
    findings: tuple[Finding, ...]
    resolutions: tuple[Resolution, ...]
    seconds: float
    cached: bool  # every manifest's result came from the cache

    def as_dict(self) -> dict[str, object]:
        return {
            "seconds": self.seconds,
            "cached": self.cached,
            "manifests": [
                {"manifest": r.manifest, "exit_code": r.exit_code, "ok": r.ok,
                 "targets": [t.as_dict() for t in r.targets],
                 "other_errors": list(r.other_errors)}
                for r in self.resolutions
            ],
        }


def resolve_targets(rendered: Rendered, built: Mapping[str, Artifact], version: str,
                    url_settings: UrlSettings) -> list[ResolveTarget]:
    """Every binary target of one manifest at the URL the manifest computes."""
    return [ResolveTarget(z.name, z.url, z.sha256, z.location)
            for z in zips_of_rendered([rendered], built, version, url_settings)]


def resolve_rendered(rendered: Sequence[Rendered], built: Mapping[str, Artifact], version: str,
                     settings: ResolveSettings,
                     url_settings: UrlSettings | None = None) -> ResolveOutcome:
    """Resolve a consumer of each rendered manifest; findings per binary target."""
    from swiftpm_guard.infra.swiftpm import Resolver, package_files  # runs the real SwiftPM

    started = time.monotonic()
    resolver = Resolver(settings.swift, cache_dir=settings.cache_dir,
                        timeout=settings.timeout, ca_file=settings.ca_file)
    urls = url_settings if url_settings is not None else UrlSettings()
    found: list[Finding] = []
    resolutions: list[Resolution] = []
    all_cached = True
    for item in rendered:
        targets = resolve_targets(item, built, version, urls)
        run = resolver.resolve(item.template.path, package_files(item), targets)
        all_cached = all_cached and run.cached
        resolutions.append(run.resolution)
        found += findings(run.resolution, targets)
    return ResolveOutcome(tuple(found), tuple(resolutions), time.monotonic() - started,
                          all_cached and bool(rendered))
