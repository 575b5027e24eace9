"""Without SwiftPM: parse the rendered manifest with tree-sitter-swift (pure: text → findings).

This only proves the text is Swift syntax; it cannot evaluate what the code computes, so the
counts stay the static ones. tree-sitter recovers from errors, so one bad spot yields a few
ERROR or MISSING nodes; we report the first few, with line and column.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from swiftpm_guard.core.model import Finding, Rendered, Severity
from swiftpm_guard.core.swift_checks import manifest_line

MAX_PER_MANIFEST = 5
_SNIPPET = 40


@cache
def _parser() -> Callable[[bytes], Any] | None:
    """tree-sitter's parse function for Swift, or None when the wheels are not installed."""
    try:
        import tree_sitter
        import tree_sitter_swift
    except ImportError:
        return None
    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_swift.language()))
    return parser.parse


def available() -> bool:
    return _parser() is not None


def syntax_findings(rendered: Rendered) -> list[Finding]:
    """`swift-syntax` findings for the rendered text (empty when it parses or no parser)."""
    parse = _parser()
    if parse is None:
        return []
    data = rendered.text.encode("utf-8")
    tree = parse(data)
    lines = data.split(b"\n")
    findings: list[Finding] = []
    for node in _problems(tree.root_node):
        row, byte_column = node.start_point
        text = lines[row] if row < len(lines) else b""
        column = len(text[:byte_column].decode("utf-8", errors="replace")) + 1
        line, note = manifest_line(rendered, row + 1)
        findings.append(
            Finding(
                code="swift-syntax",
                severity=Severity.ERROR,
                subject=f"{row + 1}:{column}",
                file=rendered.template.path,
                line=line,
                message=f"not valid Swift at {row + 1}:{column}: {_describe(node)}{note} "
                "(tree-sitter-swift; SwiftPM was not run)",
            )
        )
    return findings


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
