"""`swiftpm-guard check` and `swiftpm-guard render`: arguments → CheckRequest → the check job
→ reports, the manifest, and the exit code (0 consistent, 1 error findings).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from swiftpm_guard.cli import swift_options
from swiftpm_guard.cli.url_options import add_url_arguments, with_url_findings
from swiftpm_guard.errors import UsageError
from swiftpm_guard.jobs.check import Outcome, evaluate
from swiftpm_guard.jobs.check_request import CheckRequest
from swiftpm_guard.report.check import console_line, to_json, to_markdown, verdict
from swiftpm_guard.sinks.files import write_atomically
from swiftpm_guard.sources.workflow import WorkflowSpec

COMMANDS = ("check", "render")
EXIT_OK, EXIT_FINDINGS = 0, 1


def add_parsers(commands: argparse._SubParsersAction[Any]) -> None:
    """Register `check` and `render` on the main parser's subcommands."""
    check = commands.add_parser("check", help="check the template against the built set")
    _add_common(check)
    add_url_arguments(check)
    render = commands.add_parser("render", help="check, then write the manifest if consistent")
    _add_common(render)
    add_url_arguments(render)
    render.add_argument("--output", required=True, metavar="PATH",
                        help="the manifest (a folder when several templates are given)")
    render.add_argument("--draft", metavar="PATH",
                        help="write the substituted text here even when findings block it")


def _add_common(parser: argparse.ArgumentParser) -> None:
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
    template = parser.add_argument_group("template")
    template.add_argument("--template", action="append", required=True, metavar="PATH",
                          help="Package.swift template (repeat for Package@swift-X.swift "
                               "variants); *.j2 renders with sandboxed Jinja2")
    template.add_argument("--stubs-dir", metavar="DIR",
                          help="stub folders (default: .Package.swift/ or .swift/ beside it)")
    template.add_argument("--version", required=True, help="X.Y.Z or X.Y.Z.YYYYMMDD")
    template.add_argument("--version-pattern", metavar="REGEX",
                          help="accept other version shapes (still no unsafe characters)")
    template.add_argument("--debug-suffix", default="_debug", metavar="SUFFIX")
    template.add_argument("--render-timeout", type=float, default=20.0, metavar="SECONDS",
                          help="deadline for rendering a Jinja2 template (default 20)")
    out = parser.add_argument_group("reports")
    out.add_argument("--warn", action="append", default=[], metavar="CODE",
                     help="downgrade a finding code to a warning (repeatable)")
    out.add_argument("--json", metavar="OUT.json", help="write the JSON report")
    out.add_argument("--markdown", metavar="OUT.md", help="write the Markdown report")
    out.add_argument("--quiet", "-q", action="store_true", help="print only the verdict")
    swift_options.add_arguments(parser)


def settings_from(args: argparse.Namespace) -> CheckRequest:
    kwargs: dict[str, object] = {}
    if args.version_pattern is not None:
        kwargs["version_pattern"] = args.version_pattern
    return CheckRequest(
        templates=tuple(Path(t) for t in args.template),
        version=args.version,
        artifacts=tuple(Path(a) for a in args.artifacts),
        checksums=tuple(Path(c) for c in args.checksums),
        frameworks=tuple(args.frameworks),
        frameworks_from=tuple(WorkflowSpec.parse(s) for s in args.frameworks_from),
        stubs_dir=Path(args.stubs_dir) if args.stubs_dir else None,
        debug_suffix=args.debug_suffix,
        warn=frozenset(args.warn),
        render_seconds=args.render_timeout,
        swift=args.swift,
        swift_cache=Path(args.swift_cache) if args.swift_cache else None,
        **kwargs,  # type: ignore[arg-type]
    )


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


def _report_files(args: argparse.Namespace, outcome: Outcome) -> list[tuple[Path, bytes]]:
    files: list[tuple[Path, bytes]] = []
    if args.json:
        files.append((Path(args.json), to_json(outcome.report).encode()))
    if args.markdown:
        markdown = to_markdown(outcome.report, args.debug_suffix)
        files.append((Path(args.markdown), markdown.encode()))
    return files


def run(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    is_render = args.command == "render"
    outputs = _targets("--output", args.output, settings.templates) if is_render else []
    drafts = (_targets("--draft", args.draft, settings.templates)
              if is_render and args.draft else [])
    outcome = evaluate(settings, require_checksums=is_render)
    outcome = with_url_findings(args, outcome, settings)
    report = outcome.report
    texts = [r.text.encode("utf-8") for r in outcome.rendered]
    files = _report_files(args, outcome) + list(zip(drafts, texts, strict=False))
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
