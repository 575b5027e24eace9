"""Lines as git, editors and GitHub's annotations count them: split at "\\n" only (pure).

`str.splitlines` also splits at "\\r", form feeds, U+2028 and five more, so a form feed inside
a comment made the rest of it a data line, and every line after it got the wrong number.
"""

from __future__ import annotations


def split_lines(text: str) -> list[str]:
    """`text` split at "\\n"; a final "\\n" ends the last line (no empty line after it).

    A "\\r" before the "\\n" stays on the line: the callers strip what they do not want.
    """
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return parts
