"""The lines the CLI and the action print: the verdict on stdout, the rest on stderr."""

from __future__ import annotations

import sys


def say(line: str) -> None:
    """A line on stdout: the verdict, what was written, a workflow command for the runner."""
    print(line, flush=True)


def tell(line: str) -> None:
    """A line on stderr as it is (a finding's console line)."""
    print(line, file=sys.stderr, flush=True)


def log(line: str) -> None:
    """A progress or diagnostic line on stderr, named as ours."""
    tell(f"swiftpm-guard: {line}")
