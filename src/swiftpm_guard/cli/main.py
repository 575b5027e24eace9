"""Command line: argparse → the subcommand's module → a job → exit code.

Exit codes: 0 consistent, 1 error findings, 2 bad usage or unreadable input, 3 broken
infrastructure or a bug. Every GuardError is printed as one line; only a bug (any other
exception) prints a traceback, through the output door, and exits 3.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from swiftpm_guard import __version__
from swiftpm_guard.action import rehearse
from swiftpm_guard.cli import audit, check, publish
from swiftpm_guard.cli.config import add_config_argument, apply_config, given_options
from swiftpm_guard.cli.options import Parser, spelled
from swiftpm_guard.console import log, package_text, reader_left, say, tell
from swiftpm_guard.core.model import CODES
from swiftpm_guard.errors import GuardError, InputError
from swiftpm_guard.infra.scratch import private_tempdir
from swiftpm_guard.jobs.adapters import Adapters, run_git

DESCRIPTION = ("Generate and guard the Package.swift of a SwiftPM binary package: check its "
               "template against what was built, render it, publish it create-only, audit "
               "published branches.")
EXIT_CODES = """exit codes:
  0  consistent (publish: pushed or a clean dry run; preflight: the branch is free)
  1  error findings (publish and preflight: also branch-exists)
  2  bad usage or unreadable input (one line on stderr, nothing written)
  3  broken infrastructure (git, the network, SwiftPM), or a bug (with its traceback)"""
SCHEMAS = ("check", "audit")


def build_parser() -> Parser:
    parser = Parser(prog="swiftpm-guard", description=DESCRIPTION, epilog=EXIT_CODES)
    parser.add_argument("--version-info", action="version", version=f"swiftpm-guard {__version__}",
                        help="print the tool's version and exit")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser,
                                     metavar="COMMAND", title="commands")
    check.add_parsers(commands)
    commands.add_parser("codes", help="list the finding codes")
    audit.add_parsers(commands)
    publish.add_parsers(commands)
    rehearse.add_parsers(commands)
    schema = commands.add_parser(
        "schema", help="print the JSON Schema of the check or the audit report",
        description="Print the JSON Schema (draft 2020-12) that every --json report of that "
                    "kind validates against.")
    schema.add_argument("kind", choices=SCHEMAS,
                        help="check: the report of check, render and publish; audit: of audit")
    for name, sub in commands.choices.items():
        sub.epilog = EXIT_CODES
        if name in CONFIGURED:
            add_config_argument(sub)
    parser.subcommands = dict(commands.choices)
    return parser


#: The subcommands that read the configuration file (rehearse: the action it runs reads it).
CONFIGURED = ("check", "render", "audit", "publish", "preflight")


def schema_text(kind: str) -> str:
    """A report's JSON Schema as shipped (package data: the files the tests validate with)."""
    from importlib import resources

    resource = resources.files("swiftpm_guard.report").joinpath("schemas", f"{kind}.json")
    try:
        return resource.read_text(encoding="utf-8")
    except OSError as error:  # an installation without its package data
        raise InputError(f"the {kind} schema is not installed: {error}") from None


def schema(kind: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(schema_text(kind))
    return loaded


def _dispatch(args: argparse.Namespace, parser: Parser, argv: Sequence[str]) -> int:
    if args.command == "codes":
        width = max(map(len, CODES))
        for code, meaning in CODES.items():
            say(f"{code:<{width}}  {meaning}")
        return 0
    if args.command == "schema":
        package_text(schema_text(args.kind))
        return 0
    proxy = getattr(args, "proxy", None) or None
    adapters = Adapters(log=(lambda _line: None) if getattr(args, "quiet", False)
                        else lambda line: log(spelled(line)),
                        proxy=proxy, git=run_git(proxy))
    if args.command in CONFIGURED:
        given = given_options(parser, parser.subcommands[args.command], argv)
        apply_config(args, given, adapters.log)
    runner = {"check": check.run, "render": check.run, "audit": audit.run,
              "publish": publish.run, "preflight": publish.run,
              "rehearse": rehearse.run}[args.command]
    return runner(args, adapters)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        parser = build_parser()
        arguments = sys.argv[1:] if argv is None else list(argv)
        args = parser.parse_args(arguments)
        # Every temporary file of the run in one private folder, never under $TMPDIR.
        with private_tempdir():
            return _dispatch(args, parser, arguments)
    except GuardError as error:
        log(f"error: {spelled(str(error))}")
        return error.exit_code
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    except BrokenPipeError:
        raise  # the reader left: `run` says nothing and exits 141
    except Exception as error:  # a bug must not pass for "error findings" (exit 1)
        import traceback  # only for a bug: it loads tokenize and linecache

        # The traceback quotes whatever the failing value held: through the door.
        tell(traceback.format_exc().rstrip("\n"))
        log(f"internal error (a bug): {type(error).__name__}: {' '.join(str(error).split())}")
        return 3


def run() -> NoReturn:
    """The `swiftpm-guard` command (console script, `python -m swiftpm_guard`)."""
    try:
        sys.exit(main())
    except BrokenPipeError:
        # `swiftpm-guard codes | head`: the reader left; no traceback (exit 128 + SIGPIPE).
        reader_left()
        sys.exit(141)
