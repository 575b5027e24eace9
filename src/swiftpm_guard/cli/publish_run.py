"""Running `swiftpm-guard publish`: arguments → PublishRequest → the publish job → exit code.

Exit 0 pushed (or clean dry run / no-push event), 1 findings (branch-exists included),
2 bad input (before git runs), 3 git or the remote failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from swiftpm_guard.cli.check_options import (
    check_request,
)
from swiftpm_guard.cli.remote_options import token_from_env
from swiftpm_guard.cli.resolve_options import resolve_settings
from swiftpm_guard.cli.url_options import url_settings
from swiftpm_guard.core.package_diff import describe
from swiftpm_guard.core.publish_refs import DEFAULT_EXCLUDED
from swiftpm_guard.jobs.publish import publish
from swiftpm_guard.jobs.publish_request import PublishRequest, PublishResult
from swiftpm_guard.report import markdown as md
from swiftpm_guard.report.check import console_line, to_dict, to_markdown, verdict
from swiftpm_guard.sinks.files import write_atomically


def request_from(args: argparse.Namespace) -> PublishRequest:
    settings = check_request(args, args.template or ["Package.swift.template"])
    token, source = token_from_env(args)
    return PublishRequest(
        settings=settings,
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
        verify_urls=url_settings(args) if args.verify_urls else None,
        resolve=resolve_settings(args),
        exclude=tuple(args.exclude) if args.exclude else DEFAULT_EXCLUDED,
        update=args.update,
    )


def _log(line: str) -> None:
    print(f"swiftpm-guard: {line}", file=sys.stderr)


def _files(args: argparse.Namespace, result: PublishResult) -> list[tuple[Path, bytes]]:
    files: list[tuple[Path, bytes]] = []
    if args.json:
        document = {**to_dict(result.report), "publish": result.as_dict()}
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        files.append((Path(args.json), text.encode()))
    if args.markdown:
        text = to_markdown(result.report, args.debug_suffix) + "\n" + _markdown(result)
        files.append((Path(args.markdown), text.encode()))
    return files


def _markdown(result: PublishResult) -> str:
    state = (
        f"pushed {md.code(result.branch)} at {md.code(str(result.commit))}"
        if result.pushed
        else f"{md.code(result.branch)} not pushed: {md.text(str(result.skipped))}"
    )
    lines = ["#### Publish", "", state, ""]
    if result.excluded:
        lines += ["Left out of the published tree: "
                  + ", ".join(md.code(p) for p in result.excluded), ""]
    if result.diff is not None:
        lines += [*md.fence("\n".join(describe(result.diff))), ""]
    lines += md.fence(result.snippet, "swift")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    request = request_from(args)
    result = publish(request, log=None if args.quiet else _log)
    write_atomically(_files(args, result))
    if not args.quiet:
        for finding in result.report.findings:
            print(console_line(finding), file=sys.stderr)
    print(verdict(result.report))
    if request.dry_run:
        for path, text in result.manifests:
            print(f"--- {path} (dry run, {result.branch}) ---")
            print(text, end="" if text.endswith("\n") else "\n")
        left_out = ", ".join(result.excluded) or "nothing"
        print(f"--- left out of the published tree: {left_out} ---")
        print("--- compared with the newest branch of the same version ---")
        print("\n".join(describe(result.diff)) if result.diff else result.diff_note)
    if result.pushed:
        print(f"pushed {result.branch} at {result.commit} to {request.remote.url}")
    else:
        print(f"not pushed: {result.skipped}")
    if result.pushed or request.dry_run:
        print(f"consumers: {result.snippet}")
    return result.exit_code
