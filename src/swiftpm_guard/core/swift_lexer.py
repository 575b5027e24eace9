"""Which parts of Swift text are comments, string literals and live code (pure, linear).

Only what decides liveness is lexed: line comments, nested block comments, string literals
(`"…"`, multi-line `\"\"\"…\"\"\"`, raw `#"…"#` with any number of `#`), interpolation `\\(…)`
(code again, with its own strings and comments) and extended regex literals `#/…/#`.
Everything else is code. An unterminated comment, string or regex runs to the end of the text
and is reported as a problem: Swift rejects it, and whatever it swallowed is not live.

Each step jumps with a compiled regular expression to the next character that can change the
state, so the work is linear in the text and independent of how it is nested.
"""

from __future__ import annotations

import bisect
import re
from enum import Enum
from functools import cache, lru_cache
from typing import NamedTuple


class Kind(Enum):
    CODE = "code"
    COMMENT = "comment"
    STRING = "string"  # the text of a string literal, delimiters included
    REGEX = "regex"


class Span(NamedTuple):
    kind: Kind
    start: int
    end: int


class Problem(NamedTuple):
    """Something Swift rejects: `what` ("comment", "string", "regex"), opened at `start`."""

    what: str
    start: int
    detail: str


# Code: the next comment opener, string or regex opener, or parenthesis (for interpolation).
_CODE_STOP = re.compile(r'//|/\*|(#*)("""|")|(#+)/|[()]')
_BLOCK = re.compile(r"/\*|\*/")
_NEWLINE = re.compile(r"[\n\r]")


@cache
def _string_stop(hashes: int, multiline: bool) -> re.Pattern[str]:
    """The next escape, terminator (or, single-line, newline) inside a string literal."""
    pounds = "#" * hashes
    close = '"""' if multiline else '"'
    # A multi-line literal may hold newlines; its `nl` group can never match.
    newline = r"(?!)" if multiline else r"[\n\r]"
    return re.compile(rf"(?P<esc>\\{pounds})|(?P<end>{close}{pounds})|(?P<nl>{newline})")


@cache
def _regex_end(hashes: int) -> re.Pattern[str]:
    return re.compile("/" + "#" * hashes)


class _Interpolation:
    """An open `\\(`: code until its matching `)`, then back into the string it came from."""

    __slots__ = ("depth", "hashes", "multiline", "string_start")

    def __init__(self, depth: int, hashes: int, multiline: bool, string_start: int) -> None:
        self.depth = depth
        self.hashes = hashes
        self.multiline = multiline
        self.string_start = string_start


