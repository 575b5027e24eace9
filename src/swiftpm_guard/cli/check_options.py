"""The options every command that checks a release takes (check, render, publish), and the
`CheckRequest` they describe: the built set's sources, the version, and the reports.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from swiftpm_guard.cli import swift_options
from swiftpm_guard.sources.workflow_spec import WorkflowSpec

if TYPE_CHECKING:
    from swiftpm_guard.infra.prepared import Prepared
    from swiftpm_guard.jobs.check_request import CheckRequest
    from swiftpm_guard.sources.workflow_ahead import ReadAhead


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    sources = parser.add_argument_group("artifact sources (repeatable, combined)")
    sources.add_argument("--artifacts", action="append", default=[], metavar="DIR",
                         help="folder of <name>-<version>.zip files to hash and inspect")
    sources.add_argument("--checksums", action="append", default=[], metavar="FILE",
                         help="'<name> <sha256>' or sha256sum lines")
    sources.add_argument("--frameworks", action="append", default=[], metavar="NAMES",
                         help="declared base names 'a,b,c' or '@FILE' (no checksums)")
    sources.add_argument("--frameworks-from", action="append", default=[],
                         metavar="WORKFLOW.yml:JOB:VAR",
                         help="the bash array VAR=( … ) in a workflow job's script")


def add_version_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--version", required=True, help="X.Y.Z or X.Y.Z.YYYYMMDD")
    group.add_argument("--version-pattern", metavar="REGEX",
                       help="accept other version shapes (still no unsafe characters)")
    group.add_argument("--debug-suffix", default="_debug", metavar="SUFFIX",
                       help="suffix of every framework's debug twin (default _debug)")
    group.add_argument("--render-timeout", type=float, default=20.0, metavar="SECONDS",
                       help="deadline for rendering a Jinja2 template (default 20)")


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    out = parser.add_argument_group("reports")
    out.add_argument("--warn", action="append", default=[], metavar="CODE",
                     help="downgrade a finding code to a warning (repeatable)")
    out.add_argument("--json", metavar="OUT.json", help="write the JSON report")
    out.add_argument("--markdown", metavar="OUT.md", help="write the Markdown report")
    out.add_argument("--quiet", "-q", action="store_true", help="print only the verdict")
    swift_options.add_arguments(parser)


def workflow_specs(args: argparse.Namespace) -> tuple[WorkflowSpec, ...]:
    """`--frameworks-from` as specs (exit 2 for a malformed one)."""
    return tuple(WorkflowSpec.parse(s) for s in args.frameworks_from)


def check_request(args: argparse.Namespace, templates: list[str],
                  stubs_dir: str | None = None, *,
                  read_ahead: ReadAhead | None = None,
                  syntax_child: Prepared | None = None) -> CheckRequest:
    """The check these options describe (validated on construction: exit 2)."""
    # Here, not at the top: the check's modules load after the CLI has started reading the
    # workflows in the background (cli.check.run).
    from swiftpm_guard.jobs.check_request import CheckRequest

    extra = {} if args.version_pattern is None else {"version_pattern": args.version_pattern}
    return CheckRequest(
        templates=tuple(Path(t) for t in templates),
        version=args.version,
        artifacts=tuple(Path(a) for a in args.artifacts),
        checksums=tuple(Path(c) for c in args.checksums),
        frameworks=tuple(args.frameworks),
        frameworks_from=workflow_specs(args),
        stubs_dir=Path(stubs_dir) if stubs_dir else None,
        debug_suffix=args.debug_suffix,
        warn=frozenset(args.warn),
        render_seconds=args.render_timeout,
        swift=args.swift,
        swift_cache=Path(args.swift_cache) if args.swift_cache else None,
        read_ahead=read_ahead,
        syntax_child=syntax_child,
        **extra,
    )
