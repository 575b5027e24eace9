"""Command line: argparse → the subcommand's module → a job → exit code.

Exit codes: 0 consistent, 1 error findings, 2 bad usage or unreadable input, 3 broken
infrastructure. Every GuardError is printed as one line; there are no tracebacks.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from swiftpm_guard import __version__
from swiftpm_guard.cli import audit, check, preflight, publish, schema
from swiftpm_guard.core.model import CODES
from swiftpm_guard.errors import GuardError, UsageError

EXIT_OK = 0
DESCRIPTION = ("Generate and guard the Package.swift of a SwiftPM binary package: check its "
               "template against what was built, render it, publish it create-only, audit "
               "published branches.")
EXIT_CODES = """exit codes:
  0  consistent (publish: pushed or a clean dry run; preflight: the branch is free)
  1  error findings (publish and preflight: also branch-exists)
  2  bad usage or unreadable input (one line on stderr, nothing written)
  3  broken infrastructure (git, the network, SwiftPM)"""


class _Parser(argparse.ArgumentParser):
    """argparse that raises UsageError (one line, exit 2) instead of printing usage."""

    def error(self, message: str) -> None:  # type: ignore[override]
        # main() prints "swiftpm-guard: error: …"; only a subcommand's name is worth adding.
        command = self.prog.removeprefix("swiftpm-guard").strip()
        where = f"{command}: " if command else ""
        raise UsageError(f"{where}{message} (see swiftpm-guard {command + ' ' if command else ''}"
                         "--help)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="swiftpm-guard", description=DESCRIPTION, epilog=EXIT_CODES,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version-info", action="version", version=f"swiftpm-guard {__version__}",
                        help="print the tool's version and exit")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser,
                                     metavar="COMMAND", title="commands")
    check.add_parsers(commands)
    commands.add_parser("codes", help="list the finding codes")
    audit.add_parser(commands)
    publish.add_parser(commands)
    preflight.add_parser(commands)
    schema.add_parser(commands)
    for sub in commands.choices.values():
        sub.epilog = EXIT_CODES
        sub.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


def _codes() -> int:
    width = max(map(len, CODES))
    for code, meaning in CODES.items():
        print(f"{code:<{width}}  {meaning}")
    return EXIT_OK


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "codes":
        return _codes()
    runners = {"audit": audit.run, "publish": publish.run, "preflight": preflight.run,
               "schema": schema.run}
    return runners.get(args.command, check.run)(args)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _dispatch(build_parser().parse_args(argv))
    except GuardError as error:
        print(f"swiftpm-guard: error: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("swiftpm-guard: interrupted", file=sys.stderr)
        return 130
