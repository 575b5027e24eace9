"""`swiftpm-guard audit`: judge every published `swiftpm-*` branch of a repository.

    swiftpm-guard audit --repo REMOTE_OR_PATH [--branches 'swiftpm-*'] [--json OUT]
                        [--markdown OUT] [--verify-urls …]

Exit 0 when no branch has an error finding, 1 when one has, 2 on bad usage, 3 when git or
the network fails. The work is `jobs.audit.audit_repository`, which the action's `mode: audit`
calls too.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from swiftpm_guard.cli.options import (
    DEFAULT_TOKEN_ENV,
    add_url_arguments,
    say,
    spelled_files,
    tell,
    token_from_env,
    url_settings,
)
from swiftpm_guard.core.checks import DEFAULT_VERSION_PATTERN
from swiftpm_guard.core.model import CODES
from swiftpm_guard.core.names import DEFAULT_BRANCH_GLOB as DEFAULT_PATTERN
from swiftpm_guard.core.names import (
    DEFAULT_BRANCH_PREFIX,
    validate_ref_glob,
    validate_version_pattern,
)
from swiftpm_guard.errors import UsageError
from swiftpm_guard.jobs.adapters import Adapters
from swiftpm_guard.limits import GIT_AUDIT_SECONDS as GIT_TIMEOUT
from swiftpm_guard.workflow_commands import neutralise

if TYPE_CHECKING:
    from swiftpm_guard.core.audit import AuditOptions

EXIT_OK, EXIT_FINDINGS = 0, 1
DEFAULT_API_URL = "https://api.github.com"
_REPOSITORY = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}")
_API_URL = re.compile(r"https?://[^\s/?#]+(/[^\s?#]*)?")


def add_parsers(commands: argparse._SubParsersAction[Any]) -> None:
    parser = commands.add_parser("audit", help="audit every published swiftpm-* branch")
    parser.add_argument("--repo", required=True, metavar="REMOTE_OR_PATH",
                        help="a local repository (read in place) or a URL (fetched shallowly "
                             "into a temporary bare repository)")
    parser.add_argument("--branches", default=DEFAULT_PATTERN, metavar="GLOB",
                        help=f"which branches ('*' and '?'; default {DEFAULT_PATTERN!r})")
    parser.add_argument("--branch-prefix", default=DEFAULT_BRANCH_PREFIX, metavar="PREFIX",
                        help="what precedes the version in a branch name (default "
                             f"{DEFAULT_BRANCH_PREFIX!r})")
    parser.add_argument("--version-pattern", default=DEFAULT_VERSION_PATTERN, metavar="REGEX",
                        help="the versions branch names carry (default X.Y.Z or "
                             "X.Y.Z.YYYYMMDD)")
    parser.add_argument("--git-timeout", type=float, default=GIT_TIMEOUT, metavar="SECONDS",
                        help=f"for each git process (default {GIT_TIMEOUT:g})")
    parser.add_argument("--warn", action="append", default=[], metavar="CODE",
                        help="downgrade a finding code to a warning (repeatable)")
    parser.add_argument("--json", metavar="OUT.json", help="write the JSON report")
    parser.add_argument("--markdown", metavar="OUT.md", help="write the Markdown report")
    parser.add_argument("--quiet", "-q", action="store_true", help="print only the verdict")
    rules = parser.add_argument_group("branch protection")
    rules.add_argument("--rulesets", metavar="OWNER/NAME",
                       help="ask GitHub which ruleset rules (deletion, non-fast-forward, "
                            "creation) apply to the published branches of this repository")
    rules.add_argument("--api-url", default=DEFAULT_API_URL, metavar="URL",
                       help=f"the GitHub API for --rulesets (default {DEFAULT_API_URL})")
    rules.add_argument("--token-env", default=DEFAULT_TOKEN_ENV, metavar="NAME",
                       help="environment variable holding the token for --rulesets (default "
                            f"{DEFAULT_TOKEN_ENV}); sent as a header, never in argv")
    add_url_arguments(parser)


def options_from(args: argparse.Namespace) -> AuditOptions:
    from swiftpm_guard.core.audit import AuditOptions

    validate_ref_glob(args.branches, "--branches")
    if args.branch_prefix and not re.fullmatch(r"[A-Za-z0-9._/+-]{1,100}", args.branch_prefix):
        raise UsageError(f"--branch-prefix {args.branch_prefix!r} is not a branch name prefix")
    validate_version_pattern(args.version_pattern)
    unknown = sorted(set(args.warn) - CODES.keys())
    if unknown:
        raise UsageError(f"--warn {unknown[0]!r} is not a finding code")
    if args.rulesets is not None and not _REPOSITORY.fullmatch(args.rulesets):
        raise UsageError(f"--rulesets {args.rulesets!r} is not OWNER/NAME")
    if not _API_URL.fullmatch(args.api_url):
        raise UsageError(f"--api-url {args.api_url!r} is not an http(s) URL")
    if not 0 < args.git_timeout <= 24 * 3600:
        raise UsageError(f"--git-timeout {args.git_timeout} is not a positive duration")
    return AuditOptions(branch_prefix=args.branch_prefix, version_pattern=args.version_pattern,
                        warn=frozenset(args.warn))


def run(args: argparse.Namespace, adapters: Adapters) -> int:
    from swiftpm_guard.jobs.audit import audit_repository, rulesets_session, with_protection
    from swiftpm_guard.report.audit import (
        console_line,
        protection_sentence,
        repair_lines,
        tip_line,
        to_json,
        to_markdown,
        verdict,
    )
    from swiftpm_guard.sinks.files import write_atomically
    options = options_from(args)
    # Without --base-url each branch's own `let url = "…"` is the base of its URLs.
    urls = url_settings(args) if args.verify_urls else None
    report = audit_repository(args.repo, args.branches, options, git=adapters.git, urls=urls,
                              git_timeout=args.git_timeout)
    if args.rulesets is not None:
        token, _where = token_from_env(args)
        session = rulesets_session(args.api_url.rstrip("/"), token, args.rulesets,
                                   adapters.proxy)
        try:
            report = with_protection(report, session)
        finally:
            session.close()
    files: list[tuple[Path, bytes]] = []
    if args.json:
        files.append((Path(args.json), to_json(report).encode()))
    if args.markdown:
        files.append((Path(args.markdown), to_markdown(report).encode()))
    write_atomically(spelled_files(files))
    if not args.quiet:
        for branch in report.branches:
            tip = tip_line(branch)
            if tip is not None:
                tell(tip)
            for finding in branch.findings:
                tell(console_line(branch.branch, finding))
        for line in repair_lines(report):
            tell(line)
        if report.protection is not None:
            tell(neutralise(f"protection: {protection_sentence(report.protection)}"))
    say(verdict(report))
    return EXIT_OK if report.consistent else EXIT_FINDINGS
