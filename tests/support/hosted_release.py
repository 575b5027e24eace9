"""A release in the real shape, rendered against zips served from a loopback server."""

from __future__ import annotations

from support.release import Release
from support.zip_server import Route, ZipServer
from swiftpm_guard.core.model import Artifact, Finding, Location, Rendered
from swiftpm_guard.core.render import render
from swiftpm_guard.core.urls import HostedZip, UrlSettings
from swiftpm_guard.sources.hosted import verify_with_stats
from swiftpm_guard.sources.template import load_template

FIXTURE_BASE = "https://example.invalid/frameworks/"


def rendered_release(release: Release, base: str,
                     checksums: dict[str, str] | None = None) -> tuple[Rendered, dict[str, Artifact]]:
    """The release's template pointed at `base`, rendered with its (or the given) checksums."""
    text = release.template.read_text().replace(FIXTURE_BASE, base)
    release.template.write_text(text)
    template, problems = load_template(release.template)
    assert problems == []
    sums = {**release.checksum_of, **(checksums or {})}
    built = {n: Artifact(n, c, Location("checksums.txt")) for n, c in sums.items()}
    rendered = render(template, release.version, built)
    assert rendered.findings == ()
    return rendered, built


def serve_release(server: ZipServer, release: Release) -> None:
    for path in release.artifacts.iterdir():
        server.routes[f"/frameworks/{path.name}"] = Route(path.read_bytes())


def verify_hosted(targets: list[HostedZip], settings: UrlSettings) -> list[Finding]:
    """Fetch every zip and compare: the findings alone, one per target a consumer would fail
    on (what `--verify-urls` reports, without its statistics)."""
    return [f for f in verify_with_stats(targets, settings)[0] if f is not None]
