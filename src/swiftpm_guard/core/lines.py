"""Lines as git, editors and GitHub's annotations count them: split at "\\n" only (pure).

`str.splitlines` also splits at "\\r", form feeds, U+2028 and five more, so a form feed inside
a comment made the rest of it a data line, and every line after it got the wrong number.
"""

from __future__ import annotations

import bisect
import re


def split_lines(text: str) -> list[str]:
    """`text` split at "\\n"; a final "\\n" ends the last line (no empty line after it).

    A "\\r" before the "\\n" stays on the line: the callers strip what they do not want.
    """
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return parts


class LineIndex:
    """Maps character offsets to 1-based line numbers, lines split at "\\n" only."""

    def __init__(self, text: str) -> None:
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset)
