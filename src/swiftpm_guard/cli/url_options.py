"""`--verify-urls` and `--verify-absent` for any command: the options, read into a request.

`add_url_arguments(parser)` adds the flag and the URL options; a command's run function then
calls `with_url_findings(args, outcome, request)` (check, render) or
`absent_findings(args, templates, version)`. Both do nothing unless the flag was given, so
wiring them in is one line each; the work is `jobs.verify_urls`.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from swiftpm_guard.core.model import Finding, Template
    from swiftpm_guard.core.urls import UrlSettings
    from swiftpm_guard.jobs.check import Outcome
    from swiftpm_guard.jobs.check_request import CheckRequest


#: What `--help` shows as the URL template's default.
HELP_DEFAULT_URL_TEMPLATE = "{base_url}{name}-{version}.zip"


def add_url_arguments(parser: argparse.ArgumentParser, *, flag: str = "--verify-urls") -> None:
    """The flag (`--verify-urls` or `--verify-absent`) plus how URLs are built and fetched."""
    group = parser.add_argument_group("hosted zips")
    if flag == "--verify-absent":
        group.add_argument(flag, action="store_true",
                           help="fail if any of this version's zip URLs already exists")
        group.add_argument("--absent-on-403", action="store_true",
                           help="with --verify-absent: a 403 means absent (an S3 bucket that "
                                "is public-read without list rights answers 403 for a "
                                "missing key)")
    else:
        group.add_argument(flag, action="store_true",
                           help="download every binary target's zip and compare its SHA-256 "
                                "with the manifest's checksum, as SwiftPM will")
    # The default is core.urls.DEFAULT_URL_TEMPLATE, filled in by url_settings: importing
    # core.urls to build every command's parser would cost each run what only URL checks use.
    # (tests/unit/cli/test_url_options.py keeps the help and the constant in step.)
    group.add_argument("--url-template", metavar="TEMPLATE",
                       help="zip URL with {base_url}, {name}, {version} "
                            f"(default {HELP_DEFAULT_URL_TEMPLATE})")
    group.add_argument("--base-url", metavar="URL",
                       help="default: the manifest's own `let url = \"https://…\"`")
    group.add_argument("--url-timeout", type=float, default=30.0, metavar="SECONDS",
                       help="per connect and per read (default 30)")
    group.add_argument("--url-retries", type=int, default=2, metavar="N",
                       help="retries after timeouts, resets, 5xx and 429 (default 2)")
    group.add_argument("--url-jobs", type=int, default=4, metavar="N",
                       help="downloads at once (default 4)")


def url_settings(args: argparse.Namespace) -> UrlSettings:
    from swiftpm_guard.core.urls import DEFAULT_URL_TEMPLATE, UrlSettings

    template = DEFAULT_URL_TEMPLATE if args.url_template is None else args.url_template
    return UrlSettings(template=template,
                       base_url=args.base_url,
                       timeout=args.url_timeout, retries=args.url_retries, jobs=args.url_jobs,
                       absent_on_403=getattr(args, "absent_on_403", False))


def with_url_findings(args: argparse.Namespace, outcome: Outcome,
                      request: CheckRequest) -> Outcome:
    """The outcome with url-* findings added when `--verify-urls` was given."""
    if not getattr(args, "verify_urls", False):
        return outcome
    from swiftpm_guard.jobs import verify_urls

    return verify_urls.with_hosted(outcome, request.version, url_settings(args),
                                   warn=request.warn)


def absent_findings(args: argparse.Namespace, templates: Sequence[Template], version: str,
                    warn: frozenset[str] = frozenset()) -> list[Finding]:
    """`url-exists` for each zip URL of `version` that is already there (`--verify-absent`)."""
    if not getattr(args, "verify_absent", False):
        return []
    from swiftpm_guard.jobs import verify_urls

    return verify_urls.absent(templates, version, url_settings(args), warn)
