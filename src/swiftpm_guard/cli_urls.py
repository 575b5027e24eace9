"""`--verify-urls` and `--verify-absent` for any command: the options and the glue.

`add_url_arguments(parser)` adds the flag and the URL options; a command's run function then
calls `with_url_findings(args, outcome, settings)` (check, render, publish) or
`absent_findings(args, templates, version)` (preflight). Both do nothing unless the flag was
given, so wiring them in is one line each.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Iterable, Sequence

from swiftpm_guard.model import Finding, Location, Severity, Template
from swiftpm_guard.pipeline import Outcome
from swiftpm_guard.placeholders import LineIndex, scan
from swiftpm_guard.published_manifest import base_url_in
from swiftpm_guard.settings import Settings
from swiftpm_guard.urls import (
    DEFAULT_URL_TEMPLATE,
    HostedZip,
    UrlSettings,
    zip_url,
    zips_of_rendered,
)


def add_url_arguments(parser: argparse.ArgumentParser, *, flag: str = "--verify-urls") -> None:
    """The flag (`--verify-urls` or `--verify-absent`) plus how URLs are built and fetched."""
    group = parser.add_argument_group("hosted zips")
    if flag == "--verify-absent":
        group.add_argument(flag, action="store_true",
                           help="fail if any of this version's zip URLs already exists")
    else:
        group.add_argument(flag, action="store_true",
                           help="download every binary target's zip and compare its SHA-256 "
                                "with the manifest's checksum, as SwiftPM will")
    group.add_argument("--url-template", default=DEFAULT_URL_TEMPLATE, metavar="TEMPLATE",
                       help="zip URL with {base_url}, {name}, {version} "
                            f"(default {DEFAULT_URL_TEMPLATE.replace('%', '%%')})")
    group.add_argument("--base-url", metavar="URL",
                       help="default: the manifest's own `let url = \"https://…\"`")
    group.add_argument("--url-timeout", type=float, default=30.0, metavar="SECONDS",
                       help="per connect and per read (default 30)")
    group.add_argument("--url-retries", type=int, default=2, metavar="N",
                       help="retries after timeouts, resets, 5xx and 429 (default 2)")
    group.add_argument("--url-jobs", type=int, default=4, metavar="N",
                       help="downloads at once (default 4)")


def url_settings(args: argparse.Namespace) -> UrlSettings:
    return UrlSettings(template=args.url_template, base_url=args.base_url,
                       timeout=args.url_timeout, retries=args.url_retries, jobs=args.url_jobs)


def apply_warn(findings: Iterable[Finding], warn: frozenset[str]) -> list[Finding]:
    return [dataclasses.replace(f, severity=Severity.WARNING) if f.code in warn else f
            for f in findings]


def with_url_findings(args: argparse.Namespace, outcome: Outcome,
                      settings: Settings) -> Outcome:
    """The outcome with url-* findings added when `--verify-urls` was given."""
    if not getattr(args, "verify_urls", False):
        return outcome
    from swiftpm_guard.sources.hosted import verify_hosted

    options = url_settings(args)
    targets = zips_of_rendered(outcome.rendered, outcome.built, settings.version, options)
    findings = apply_warn(verify_hosted(targets, options), settings.warn)
    report = dataclasses.replace(outcome.report,
                                 findings=outcome.report.findings + tuple(findings))
    return dataclasses.replace(outcome, report=report)


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


def absent_findings(args: argparse.Namespace, templates: Sequence[Template], version: str,
                    warn: frozenset[str] = frozenset()) -> list[Finding]:
    """`url-exists` for each zip URL of `version` that is already there (`--verify-absent`)."""
    if not getattr(args, "verify_absent", False):
        return []
    from swiftpm_guard.sources.hosted import verify_absent

    options = url_settings(args)
    return apply_warn(verify_absent(zips_of_templates(templates, version, options), options),
                      warn)
