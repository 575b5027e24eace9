"""Which code `#if` compiles out of a manifest, where the text alone can tell (pure, linear).

`#if false … #endif` hides a package as surely as a comment does. A manifest is compiled with
no `-D` flags, so a bare identifier condition (`#if never`, `#if DEBUG`) is false and `true`
is true; `!` flips either. Platform and version conditions (`os(…)`, `swift(>=…)`,
`canImport(…)`) depend on the machine, so their branches count as live: SwiftPM, when it
runs, is the final word on those.
"""

from __future__ import annotations

import bisect
import re

from swiftpm_guard.core.swift_lexer import Kind, Lexed

_DIRECTIVE = re.compile(r"(?m)^[ \t]*(#(?:if|elseif|else|endif))\b([^\n]*)")
_IDENTIFIER = re.compile(r"(!*)\s*([A-Za-z_][A-Za-z0-9_]*)")


def _value(condition: str) -> bool | None:
    """True, False, or None when only the compiler can tell."""
    text = condition.split("//", 1)[0].strip()
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()
    match = _IDENTIFIER.fullmatch(text)
    if match is None:
        return None
    value = match.group(2) == "true"
    return value if len(match.group(1)) % 2 == 0 else not value


class _Block:
    __slots__ = ("dead", "outer_dead", "taken")

    def __init__(self, outer_dead: bool, taken: bool | None, dead: bool) -> None:
        self.outer_dead = outer_dead
        self.taken = taken  # has an earlier branch been compiled in? (None: cannot tell)
        self.dead = dead


class Inactive:
    """The ranges of a lexed text that `#if` compiles out."""

    def __init__(self, lexed: Lexed) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []
        stack: list[_Block] = []
        dead_from: int | None = None
        for match in _DIRECTIVE.finditer(lexed.text):
            if lexed.kind_at(match.start(1)) is not Kind.CODE:
                continue
            was_dead = bool(stack) and stack[-1].dead
            self._directive(stack, match.group(1), _value(match.group(2)))
            now_dead = bool(stack) and stack[-1].dead
            if now_dead and not was_dead:
                dead_from = match.start()
            elif was_dead and not now_dead and dead_from is not None:
                self._starts.append(dead_from)
                self._ends.append(match.end())
                dead_from = None
        if dead_from is not None:  # an #if never closed: Swift rejects it; dead to the end
            self._starts.append(dead_from)
            self._ends.append(len(lexed.text))

    @staticmethod
    def _directive(stack: list[_Block], name: str, value: bool | None) -> None:
        if name == "#if":
            outer = bool(stack) and stack[-1].dead
            stack.append(_Block(outer, value, outer or value is False))
            return
        if not stack:
            return  # a stray #else/#endif: the syntax check's business
        block = stack[-1]
        if name == "#endif":
            stack.pop()
        elif name == "#elseif":
            taken = block.taken
            block.dead = block.outer_dead or taken is True or value is False
            block.taken = True if taken is True or value is True else (
                None if taken is None or value is None else False)
        else:  # #else
            block.dead = block.outer_dead or block.taken is True
            block.taken = True

    def dead_at(self, offset: int) -> bool:
        index = bisect.bisect_right(self._starts, offset) - 1
        return index >= 0 and offset < self._ends[index]
