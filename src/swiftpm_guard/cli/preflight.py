"""`swiftpm-guard preflight`: is `swiftpm-<version>` still free (and its zip URLs)?

Exit 0 the branch is free, 1 it exists, 2 bad input, 3 git or the remote failed.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from swiftpm_guard.cli.remote_options import add_remote_arguments, token_from_env
from swiftpm_guard.cli.url_options import add_url_arguments, url_settings
from swiftpm_guard.core.checks import DEFAULT_VERSION_PATTERN
from swiftpm_guard.core.git_names import DEFAULT_TEMPLATE_REF


def add_parsers(commands: argparse._SubParsersAction[Any]) -> None:
    """Register `preflight` on the main parser's subcommands."""
    pre = commands.add_parser("preflight", help="exit 1 if swiftpm-<version> already exists")
    pre.add_argument("--version", required=True, help="X.Y.Z or X.Y.Z.YYYYMMDD")
    pre.add_argument("--version-pattern", default=DEFAULT_VERSION_PATTERN, metavar="REGEX",
                     help="accept other version shapes (still no unsafe characters)")
    add_remote_arguments(pre)
    add_url_arguments(pre, flag="--verify-absent")
    pre.add_argument(
        "--template-ref",
        default=DEFAULT_TEMPLATE_REF,
        metavar="REF",
        help="with --verify-absent: where the template naming the zips is",
    )
    pre.add_argument(
        "--template",
        action="append",
        metavar="PATH",
        help="with --verify-absent: template path inside the ref (default Package.swift.template)",
    )


def run(args: argparse.Namespace) -> int:
    from swiftpm_guard.jobs.preflight import PreflightRequest, preflight
    from swiftpm_guard.report.check import console_line

    token, source = token_from_env(args)
    request = PreflightRequest(
        version=args.version,
        repo=args.repo,
        branch_prefix=args.branch_prefix,
        token=token,
        token_source=source,
        git_timeout=args.git_timeout,
        verify_absent=url_settings(args) if args.verify_absent else None,
        template_ref=args.template_ref,
        templates=tuple(args.template or ["Package.swift.template"]),
        version_pattern=args.version_pattern,
    )
    result = preflight(request)
    for finding in result.findings:
        print(console_line(finding), file=sys.stderr)
    if not result.findings:
        print(f"swiftpm-guard: {result.branch} is free on {request.remote.url}")
    return result.exit_code