class Lexed:
    """The spans of a text, in order and covering it exactly, and the problems found."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.spans: list[Span] = []
        self.problems: list[Problem] = []
        self._lex()
        self._starts = [span.start for span in self.spans]

    # -- queries ------------------------------------------------------------------------------

    def kind_at(self, offset: int) -> Kind:
        """The kind of the span holding `offset` (CODE past the end)."""
        index = bisect.bisect_right(self._starts, offset) - 1
        if index < 0 or offset >= len(self.text):
            return Kind.CODE
        return self.spans[index].kind

    def literal_at(self, offset: int) -> str | None:
        """The value of the string literal holding `offset` when it is one whole literal with no
        interpolation (`"abc"`, `#"abc"#`), else None: a checksum is live only as such."""
        index = bisect.bisect_right(self._starts, offset) - 1
        if index < 0 or offset >= len(self.text) or self.spans[index].kind is not Kind.STRING:
            return None
        span = self.spans[index]
        raw = self.text[span.start:span.end]
        hashes = len(raw) - len(raw.lstrip("#"))
        quote = '"""' if raw[hashes:].startswith('"""') else '"'
        opener = "#" * hashes + quote
        closer = quote + "#" * hashes
        if len(raw) < len(opener) + len(closer) or not raw.startswith(opener) or \
                not raw.endswith(closer):
            return None  # unterminated, or a piece around an interpolation
        return raw[len(opener):len(raw) - len(closer)]

    def code_view(self) -> str:
        """The text with every comment, string and regex replaced by one space: what the
        compiler reads as tokens, for matching declarations such as `let package = Package(`."""
        return "".join(self.text[s.start:s.end] if s.kind is Kind.CODE else " "
                       for s in self.spans)

    def code_offsets(self) -> list[tuple[int, int]]:
        """(offset in code_view, offset in text) at the start of each span, for mapping back."""
        pairs: list[tuple[int, int]] = []
        position = 0
        for span in self.spans:
            pairs.append((position, span.start))
            position += span.end - span.start if span.kind is Kind.CODE else 1
        return pairs

    # -- lexing -------------------------------------------------------------------------------

    def _add(self, kind: Kind, start: int, end: int) -> None:
        if end <= start:
            return
        if self.spans and self.spans[-1].kind is kind and self.spans[-1].end == start:
            self.spans[-1] = Span(kind, self.spans[-1].start, end)
        else:
            self.spans.append(Span(kind, start, end))

    def _lex(self) -> None:
        text = self.text
        stack: list[_Interpolation] = []
        i = 0
        code_from = 0
        while True:
            match = _CODE_STOP.search(text, i)
            if match is None:
                self._add(Kind.CODE, code_from, len(text))
                break
            token = match.group()
            start = match.start()
            if token in "()":
                i = match.end()
                if stack:
                    frame = stack[-1]
                    frame.depth += 1 if token == "(" else -1
                    if frame.depth == 0:
                        # The interpolation's `)` belongs to the string it came from.
                        self._add(Kind.CODE, code_from, start)
                        stack.pop()
                        i, code_from = self._string(start, frame.hashes, frame.multiline,
                                                    frame.string_start, stack)
                continue
            self._add(Kind.CODE, code_from, start)
            if token == "//":
                newline = _NEWLINE.search(text, start)
                end = len(text) if newline is None else newline.start()
                self._add(Kind.COMMENT, start, end)
                i = code_from = end
            elif token == "/*":
                i = code_from = self._block_comment(start)
            elif match.group(3) is not None:
                i = code_from = self._regex(start, len(match.group(3)))
            else:
                hashes = len(match.group(1))
                multiline = match.group(2) == '"""'
                i, code_from = self._string(start, hashes, multiline, start, stack,
                                            opening=match.end() - start)
            if i >= len(text):
                break
        if stack:
            self.problems.append(Problem("string", stack[-1].string_start,
                                         "an interpolation \\( is never closed"))

    def _block_comment(self, start: int) -> int:
        depth = 0
        for match in _BLOCK.finditer(self.text, start):
            depth += 1 if match.group() == "/*" else -1
            if depth == 0:
                self._add(Kind.COMMENT, start, match.end())
                return match.end()
        self._add(Kind.COMMENT, start, len(self.text))
        self.problems.append(Problem("comment", start, "/* is never closed"))
        return len(self.text)

    def _regex(self, start: int, hashes: int) -> int:
        match = _regex_end(hashes).search(self.text, start + hashes + 1)
        end = len(self.text) if match is None else match.end()
        self._add(Kind.REGEX, start, end)
        if match is None:
            self.problems.append(Problem("regex", start, "#/ is never closed"))
        return end

    def _string(self, start: int, hashes: int, multiline: bool, string_start: int,
                stack: list[_Interpolation], opening: int = 1) -> tuple[int, int]:
        """Lex a string body from `start` (its opener or an interpolation's `)`).

        Returns (where code resumes scanning, where the next code span starts).
        """
        text = self.text
        stop = _string_stop(hashes, multiline)
        i = start + opening
        while True:
            match = stop.search(text, i)
            if match is None or match.group("nl") is not None:
                end = len(text) if match is None else match.start()
                self._add(Kind.STRING, start, end)
                quote = '"""' if multiline else '"'
                self.problems.append(Problem("string", string_start,
                                             f"{'#' * hashes}{quote} is never closed"))
                if match is None:
                    return len(text), len(text)
                return end, end
            if match.group("end") is not None:
                self._add(Kind.STRING, start, match.end())
                return match.end(), match.end()
            after = match.end()
            if text.startswith("(", after):
                self._add(Kind.STRING, start, after + 1)
                stack.append(_Interpolation(1, hashes, multiline, string_start))
                return after + 1, after + 1
            i = after + 1  # an escape: the next character never ends the string


@lru_cache(maxsize=4)
def lex(text: str) -> Lexed:
    """The text's spans and problems. Cached: a check lexes each rendered manifest twice (the
    live-code rule, then the syntax check), and a Lexed is never changed once made."""
    return Lexed(text)
