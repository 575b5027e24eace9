"""`swiftpm-guard check` and `swiftpm-guard render`: arguments → CheckRequest → the check job
→ reports, the manifest, and the exit code (0 consistent, 1 error findings).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from swiftpm_guard.cli.options import (
    add_report_arguments,
    add_resolve_arguments,
    add_source_arguments,
    add_url_arguments,
    add_version_arguments,
    check_request,
    say,
    spelled_files,
    tell,
)
from swiftpm_guard.errors import UsageError
from swiftpm_guard.jobs.adapters import Adapters

if TYPE_CHECKING:
    from swiftpm_guard.jobs.check import CheckResult

EXIT_OK, EXIT_FINDINGS = 0, 1


def add_parsers(commands: argparse._SubParsersAction[Any]) -> None:
    """Register `check` and `render` on the main parser's subcommands."""
    check_parser = commands.add_parser("check", help="check the template against the built set")
    _add_common(check_parser)
    render = commands.add_parser("render", help="check, then write the manifest if consistent")
    _add_common(render)
    render.add_argument("--output", required=True, metavar="PATH",
                        help="the manifest (a folder when several templates are given)")
    render.add_argument("--draft", metavar="PATH",
                        help="write the substituted text here even when findings block it")


def _add_common(parser: argparse.ArgumentParser) -> None:
    add_source_arguments(parser, refs=True)
    template = parser.add_argument_group("template")
    template.add_argument("--template", action="append", required=True, metavar="PATH",
                          help="Package.swift template; every Package@swift-X.swift template "
                               "or manifest beside it is checked too (repeat for others); *.j2 "
                               "renders with sandboxed Jinja2")
    template.add_argument("--stubs-dir", metavar="DIR",
                          help="stub folders (default: .Package.swift/ or .swift/ beside it)")
    add_version_arguments(template, required=parser.prog.endswith("render"))
    add_report_arguments(parser)
    add_url_arguments(parser)
    add_resolve_arguments(parser)


def manifest_name(template: Path) -> str:
    """`Package.swift.template` → `Package.swift`; `Package@swift-5.9.swift.j2` → …`.swift`."""
    name = template.name.removesuffix(".j2").removesuffix(".template")
    return name if name != template.name else name + ".out"


def _targets(option: str, where: str, names: Sequence[str]) -> list[Path]:
    """Where each rendered manifest (by file name) goes: the path itself, or a folder for
    several."""
    path = Path(where)
    if len(names) == 1 and not path.is_dir():
        return [path]
    if not path.is_dir():
        raise UsageError(f"{option} {where}: several templates need an existing folder (they "
                         f"make {', '.join(names)}; SwiftPM may read any of them, so each is "
                         "rendered)")
    return [path / name for name in names]


def _manifest_names(result: CheckResult) -> list[str]:
    """The file name each rendered template (or version-specific manifest) is written as."""
    return [Path(r.template.path).name if r.template.verbatim
            else manifest_name(Path(r.template.path)) for r in result.rendered]


def _report_files(args: argparse.Namespace, result: CheckResult) -> list[tuple[Path, bytes]]:
    from swiftpm_guard.report.check import to_json, to_markdown
    files: list[tuple[Path, bytes]] = []
    if args.json:
        text = to_json(result.report)
        if result.resolved is not None:  # what SwiftPM said, target by target
            document = {**json.loads(text), "resolve": result.resolved.as_dict()}
            text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        files.append((Path(args.json), text.encode()))
    if args.markdown:
        files.append((Path(args.markdown), to_markdown(result.report, args.debug_suffix).encode()))
    if args.attestation_subjects:
        from swiftpm_guard.core.subjects import subjects_of, subjects_text

        subjects = subjects_of(result.built, result.report.version, result.rendered)
        files.append((Path(args.attestation_subjects), subjects_text(subjects).encode()))
    return files


def run(args: argparse.Namespace, adapters: Adapters) -> int:
    from swiftpm_guard.jobs.check import check
    from swiftpm_guard.report.check import console_lines, verdict
    from swiftpm_guard.sinks.files import write_atomically
    is_render = args.command == "render"
    request = check_request(args, args.template, args.stubs_dir, require_checksums=is_render)
    if args.attestation_subjects and not request.builds:
        raise UsageError("--attestation-subjects names built zips: give --version and "
                         "--artifacts or --checksums")
    named = [manifest_name(Path(t)) for t in request.templates]
    if is_render:  # before anything runs, for what the command line names
        _targets("--output", args.output, named)
        if args.draft:
            _targets("--draft", args.draft, named)
    result = check(request, adapters)
    # The version-specific manifests found beside the template are rendered too.
    names = _manifest_names(result)
    outputs = _targets("--output", args.output, names) if is_render else []
    drafts = _targets("--draft", args.draft, names) if is_render and args.draft else []
    report = result.report
    texts = [r.text.encode("utf-8") for r in result.rendered]
    files = _report_files(args, result) + list(zip(drafts, texts, strict=False))
    if report.consistent:
        files += list(zip(outputs, texts, strict=False))
    write_atomically(spelled_files(files))
    if not args.quiet:
        for line in console_lines(report.findings, result.lines, args.debug_suffix):
            tell(line)
    say(verdict(report))
    if is_render and report.consistent:
        for path in outputs:
            say(f"wrote {path}")
    return EXIT_OK if report.consistent else EXIT_FINDINGS
