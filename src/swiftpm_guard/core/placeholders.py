"""Find `__VERSION__`, `__SHA256_<name>__` and their near-misses in template text (pure).

A token is a maximal run of identifier characters, so `__SHA256_a__` never matches inside
`__SHA256_a__b__`: substitution replaces whole tokens only, never parts of longer words.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import NamedTuple

VERSION_TOKEN = "__VERSION__"
_WORD = re.compile(r"[A-Za-z0-9_]+")
_CHECKSUM = re.compile(r"__SHA256_([A-Za-z0-9_]+)__")
# Words that look like they were meant to be a placeholder: they mention SHA256 or VERSION
# in any case and carry the underscores of the placeholder syntax at either end.
_SUSPECT = re.compile(r"(?i)sha256|version")


class Token(NamedTuple):
    kind: str  # "version", "checksum" or "malformed"
    text: str
    start: int
    end: int
    name: str = ""  # the binary target name for "checksum"


def scan(text: str) -> Iterator[Token]:
    """Yield every placeholder token and every near-miss, in text order."""
    for word in _WORD.finditer(text):
        value = word.group()
        if "_" not in value or not _SUSPECT.search(value):
            continue
        if value == VERSION_TOKEN:
            yield Token("version", value, word.start(), word.end())
            continue
        checksum = _CHECKSUM.fullmatch(value)
        if checksum:
            yield Token("checksum", value, word.start(), word.end(), checksum.group(1))
        elif value.startswith("_") or value.endswith("_"):
            yield Token("malformed", value, word.start(), word.end())


class LineIndex:
    """Maps character offsets to 1-based line numbers, lines split at "\\n" only (as git and
    GitHub's annotations count them: a lone "\\r" or a form feed starts no line)."""

    def __init__(self, text: str) -> None:
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset)

    def offset_of(self, line: int) -> int:
        return self._starts[max(0, min(line, len(self._starts)) - 1)]


def substitute(text: str, version: str, checksums: dict[str, str]) -> str:
    """Replace whole placeholder tokens; unknown names stay as they are (byte-exact elsewhere)."""

    def replace(word: re.Match[str]) -> str:
        value = word.group()
        if value == VERSION_TOKEN:
            return version
        checksum = _CHECKSUM.fullmatch(value)
        if checksum and checksum.group(1) in checksums:
            return checksums[checksum.group(1)]
        return value

    return _WORD.sub(replace, text)
