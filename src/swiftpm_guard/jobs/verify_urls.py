"""The verify-urls job: fetch every zip a manifest points at, as SwiftPM will, and say what is
wrong with each (`--verify-urls`); or say which zips of a version already exist
(`--verify-absent`). Used by check, render, publish, preflight and the action alike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from swiftpm_guard.core.audit import base_url_in
from swiftpm_guard.core.lines import LineIndex
from swiftpm_guard.core.model import Artifact, Finding, HostedStats, Location, Rendered, Template
from swiftpm_guard.core.option_names import option
from swiftpm_guard.core.render import scan
from swiftpm_guard.core.urls import HostedZip, UrlSettings, zip_url, zips_of_rendered


def hosted(rendered: Sequence[Rendered], built: Mapping[str, Artifact], version: str,
           options: UrlSettings, *, log: Callable[[str], None]
           ) -> tuple[list[Finding], HostedStats, list[tuple[str, str]]]:
    """url-* findings for every zip the rendered manifests name, what fetching took, and the
    URLs whose host could not be reached at all (DNS, connect, TLS) with why: those are not
    findings about the release, and the caller decides (exit 3 unless something else already
    refuses the release)."""
    from swiftpm_guard.sources.hosted import verify_reachable

    zips = zips_of_rendered(rendered, built, version, options)
    log(f"verify-urls: fetching {len(zips)} zip URLs")
    results, stats, unreachable = verify_reachable(zips, options)
    log(f"verify-urls: {stats.sentence()}")
    return [f for f in results if f is not None], stats, unreachable


def could_not_verify(unreachable: Sequence[tuple[str, str]]) -> str:
    """`could not verify 3 zip URLs: https://…: DNS: …`: one line."""
    url, why = unreachable[0]
    more = f" (and {len(unreachable) - 1} more)" if len(unreachable) > 1 else ""
    count = f"{len(unreachable)} zip URL{'s' if len(unreachable) != 1 else ''}"
    return f"could not verify {count}: {url}: {why}{more}"


def zips_of_templates(templates: Sequence[Template], version: str,
                      options: UrlSettings) -> list[HostedZip]:
    """Every checksum placeholder of placeholder-flavour templates, at its URL (no checksum)."""
    zips: dict[str, HostedZip] = {}
    for template in templates:
        base = base_url_in(template.text)
        lines = LineIndex(template.text)
        for token in scan(template.text):
            if token.kind != "checksum":
                continue
            url = zip_url(options, name=token.name, version=version, base_url=base,
                          where=template.path)
            where = Location(template.path, lines.line_of(token.start))
            zips.setdefault(url, HostedZip(token.name, url, None, where))
    return list(zips.values())


def absent(templates: Sequence[Template], version: str, options: UrlSettings, *,
           unpublished: str | None = None) -> list[Finding]:
    """`url-exists` for each zip URL of `version` that is already there; `unpublished` names
    the version's branch when it does not exist, so the finding says what that means."""
    from swiftpm_guard.sources.hosted import OVERWRITE, verify_absent

    why = OVERWRITE if unpublished is None else unfinished(unpublished)
    zips = zips_of_templates(templates, version, options)
    return verify_absent(zips, options, why=why)


def unfinished(branch: str) -> str:
    """Zips without their branch: a run uploaded and then did not publish."""
    return (f"{branch} does not exist, so an earlier run uploaded this version's zips and "
            "did not publish. Finish it by publishing those zips (re-run that run, or publish "
            f"from its artifact: run-id, {option('artifacts')}), or replace them with this build's "
            "by running without verify-absent")
