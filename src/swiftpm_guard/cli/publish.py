"""`swiftpm-guard publish` (check, then push `swiftpm-<version>` create-only) and
`swiftpm-guard preflight` (is that branch still free?).

publish: exit 0 pushed (or a clean dry run / an event that never pushes), 1 findings
(branch-exists included), 2 bad input (before git runs), 3 git or the remote failed.
preflight: exit 0 the branch is free, 1 it exists, 2 bad input, 3 git or the remote failed.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from swiftpm_guard.cli.options import (
    add_remote_arguments,
    add_report_arguments,
    add_resolve_arguments,
    add_source_arguments,
    add_url_arguments,
    add_version_arguments,
    check_request,
    say,
    spelled_files,
    tell,
    token_from_env,
    url_settings,
)
from swiftpm_guard.console import block
from swiftpm_guard.core.checks import DEFAULT_VERSION_PATTERN
from swiftpm_guard.core.names import DEFAULT_AUTHOR, DEFAULT_EXCLUDED, DEFAULT_TEMPLATE_REF
from swiftpm_guard.jobs.adapters import Adapters

if TYPE_CHECKING:
    from swiftpm_guard.jobs.publish import PublishRequest, PublishResult


def add_parsers(commands: argparse._SubParsersAction[Any]) -> None:
    """Register `publish` and `preflight` on the main parser's subcommands."""
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
    add_url_arguments(pub, verify_zips=True)
    add_resolve_arguments(pub)
    add_report_arguments(pub)
    pre = commands.add_parser("preflight", help="exit 1 if swiftpm-<version> already exists")
    pre.add_argument("--version", required=True, help="X.Y.Z or X.Y.Z.YYYYMMDD")
    pre.add_argument("--version-pattern", default=DEFAULT_VERSION_PATTERN, metavar="REGEX",
                     help="accept other version shapes (still no unsafe characters)")
    add_remote_arguments(pre)
    add_url_arguments(pre, flag="--verify-absent")
    pre.add_argument("--template-ref", default=DEFAULT_TEMPLATE_REF, metavar="REF",
                     help="with --verify-absent: where the template naming the zips is")
    pre.add_argument("--template", action="append", metavar="PATH",
                     help="with --verify-absent: template path inside the ref (default "
                          "Package.swift.template)")


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
                      help="triggering event (default $GITHUB_EVENT_NAME); only push, "
                           "workflow_dispatch, schedule and release push (a pull request's "
                           "code can reach every other event; a workflow_run publishes "
                           "through the action, which reads the triggering run's event)")
    push.add_argument("--package-url", metavar="URL",
                      help="the URL consumers use in .package(url:) (default: --repo)")


def request_from(args: argparse.Namespace) -> PublishRequest:
    from swiftpm_guard.jobs.publish import PublishRequest
    token, source = token_from_env(args)
    return PublishRequest(
        check=check_request(args, args.template or ["Package.swift.template"]),
        repo=args.repo,
        template_ref=args.template_ref,
        branch_prefix=args.branch_prefix,
        dry_run=args.dry_run,
        allow_overwrite=args.allow_overwrite,
        author=args.author,
        token=token,
        token_source=source,
        event=args.event or None,
        package_url=args.package_url,
        git_timeout=args.git_timeout,
        exclude=tuple(args.exclude) if args.exclude else DEFAULT_EXCLUDED,
        update=args.update,
    )


def _files(args: argparse.Namespace, result: PublishResult) -> list[tuple[Path, bytes]]:
    from swiftpm_guard.report.check import to_dict, to_markdown
    from swiftpm_guard.report.publish import publish_markdown
    files: list[tuple[Path, bytes]] = []
    if args.json:
        document = {**to_dict(result.report), "publish": result.as_dict()}
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        files.append((Path(args.json), text.encode()))
    if args.markdown:
        section = publish_markdown(branch=result.branch, pushed=result.pushed,
                                   commit=result.commit, skipped=result.skipped,
                                   excluded=result.excluded, diff=result.diff,
                                   snippet=result.snippet, debug_suffix=args.debug_suffix,
                                   proof=result.proof.shown() if result.proof else None)
        text = to_markdown(result.report, args.debug_suffix) + "\n" + section
        files.append((Path(args.markdown), text.encode()))
    if args.attestation_subjects:
        from swiftpm_guard.core.subjects import subject_lines, subjects_text

        subjects = subject_lines(result.checked.built.values(), result.report.version,
                                 result.manifests)
        files.append((Path(args.attestation_subjects), subjects_text(subjects).encode()))
    return files


def run(args: argparse.Namespace, adapters: Adapters) -> int:
    from swiftpm_guard.jobs.publish import publish
    from swiftpm_guard.report.check import finding_lines, ranked, verdict
    from swiftpm_guard.report.publish import diff_lines
    from swiftpm_guard.sinks.files import write_atomically
    if args.command == "preflight":
        return run_preflight(args, adapters)
    request = request_from(args)
    result = publish(request, adapters)
    write_atomically(spelled_files(_files(args, result)))
    if not args.quiet:
        for finding in ranked(result.report.findings):
            for line in finding_lines(finding):
                tell(line)
    say(verdict(result.report))
    if request.dry_run:
        for path, text in result.manifests:
            say(f"--- {path} (dry run, {result.branch}) ---")
            # Rendered from the template ref: shown exactly, and no line of it runs.
            block(text.removesuffix("\n"))
        say(f"--- left out of the published tree: {', '.join(result.excluded) or 'nothing'} ---")
        say("--- what this publish changes in a published branch ---")
        say("\n".join(diff_lines(result.diff, result.diff_note, args.debug_suffix)))
    if result.pushed:
        say(f"pushed {result.branch} at {result.commit} to {request.remote}")
    else:
        say(f"not pushed: {result.skipped}")
    if result.pushed or request.dry_run:
        say(f"consumers: {result.snippet}")
    return result.exit_code


def run_preflight(args: argparse.Namespace, adapters: Adapters) -> int:
    from swiftpm_guard.jobs.preflight import PreflightRequest, preflight
    from swiftpm_guard.report.publish import preflight_log
    token, source = token_from_env(args)
    request = PreflightRequest(version=args.version, repo=args.repo,
                               branch_prefix=args.branch_prefix, token=token, token_source=source,
                               git_timeout=args.git_timeout,
                               verify_absent=url_settings(args) if args.verify_absent else None,
                               template_ref=args.template_ref,
                               templates=tuple(args.template or ["Package.swift.template"]),
                               version_pattern=args.version_pattern)
    result = preflight(request, adapters)
    for line in preflight_log(result.findings):
        tell(line)
    if not result.findings:
        say(f"swiftpm-guard: {result.branch} is free on {request.remote}")
    return result.exit_code
