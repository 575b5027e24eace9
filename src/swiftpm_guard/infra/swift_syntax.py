"""Without SwiftPM: parse the rendered manifest with tree-sitter-swift (text → findings).

This only proves the text is Swift syntax; it cannot evaluate what the code computes, so the
counts stay the static ones. tree-sitter recovers from errors, so one bad spot yields a few
ERROR or MISSING nodes; we report the first few, with line and column.

tree-sitter-swift does not see an unterminated `/*` as an error (it lexes it as an operator),
so the core lexer's problems (unterminated comments, strings, interpolations; malformed string
literals and `#if` directives, which tree-sitter-swift 0.7.4 accepts) are reported first, and
then the grammar is not run at all: those are exactly the inputs that made it quadratic.
Otherwise the parse runs in a forked child under a deadline and a memory cap, and a text over
the size cap is not parsed: either way the answer is a `swift-syntax` error saying
the manifest could not be checked, never a crash and never a pass.
"""

from __future__ import annotations

from collections.abc import Callable

from swiftpm_guard.core.model import Finding, Rendered, Severity
from swiftpm_guard.core.swift_checks import manifest_line
from swiftpm_guard.core.swift_lexer import lex
from swiftpm_guard.infra.bounded import DEFAULT_MEMORY_BYTES, describe, run_bounded
from swiftpm_guard.infra.prepared import Prepared, prepare_child
from swiftpm_guard.infra.swift_grammar import MAX_PER_MANIFEST, Problem, parser, problems_of
from swiftpm_guard.limits import SWIFT_PARSE_MAX_BYTES, SWIFT_PARSE_SECONDS


def available() -> bool:
    """Whether tree-sitter and its Swift grammar are installed (found, not imported: a
    prepared child loads them beside the caller's start-up)."""
    from importlib.machinery import PathFinder  # loaded already, unlike importlib.util

    return all(PathFinder.find_spec(name) is not None for name in ("tree_sitter",
                                                                   "tree_sitter_swift"))


def prepare() -> Prepared:
    """A child that loads tree-sitter-swift now, beside the caller's start-up, to serve one
    `syntax_findings(…, child=…)`; cancel it if no syntax check comes."""
    return prepare_child(parser)


def syntax_findings(rendered: Rendered, *, seconds: float = SWIFT_PARSE_SECONDS,
                    max_bytes: int = SWIFT_PARSE_MAX_BYTES,
                    parse: Callable[[bytes], list[Problem]] | None = None,
                    child: Prepared | None = None) -> list[Finding]:
    """`swift-syntax` findings for the rendered text (empty when it parses or no parser).

    `parse` replaces the tree-sitter parse run in the child (tests use it to crash a child);
    `child`, from `prepare()`, is one that already loaded the grammar (used once, else a fork
    of this process parses).
    """
    if child is None and parse is None and parser() is None:
        return [_unchecked(rendered, "tree-sitter-swift is installed but cannot be loaded")]
    data = rendered.text.encode("utf-8")
    lexed = lex(rendered.text)
    if lexed.problems:
        return [_at(rendered, rendered.text.count("\n", 0, p.start), _column(rendered, p.start),
                    f"{p.detail}, so the rest of the manifest is not code" if p.swallows else
                    f"{p.detail}: the Swift compiler rejects this (or the static reader cannot "
                    "read it; SwiftPM can, with --swift)")
                for p in lexed.problems[:MAX_PER_MANIFEST]]
    if len(data) > max_bytes:
        return [_unchecked(rendered, f"it is {len(data)} bytes, over the {max_bytes}-byte cap "
                                     "for the syntax check")]
    problems: list[Problem] | None
    failure: str | None
    if child is not None:
        ended = child.call(parse or problems_of, (data,), seconds=seconds)
        problems = ended.payload if ended.kind == "ok" else None
        failure = describe(ended, seconds=seconds, memory_bytes=DEFAULT_MEMORY_BYTES)
    else:
        outcome = run_bounded(parse or problems_of, data, seconds=seconds)
        problems, failure = outcome.value, outcome.failure
    if problems is None:
        return [_unchecked(rendered, f"tree-sitter-swift {failure}")]
    lines = data.split(b"\n")
    findings = []
    for row, byte_column, description in problems:
        text = lines[row] if row < len(lines) else b""
        column = len(text[:byte_column].decode("utf-8", errors="replace")) + 1
        findings.append(_at(rendered, row, column, description))
    return findings


def _column(rendered: Rendered, offset: int) -> int:
    return offset - (rendered.text.rfind("\n", 0, offset) + 1) + 1


def _at(rendered: Rendered, row: int, column: int, description: str) -> Finding:
    line, note = manifest_line(rendered, row + 1)
    return Finding(
        code="swift-syntax",
        severity=Severity.ERROR,
        subject=f"{row + 1}:{column}",
        file=rendered.template.path,
        line=line,
        message=f"not valid Swift at {row + 1}:{column}: {description}{note} "
        "(tree-sitter-swift; SwiftPM was not run)",
    )


def _unchecked(rendered: Rendered, why: str) -> Finding:
    return Finding(
        code="swift-syntax",
        severity=Severity.ERROR,
        subject="unchecked",
        file=rendered.template.path,
        line=None,
        message=f"the manifest could not be checked: {why}; SwiftPM was not run, so it "
        "does not pass",
    )
