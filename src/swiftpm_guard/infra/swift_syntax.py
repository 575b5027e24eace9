"""Without SwiftPM: parse the rendered manifest with tree-sitter-swift (text → findings).

This only proves the text is Swift syntax; it cannot evaluate what the code computes, so the
counts stay the static ones. tree-sitter recovers from errors, so one bad spot yields a few
ERROR or MISSING nodes; the first few are reported, with line and column.

tree-sitter-swift does not see an unterminated `/*` as an error (it lexes it as an operator),
so the core lexer's problems (unterminated comments, strings, interpolations; malformed string
literals and `#if` directives, which tree-sitter-swift 0.7.4 accepts) are reported first, and
then the grammar is not run at all: those are exactly the inputs that made it quadratic.
Otherwise the parse runs in a bounded child (infra.bounded), and a text over the size cap is
not parsed: either way the answer is a `swift-syntax` error saying the manifest could not be
checked, never a crash and never a pass.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from swiftpm_guard.core.model import Finding, Rendered, Severity
from swiftpm_guard.core.render import manifest_line
from swiftpm_guard.core.swift_lexer import lex
from swiftpm_guard.infra.bounded import run_bounded
from swiftpm_guard.limits import SWIFT_PARSE_MAX_BYTES, SWIFT_PARSE_SECONDS

MAX_PER_MANIFEST = 5
_SNIPPET = 40

#: One problem as the child reports it: 0-based row, byte column, description.
Problem = tuple[int, int, str]



@cache
def parser() -> Callable[[bytes], Any] | None:
    """tree-sitter's parse function for Swift, or None when the wheels are not installed."""
    try:
        import tree_sitter
        import tree_sitter_swift
    except ImportError:
        return None
    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_swift.language()))
    return parser.parse



def problems_of(data: bytes) -> list[Problem]:
    """In the child: parse and describe the first ERROR and MISSING nodes as plain data."""
    parse = parser()
    if parse is None:
        raise ImportError("tree-sitter-swift is installed but cannot be loaded")
    tree = parse(data)
    return [(n.start_point[0], n.start_point[1], _describe(n)) for n in _problems(tree.root_node)]


def _problems(root: Any) -> list[Any]:
    """ERROR and MISSING nodes in text order, at most MAX_PER_MANIFEST; only errant subtrees."""
    found: list[Any] = []
    stack = [root]
    while stack and len(found) < MAX_PER_MANIFEST:
        node = stack.pop()
        if node.is_error or node.is_missing:
            found.append(node)
            continue
        if node.has_error:
            stack.extend(reversed(node.children))
    return found


def _describe(node: Any) -> str:
    if node.is_missing:
        return f"expected '{node.type}'"
    raw: bytes = node.text or b""
    first = raw.split(b"\n", 1)[0].decode("utf-8", errors="replace").strip()
    if len(first) > _SNIPPET:
        first = first[: _SNIPPET - 1] + "…"
    return f"cannot parse '{first}'" if first else "cannot parse this"


def available() -> bool:
    """Whether tree-sitter and its Swift grammar are installed (found, not imported)."""
    from importlib.util import find_spec

    return all(find_spec(name) is not None for name in ("tree_sitter", "tree_sitter_swift"))


def syntax_findings(rendered: Rendered, *, seconds: float = SWIFT_PARSE_SECONDS,
                    max_bytes: int = SWIFT_PARSE_MAX_BYTES,
                    parse: Callable[[bytes], list[Problem]] | None = None) -> list[Finding]:
    """`swift-syntax` findings for the rendered text (empty when it parses or no parser).

    `parse` replaces the tree-sitter parse run in the child (tests use it to crash a child).
    """
    if parse is None and parser() is None:
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
    ended = run_bounded(parse or problems_of, data, seconds=seconds)
    problems = ended.value
    if ended.kind != "ok" or problems is None:
        return [_unchecked(rendered, f"tree-sitter-swift {ended.failure(seconds)}")]
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
