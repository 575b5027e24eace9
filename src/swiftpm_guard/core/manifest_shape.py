"""Tell products from binary-only targets by where a placeholder sits in the Swift text (pure).

The real manifest declares `let products = …([ … ])` and `let targets = …([ … ])`; a checksum
inside the first becomes a product with a stub folder, inside the second a bare binary target.
We find each top-level `let`/`var` whose initializer is a bracketed literal and remember its span.
When the text does not say, the role stays UNKNOWN and the checks say so instead of guessing.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from swiftpm_guard.core.model import Role

#: `let name` / `var name`; the optional `: Type` and the `=` are found by `_Next` scans, not by
#: the pattern (`(?::[^=\n]*)?=` rescanned the line from every `let`: quadratic, issue 25).
#: The name sits in a lookahead: `let let x = y(` must find `x`, so a match consumes only
#: `let ` and the next search starts at the name.
_DECLARATION = re.compile(r"\b(?:let|var)\s+(?=([A-Za-z_][A-Za-z0-9_]*)(\s*))")
_EQUALS = re.compile(r"=")
_LINE_END = re.compile(r"\n")
_OPENER = re.compile(r"[(\[{]")
_OPEN = {"(": ")", "[": "]", "{": "}"}


@dataclass(frozen=True, slots=True)
class Declaration:
    name: str
    start: int
    end: int

    @property
    def role(self) -> Role:
        lowered = self.name.lower()
        if "product" in lowered:
            return Role.PRODUCT
        if "target" in lowered:
            return Role.BINARY_ONLY
        return Role.UNKNOWN


def _skip_string(text: str, index: int) -> int:
    """Return the index after the string literal starting at `index` (a quote)."""
    if text.startswith('"""', index):
        end = text.find('"""', index + 3)
        return len(text) if end < 0 else end + 3
    i = index + 1
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if char == '"' or char == "\n":
            return i + 1
        i += 1
    return i


def _skip_comment(text: str, index: int) -> int:
    if text.startswith("//", index):
        end = text.find("\n", index)
        return len(text) if end < 0 else end
    end = text.find("*/", index + 2)
    return len(text) if end < 0 else end + 2


def _balanced_end(text: str, index: int) -> int:
    """Index after the bracket group that opens at `index`; strings and comments skipped."""
    stack: list[str] = []
    i = index
    while i < len(text):
        char = text[i]
        if char == '"':
            i = _skip_string(text, i)
            continue
        if text.startswith("//", i) or text.startswith("/*", i):
            i = _skip_comment(text, i)
            continue
        if char in _OPEN:
            stack.append(_OPEN[char])
        elif stack and char == stack[-1]:
            stack.pop()
            if not stack:
                return i + 1
        i += 1
    return len(text)


class _Next:
    """Where a pattern next matches at or after a position, for positions that never go back:
    each search resumes where the last one ended, so all of them together are linear."""

    def __init__(self, text: str, pattern: re.Pattern[str]) -> None:
        self._text = text
        self._pattern = pattern
        self._found = -1

    def at(self, position: int) -> int:
        """The offset of the next match at or after `position` (the text's length if none)."""
        if self._found < position:
            match = self._pattern.search(self._text, position)
            self._found = len(self._text) if match is None else match.start()
        return self._found


def _initializer(text: str, after: int, equals: _Next, line_end: _Next) -> int | None:
    """Just after the `=` of a declaration whose name ends at `after` (an optional `: Type`
    before it, on the same line), or None."""
    if text.startswith("=", after):
        return after + 1
    if not text.startswith(":", after):
        return None
    sign = equals.at(after)
    return sign + 1 if sign < line_end.at(after) else None


def declarations(text: str) -> list[Declaration]:
    """Every outermost `let/var name = <expr with a bracket group>` and that group's span.

    Declarations nested inside an earlier span are skipped, which keeps this linear in the text.
    """
    found: list[Declaration] = []
    equals, line_end, opener = (_Next(text, p) for p in (_EQUALS, _LINE_END, _OPENER))
    for match in _DECLARATION.finditer(text):
        if found and match.start() < found[-1].end:
            continue
        value = _initializer(text, match.end(2), equals, line_end)
        if value is None:
            continue
        bracket = opener.at(value)
        if bracket >= line_end.at(value):
            continue
        found.append(Declaration(match.group(1), match.start(), _balanced_end(text, bracket)))
    return found


class ManifestShape:
    """The declarations of one template, queried by offset."""

    def __init__(self, text: str) -> None:
        self._decls = declarations(text)
        self._starts = [d.start for d in self._decls]

    def role_at(self, offset: int) -> Role:
        """Role given by the declaration spanning `offset` (spans are sorted, never overlap)."""
        index = bisect.bisect_right(self._starts, offset) - 1
        if index >= 0 and offset < self._decls[index].end:
            return self._decls[index].role
        return Role.UNKNOWN
