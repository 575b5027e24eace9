"""`swiftpm-guard check` and `swiftpm-guard render`: arguments → CheckRequest → the check job
→ reports, the manifest, and the exit code (0 consistent, 1 error findings).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from swiftpm_guard.cli.check_early import Early
from swiftpm_guard.cli.check_options import (
    add_report_arguments,
    add_source_arguments,
    add_version_arguments,
    check_request,
    workflow_specs,
)
from swiftpm_guard.cli.resolve_options import add_resolve_arguments, resolve_settings
from swiftpm_guard.cli.url_options import add_url_arguments, url_settings, with_url_findings
from swiftpm_guard.errors import UsageError
from swiftpm_guard.infra.prepared import Prepared
from swiftpm_guard.sources.workflow_ahead import ReadAhead

if TYPE_CHECKING:
    from swiftpm_guard.jobs.check import Outcome
    from swiftpm_guard.jobs.check_request import CheckRequest
    from swiftpm_guard.jobs.resolve import ResolveOutcome

COMMANDS = ("check", "render")
EXIT_OK, EXIT_FINDINGS = 0, 1


def add_parsers(commands: argparse._SubParsersAction[Any]) -> None:
    """Register `check` and `render` on the main parser's subcommands."""
    check = commands.add_parser("check", help="check the template against the built set")
    _add_common(check)
    add_url_arguments(check)
    add_resolve_arguments(check)
    render = commands.add_parser("render", help="check, then write the manifest if consistent")
    _add_common(render)
    add_url_arguments(render)
    add_resolve_arguments(render)
    render.add_argument("--output", required=True, metavar="PATH",
                        help="the manifest (a folder when several templates are given)")
    render.add_argument("--draft", metavar="PATH",
                        help="write the substituted text here even when findings block it")


def _add_common(parser: argparse.ArgumentParser) -> None:
    add_source_arguments(parser)
    template = parser.add_argument_group("template")
    template.add_argument("--template", action="append", required=True, metavar="PATH",
                          help="Package.swift template (repeat for Package@swift-X.swift "
                               "variants); *.j2 renders with sandboxed Jinja2")
    template.add_argument("--stubs-dir", metavar="DIR",
                          help="stub folders (default: .Package.swift/ or .swift/ beside it)")
    add_version_arguments(template)
    add_report_arguments(parser)


def manifest_name(template: Path) -> str:
    """`Package.swift.template` → `Package.swift`; `Package@swift-5.9.swift.j2` → …`.swift`."""
    name = template.name.removesuffix(".j2").removesuffix(".template")
    return name if name != template.name else name + ".out"


def _targets(option: str, where: str, templates: Sequence[Path]) -> list[Path]:
    """Where each rendered template goes: the path itself, or a folder for several."""
    path = Path(where)
    if len(templates) == 1 and not path.is_dir():
        return [path]
    if not path.is_dir():
        raise UsageError(f"{option} {where}: several templates need an existing folder")
    return [path / manifest_name(t) for t in templates]


def _report_files(args: argparse.Namespace, outcome: Outcome,
                  resolved: ResolveOutcome | None = None) -> list[tuple[Path, bytes]]:
    from swiftpm_guard.report.check import to_json, to_markdown

    files: list[tuple[Path, bytes]] = []
    if args.json:
        text = to_json(outcome.report)
        if resolved is not None:  # what SwiftPM said, target by target
            import json

            document = {**json.loads(text), "resolve": resolved.as_dict()}
            text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        files.append((Path(args.json), text.encode()))
    if args.markdown:
        markdown = to_markdown(outcome.report, args.debug_suffix)
        files.append((Path(args.markdown), markdown.encode()))
    return files


def _with_resolve(args: argparse.Namespace, outcome: Outcome, request: CheckRequest
                  ) -> tuple[Outcome, ResolveOutcome | None]:
    resolve = resolve_settings(args)
    if resolve is None:
        return outcome, None
    from swiftpm_guard.jobs.resolve import with_resolution

    return with_resolution(outcome, request.version, resolve, url_settings(args),
                           warn=request.warn, log=_log)


def _log(line: str) -> None:
    print(f"swiftpm-guard: {line}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    specs = workflow_specs(args)
    early = getattr(args, "started", None)
    syntax = early.syntax if isinstance(early, Early) else None
    if isinstance(early, Early) and early.workflows.specs == specs:
        return _run(args, early.workflows, syntax)
    with ReadAhead(specs) as ahead:
        return _run(args, ahead, syntax)


def _run(args: argparse.Namespace, ahead: ReadAhead, syntax: Prepared | None) -> int:
    from swiftpm_guard.jobs.check import evaluate
    from swiftpm_guard.report.check import console_line, verdict
    from swiftpm_guard.sinks.files import write_atomically

    settings = check_request(args, args.template, args.stubs_dir, read_ahead=ahead,
                             syntax_child=syntax)
    is_render = args.command == "render"
    outputs = _targets("--output", args.output, settings.templates) if is_render else []
    drafts = (_targets("--draft", args.draft, settings.templates)
              if is_render and args.draft else [])
    outcome = evaluate(settings, require_checksums=is_render)
    outcome = with_url_findings(args, outcome, settings)
    outcome, resolved = _with_resolve(args, outcome, settings)
    report = outcome.report
    texts = [r.text.encode("utf-8") for r in outcome.rendered]
    files = _report_files(args, outcome, resolved) + list(zip(drafts, texts, strict=False))
    if report.consistent:
        files += list(zip(outputs, texts, strict=False))
    write_atomically(files)
    if not args.quiet:
        for finding in report.findings:
            print(console_line(finding), file=sys.stderr)
    print(verdict(report))
    if is_render and report.consistent:
        for path in outputs:
            print(f"wrote {path}")
    return EXIT_OK if report.consistent else EXIT_FINDINGS
