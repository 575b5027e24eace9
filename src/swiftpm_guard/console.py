"""The one door to stdout and stderr: every line the CLI and the action print goes through here.

A runner reads workflow commands from every line of a step's output, and most of what we print
quotes someone else's text (file names, commit subjects, git's and a server's words), so
`say`, `tell` and `log` print each line neutralised (`workflow_commands.neutralise`). Our own
workflow commands (`::error …`, `::add-mask::`, `::stop-commands::`) go out through `command`,
and a block that must be shown exactly (a rendered manifest) through `block`, between
`::stop-commands::` and a fresh random token. `make lint` bans `print` and `sys.stdout`/
`sys.stderr` anywhere else in the package.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

from swiftpm_guard.workflow_commands import neutralise, stop_commands_block


def _write(stream: TextIO, lines: list[str]) -> None:
    stream.write("".join(f"{line}\n" for line in lines))
    stream.flush()


def _neutral_lines(text: str) -> list[str]:
    # One printed line per "\n"; every other break the runner splits on becomes a space.
    return [neutralise(part) for part in text.split("\n")]


def say(text: str) -> None:
    """Lines on stdout (the verdict, what was written), neutralised."""
    _write(sys.stdout, _neutral_lines(text))


def tell(text: str) -> None:
    """Lines on stderr as they are meant (a finding's console line), neutralised."""
    _write(sys.stderr, _neutral_lines(text))


def log(line: str) -> None:
    """A progress or diagnostic line on stderr, named as ours."""
    tell(f"swiftpm-guard: {line}")


def command(line: str) -> None:
    """One of our own workflow commands on stdout, as built by `sinks.actions_io` (its data
    escaped there). Anything that is not one command line is refused: it would be run."""
    if not line.startswith("::") or any(c in line for c in "\r\n"):
        raise ValueError("console.command prints one workflow command line")
    _write(sys.stdout, [line])


def block(text: str) -> None:
    """`text` on stdout exactly, between `::stop-commands::<token>` and `::<token>::`, with a
    fresh random token, so that no line of it runs as a workflow command."""
    import secrets  # only here: it loads hmac and random, which a check never needs

    token = secrets.token_hex(16)
    while token in text.lower():
        token = secrets.token_hex(16)
    _write(sys.stdout, stop_commands_block(text, token))


def package_text(text: str) -> None:
    """Text this package ships (a JSON Schema), on stdout byte for byte: it is ours, not
    outside text, and piping it to a file must give the file."""
    sys.stdout.write(text)
    sys.stdout.flush()


def reader_left() -> None:
    """stdout's reader closed the pipe: point stdout at /dev/null, so that Python's final flush
    at exit does not raise again."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
