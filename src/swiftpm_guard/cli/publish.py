"""`swiftpm-guard publish`: its options. Running it (`publish_run`) is imported only when the
subcommand runs, so building the parser for another subcommand loads no git machinery.

Exit 0 pushed (or clean dry run / no-push event), 1 findings (branch-exists included),
2 bad input (before git runs), 3 git or the remote failed.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from swiftpm_guard.cli.check_options import (
    add_report_arguments,
    add_source_arguments,
    add_version_arguments,
)
from swiftpm_guard.cli.remote_options import add_remote_arguments
from swiftpm_guard.cli.resolve_options import add_resolve_arguments
from swiftpm_guard.cli.url_options import add_url_arguments
from swiftpm_guard.core.git_names import DEFAULT_AUTHOR, DEFAULT_TEMPLATE_REF


def add_parsers(commands: argparse._SubParsersAction[Any]) -> None:
    """Register `publish` on the main parser's subcommands."""
    pub = commands.add_parser("publish", help="check, then push swiftpm-<version> create-only")
    add_source_arguments(pub)
    ref = pub.add_argument_group("template ref")
    ref.add_argument("--template-ref", default=DEFAULT_TEMPLATE_REF, metavar="REF",
                     help="branch (or refs/…) on the remote holding the template and stubs")
    ref.add_argument("--template", action="append", metavar="PATH",
                     help="template path inside the ref (default Package.swift.template)")
    add_version_arguments(ref)
    add_remote_arguments(pub)
    _add_push_arguments(pub)
    add_url_arguments(pub)
    add_resolve_arguments(pub)
    add_report_arguments(pub)


def _add_push_arguments(parser: argparse.ArgumentParser) -> None:
    push = parser.add_argument_group("pushing")
    push.add_argument("--dry-run", action="store_true",
                      help="check and show the manifest, diff and snippet; push nothing")
    push.add_argument("--allow-overwrite", action="store_true",
                      help="replace an existing branch (logged; leases on the commit seen)")
    push.add_argument("--update", action="store_true",
                      help="an existing branch gets a new commit on top of its tip, leased on "
                           "that tip (never a rewrite); excludes --allow-overwrite")
    push.add_argument("--exclude", action="append", metavar="PATH",
                      help="template-ref path left out of the published tree (a trailing '/' "
                           "names a folder; repeatable; default .github/; 'none': nothing)")
    push.add_argument("--author", default=DEFAULT_AUTHOR, metavar='"NAME <EMAIL>"',
                      help="author and committer of the published commit (never read from a "
                           "git config; default the github-actions bot)")
    push.add_argument("--event", default=os.environ.get("GITHUB_EVENT_NAME"), metavar="NAME",
                      help="triggering event (default $GITHUB_EVENT_NAME); pull_request and "
                           "merge_group events never push")
    push.add_argument("--package-url", metavar="URL",
                      help="the URL consumers use in .package(url:) (default: --repo)")


def run(args: argparse.Namespace) -> int:
    from swiftpm_guard.cli.publish_run import run as run_publish

    return run_publish(args)
