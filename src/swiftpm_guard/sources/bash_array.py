"""The one `VAR=( … )` that bash runs in a script, read with tree-sitter-bash.

A `FRAMEWORKS=(…)` in a `#` comment, a heredoc body or a quoted string is text, not an
assignment; only the grammar knows. We accept exactly one plain top-level assignment of literal
words. Anything else is bad input, not a finding, because the list the workflow builds is then
not something we can read with certainty, and any verdict would be a guess: assigned twice
(which one runs depends on control flow), appended with `+=`, assigned inside an `if`, a
function, a subshell or a `&&` list, set element by element, by `read`/`mapfile`/`eval`, or
built from expansions, command substitutions or globs. The error names the line.

The parse is linear, and the elements come back in order with byte offsets, so the caller maps
them to lines in one pass.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any, NamedTuple

from swiftpm_guard.core.model import NAME_RE

#: Where bash may put an array assignment that runs unconditionally, as tree-sitter-bash
#: nests it: the script itself, `declare -a VAR=(…)` and `A=1 VAR=(…)` on one line.
_TOP_LEVEL = ("program",)
_WRAPPERS = ("declaration_command", "variable_assignments")
#: Commands that can set an array without an assignment.
_SETTERS = {"read", "mapfile", "readarray", "eval", "unset", "declare", "typeset", "local",
            "export", "readonly", "source", "."}
_LITERAL_PARTS = {"word", "raw_string", "string", "concatenation", "string_content", "number"}
_STRING_ESCAPE = re.compile(r'\\([$`"\\\n])')
_WORD_ESCAPE = re.compile(r"\\\n|\\(.)", re.DOTALL)


class Element(NamedTuple):
    word: str
    offset: int  # byte offset in the script


class Rejected(NamedTuple):
    """Why the array cannot be read, at a byte offset of the script."""

    message: str
    offset: int


@cache
def _parser() -> Callable[[bytes], Any]:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language())).parse


def prepare() -> None:
    """Load the grammar now (in the parent), so a forked child never imports it."""
    _parser()


def read_arrays(scripts: list[bytes], var: str) -> list[list[Element] | Rejected | None]:
    """`read_array` for each script (one child process reads them all)."""
    return [read_array(script, var) for script in scripts]


def read_array(script: bytes, var: str) -> list[Element] | Rejected | None:
    """The literal elements of the one top-level `var=( … )` bash runs; None if there is none.

    Pure data in and out (it runs in a child process): bytes, then elements or a rejection.
    """
    tree = _parser()(script)
    found: list[Any] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind == "variable_assignment" and _assigned_name(node) == var:
            found.append(node)
        elif kind == "variable_assignment" and _subscript_name(node) == var:
            return Rejected(f"{var}[…]= sets the array element by element; give the whole "
                            f"list in one {var}=( … )", node.start_byte)
        elif kind == "ERROR" and _assigns(script, node, var):
            return Rejected(f"unterminated quote or parenthesis: {var}=( … ) is not valid "
                            "bash here", node.start_byte)
        elif kind == "command" and _sets_by_command(script, node, var):
            return Rejected(f"{var} is set by a command ({_command_name(script, node)}); only "
                            f"{var}=( literal names ) can be checked", node.start_byte)
        stack.extend(reversed(node.children))
    if not found:
        return None
    for node in found:
        if _operator(script, node) == b"+=":
            return Rejected(f"{var}+=( … ) appends to the array; give the whole list in one "
                            f"{var}=( … )", node.start_byte)
    if len(found) > 1:
        lines = ", ".join(str(script.count(b"\n", 0, n.start_byte) + 1) for n in found[:5])
        return Rejected(f"{var} is assigned {len(found)} times (script lines {lines}); which "
                        "one bash keeps depends on the script: assign it once",
                        found[1].start_byte)
    return _elements(script, found[0], var)


def _operator(script: bytes, node: Any) -> bytes:
    name = node.child_by_field_name("name")
    value = node.child_by_field_name("value")
    end = value.start_byte if value is not None else node.end_byte
    return script[name.end_byte:end].strip()


def _assigned_name(node: Any) -> str | None:
    name = node.child_by_field_name("name")
    if name is None or name.type != "variable_name":
        return None
    return str(name.text.decode("utf-8", "replace"))


def _subscript_name(node: Any) -> str | None:
    name = node.child_by_field_name("name")
    if name is None or name.type != "subscript":
        return None
    inner = name.child_by_field_name("name")
    return None if inner is None else str(inner.text.decode("utf-8", "replace"))


def _assigns(script: bytes, node: Any, var: str) -> bool:
    """Does unparseable text hold what looks like an assignment to `var`?"""
    pattern = re.compile(rb"(?<![A-Za-z0-9_$])" + re.escape(var.encode()) + rb"\+?=")
    return pattern.search(script, node.start_byte, node.end_byte) is not None


def _command_name(script: bytes, node: Any) -> str:
    name = node.child_by_field_name("name")
    if name is None:
        return ""
    return script[name.start_byte:name.end_byte].decode("utf-8", "replace")


def _sets_by_command(script: bytes, node: Any, var: str) -> bool:
    if _command_name(script, node) not in _SETTERS:
        return False
    pattern = re.compile(rb"(?<![A-Za-z0-9_$])" + re.escape(var.encode()) + rb"(?![A-Za-z0-9_])")
    return any(pattern.search(script[arg.start_byte:arg.end_byte])
               for arg in node.children_by_field_name("argument"))


def _elements(script: bytes, node: Any, var: str) -> list[Element] | Rejected:
    context = _context(node)
    if context is not None:
        return Rejected(f"{var}=( … ) is inside {context}; cannot tell whether bash runs it: "
                        "assign it once at the top of the script", node.start_byte)
    value = node.child_by_field_name("value")
    if value is None or value.type != "array":
        return Rejected(f"{var} is not assigned an array ( … )", node.start_byte)
    words: list[tuple[str, int]] = []
    previous_end = -1
    for child in value.children:
        if child.type in ("(", "comment"):
            previous_end = -1
            continue
        if child.type == ")":
            if child.is_missing:
                return Rejected("array is not closed with ')'", value.start_byte)
            continue
        word = _literal(script, child)
        if word is None:
            return Rejected(f"array entry '{_snippet(script, child)}' is built by the shell "
                            "(an expansion, a substitution); only literal names can be "
                            "checked", child.start_byte)
        # bash joins pieces with nothing or a line continuation between them into one word
        # (tree-sitter-bash splits `a\<newline>b` in two).
        gap = script[previous_end:child.start_byte] if previous_end >= 0 else b" "
        if words and gap.rstrip(b"\\\n") == b"" and gap.count(b"\n") == gap.count(b"\\"):
            words[-1] = (words[-1][0] + word, words[-1][1])
        else:
            words.append((word, child.start_byte))
        previous_end = child.end_byte
    elements: list[Element] = []
    for word, offset in words:
        if not NAME_RE.fullmatch(word):
            return Rejected(f"array entry {word!r} is not a framework name [A-Za-z0-9_]+",
                            offset)
        elements.append(Element(word, offset))
    return elements


def _context(node: Any) -> str | None:
    """None when `node` runs unconditionally at the top of the script, else where it sits."""
    parent = node.parent
    while parent is not None and parent.type in _WRAPPERS:
        parent = parent.parent
    if parent is None or parent.type in _TOP_LEVEL:
        return None
    return {"if_statement": "an if", "function_definition": "a function",
            "subshell": "a subshell", "list": "a && or || list", "pipeline": "a pipeline",
            "command": "a command's environment"}.get(parent.type, f"a {parent.type}")


def _literal(script: bytes, node: Any) -> str | None:
    """The word bash makes of a literal element, or None if the shell would compute it."""
    if node.type not in _LITERAL_PARTS or node.has_error:
        return None
    raw = script[node.start_byte:node.end_byte].decode("utf-8", "replace")
    if node.type == "raw_string":
        return raw[1:-1]
    if node.type == "string":
        if any(c.type not in ('"', "string_content") for c in node.children):
            return None
        return _STRING_ESCAPE.sub(r"\1", raw[1:-1])
    if node.type == "concatenation":
        parts = [_literal(script, child) for child in node.children]
        return None if any(p is None for p in parts) else "".join(p or "" for p in parts)
    return _WORD_ESCAPE.sub(lambda m: m.group(1) or "", raw)


def _snippet(script: bytes, node: Any) -> str:
    text = script[node.start_byte:min(node.end_byte, node.start_byte + 40)]
    return text.decode("utf-8", "replace").split("\n", 1)[0]
