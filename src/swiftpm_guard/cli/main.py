"""Command line: argparse → the subcommand's module → a job → exit code.

Exit codes: 0 consistent, 1 error findings, 2 bad usage or unreadable input, 3 broken
infrastructure. Every GuardError is printed as one line; there are no tracebacks.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, NoReturn

from swiftpm_guard import __version__
from swiftpm_guard.errors import GuardError

if TYPE_CHECKING:
    import argparse

EXIT_OK = 0
DESCRIPTION = ("Generate and guard the Package.swift of a SwiftPM binary package: check its "
               "template against what was built, render it, publish it create-only, audit "
               "published branches.")
#: Every command, in the order `--help` lists them, and the module of cli/ that builds its
#: parser (`add_parsers`) and runs it (`run`); `codes` is answered here.
COMMANDS: dict[str, str] = {"check": "check", "render": "check", "codes": "", "audit": "audit",
                            "publish": "publish", "preflight": "preflight", "schema": "schema"}
#: Commands with work to start before their parser (and argparse) exists: the module of cli/
#: whose `Early(words)` starts it, a context manager that stops it on exit.
EARLY: dict[str, str] = {"check": "check_early", "render": "check_early"}
EXIT_CODES = """exit codes:
  0  consistent (publish: pushed or a clean dry run; preflight: the branch is free)
  1  error findings (publish and preflight: also branch-exists)
  2  bad usage or unreadable input (one line on stderr, nothing written)
  3  broken infrastructure (git, the network, SwiftPM)"""


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line; given `argv` naming a command, only that command's part.

    A start-up matters in a release job's every step: building all seven subparsers would
    import every subcommand's option modules (and what they import) to run just one.
    """
    from swiftpm_guard.cli.parser import Formatter, Parser

    parser = Parser(prog="swiftpm-guard", description=DESCRIPTION, epilog=EXIT_CODES)
    parser.add_argument("--version-info", action="version", version=f"swiftpm-guard {__version__}",
                        help="print the tool's version and exit")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser,
                                     metavar="COMMAND", title="commands")
    wanted = _named_command(argv)
    modules = [COMMANDS[wanted]] if wanted else list(dict.fromkeys(COMMANDS.values()))
    for name in modules:
        if name:
            _module(name).add_parsers(commands)
        else:
            commands.add_parser("codes", help="list the finding codes")
    for sub in commands.choices.values():
        sub.epilog = EXIT_CODES
        sub.formatter_class = Formatter
    return parser


def _named_command(argv: Sequence[str] | None) -> str | None:
    """The command `argv` runs, when its first word is one (else None: build them all)."""
    if not argv:
        return None
    first = argv[0]
    return first if first in COMMANDS else None


def _start_early(words: Sequence[str], stack: contextlib.ExitStack) -> object:
    """What the named command can start before its parser exists (see EARLY), entered on
    `stack` so it is stopped whatever happens; None when there is nothing to start."""
    name = EARLY.get(_named_command(words) or "")
    return None if name is None else stack.enter_context(_module(name).Early(words[1:]))


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"swiftpm_guard.cli.{name}")


def _codes() -> int:
    from swiftpm_guard.core.model import CODES

    width = max(map(len, CODES))
    for code, meaning in CODES.items():
        print(f"{code:<{width}}  {meaning}")
    return EXIT_OK


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "codes":
        return _codes()
    code: int = _module(COMMANDS[args.command]).run(args)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    try:
        words = sys.argv[1:] if argv is None else list(argv)
        with contextlib.ExitStack() as started:
            # Start-up (the subcommand's modules, the parser) makes tens of thousands of
            # objects that live until exit; collecting among them finds nothing. A check or a
            # render imports its job's modules as it runs, is short and bounded by its inputs'
            # caps, and leaves its garbage to reference counting: paused until it ends.
            paused = started.enter_context(_CollectorPaused())
            early = _start_early(words, started)
            parser = build_parser(words)
            if _named_command(words) not in EARLY:
                paused.close()
            args = parser.parse_args(words)
            args.started = early
            return _dispatch(args)
    except GuardError as error:
        print(f"swiftpm-guard: error: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("swiftpm-guard: interrupted", file=sys.stderr)
        return 130


def run() -> NoReturn:
    """The `swiftpm-guard` command (console script, `python -m swiftpm_guard`): main, then exit.

    Before exiting, every object left is frozen out of the collector: the interpreter's final
    collection would otherwise walk the whole heap (~10 ms of a 0.1 s check) only to free what
    the process's exit frees anyway. Files are written and closed explicitly before this.
    """
    code = main()
    gc.freeze()
    _exit(code)


def _exit(code: int) -> NoReturn:
    """Exit with `code`, without the interpreter's teardown when it would have nothing to do.

    Teardown unloads every module and frees every object, 2 to 3 ms of a 60 ms check, only for
    the process's end to free them again. It is skipped only when nothing is waiting for it:
    no exit callbacks (logging, `weakref.finalize` as TemporaryDirectory uses it, and
    multiprocessing each register one), no threading at all (whose shutdown joins threads
    and runs concurrent.futures' callbacks), and both standard streams flushed. Otherwise,
    or if flushing fails (a closed pipe), the usual exit, which reports that the usual way.
    """
    if "threading" in sys.modules or _exit_callbacks() != 0:
        sys.exit(code)
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        sys.exit(code)
    os._exit(code)


def _exit_callbacks() -> int | None:
    """How many atexit callbacks are registered; None where the interpreter does not say."""
    import atexit

    count = getattr(atexit, "_ncallbacks", None)  # CPython's; absent elsewhere
    return None if count is None else int(count())


class _CollectorPaused(contextlib.AbstractContextManager["_CollectorPaused"]):
    """The cyclic collector off until `close()` (or the end of the `with`), then as it was."""

    def __init__(self) -> None:
        self._was_enabled = gc.isenabled()
        self._open = True
        gc.disable()

    def close(self) -> None:
        if self._open and self._was_enabled:
            gc.enable()
        self._open = False

    def __exit__(self, *_exc: object) -> None:
        self.close()
