"""What `check` and `render` start before their parser and their modules exist, in children
forked while this process is still small, so that work runs beside the start-up instead of
after it. Kept free of argparse and of the check's modules: the sooner the fork, the better.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from swiftpm_guard.errors import GuardError
from swiftpm_guard.infra import swift_grammar
from swiftpm_guard.infra.prepared import Prepared, prepare_child
from swiftpm_guard.infra.swift_locate import on_path
from swiftpm_guard.sources.workflow_ahead import ReadAhead
from swiftpm_guard.sources.workflow_spec import WorkflowSpec

T = TypeVar("T")


class Early:
    """What a check starts before its parser and its modules exist, in children forked while
    this process is small, so their work runs beside that start-up instead of after it: the
    `--frameworks-from` workflows' reads (PyYAML, tree-sitter-bash), and a child that loads
    tree-sitter-swift for the syntax check when no SwiftPM will run.

    The words are scanned, not parsed: `run` uses the reads only when argparse finds the very
    same workflows (else it reads them itself), so a misread costs a wasted child, never a
    result; an unused child is stopped on exit.
    """

    def __init__(self, words: Sequence[str]) -> None:
        self.syntax: Prepared | None = None
        self.workflows = ReadAhead(_values_of("--frameworks-from", words, WorkflowSpec.parse))
        try:
            swift = _values_of("--swift", words, str)
            if _tree_sitter_will_check(swift[-1] if swift else "auto"):
                self.syntax = prepare_child(swift_grammar.parser)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        self.workflows.close()
        if self.syntax is not None:
            self.syntax.cancel()

    def __enter__(self) -> Early:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def _tree_sitter_will_check(swift: str) -> bool:
    """Whether the check will parse with tree-sitter-swift: no SwiftPM to run."""
    return swift == "off" or (swift == "auto" and on_path("swift") is None)


def _values_of(option: str, words: Sequence[str], parse: Callable[[str], T]) -> tuple[T, ...]:
    """Every value given to `option` (`--x V` or `--x=V`), or () when one cannot be parsed
    (argparse will say what is wrong, in its words)."""
    values = []
    for word, after in zip(words, [*words[1:], ""], strict=True):
        if word == option:
            values.append(after)
        elif word.startswith(f"{option}="):
            values.append(word.partition("=")[2])
    try:
        return tuple(parse(value) for value in values)
    except GuardError:
        return ()
