"""argparse as the command line uses it: one-line usage errors, and a formatter told the
width. Imported when the parser is built, after the command's early work has started."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from swiftpm_guard.errors import UsageError


class Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter, told the width: its own imports shutil (and through it bz2, lzma
    and fnmatch) to ask the terminal, on every `add_argument`, in every run."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         help_width() if width is None else width)


def help_width() -> int:
    """What argparse would use: $COLUMNS, else the terminal's width, else 80; minus 2."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):  # no stdout, or not a terminal
            columns = 0
    return (columns if columns > 0 else 80) - 2


class Parser(argparse.ArgumentParser):
    """argparse that raises UsageError (one line, exit 2) instead of printing usage."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        # main() prints "swiftpm-guard: error: …"; only a subcommand's name is worth adding.
        command = self.prog.removeprefix("swiftpm-guard").strip()
        where = f"{command}: " if command else ""
        raise UsageError(f"{where}{message} (see swiftpm-guard {command + ' ' if command else ''}"
                         "--help)")
