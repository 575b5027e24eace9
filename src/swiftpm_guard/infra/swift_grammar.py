"""tree-sitter-swift's side of the syntax check: load the grammar, parse, and describe the
first ERROR and MISSING nodes as plain data (what a child process sends back).

Apart from `infra.swift_syntax` (which turns these into findings) so that a child can load
and run it without importing the check's modules.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

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
