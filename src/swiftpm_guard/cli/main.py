"""Command line: argparse → the subcommand's module → a job → exit code.

Exit codes: 0 consistent, 1 error findings, 2 bad usage or unreadable input, 3 broken
infrastructure. Every GuardError is printed as one line; there are no tracebacks.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from swiftpm_guard import __version__
from swiftpm_guard.cli import audit, check, preflight, publish
from swiftpm_guard.core.model import CODES
from swiftpm_guard.errors import GuardError, UsageError

EXIT_OK = 0


class _Parser(argparse.ArgumentParser):
    """argparse that raises UsageError (one line, exit 2) instead of printing usage."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="swiftpm-guard", description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--version-info", action="version", version=f"swiftpm-guard {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    check.add_parsers(commands)
    commands.add_parser("codes", help="list the finding codes")
    audit.add_parser(commands)
    publish.add_parser(commands)
    preflight.add_parser(commands)
    return parser


def _codes() -> int:
    width = max(map(len, CODES))
    for code, meaning in CODES.items():
        print(f"{code:<{width}}  {meaning}")
    return EXIT_OK


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "codes":
        return _codes()
    runners = {"audit": audit.run, "publish": publish.run, "preflight": preflight.run}
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
