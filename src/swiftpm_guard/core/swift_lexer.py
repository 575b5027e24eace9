"""Swift text as the compiler reads it: comments, string literals, `#if` (pure, linear).

What decides whether a manifest's code is live is lexed by Swift's rules, each checked against
the Swift 6.0.3 compiler (tests/integration/test_swiftpm_differential.py keeps checking):

- Lines end at LF, CR or CRLF; space, tab, form feed, vertical tab and NUL are white space.
- Comments: `//` to the end of the line, `/* … */` nested.
- String literals: `"…"` (ends at its line's end, else unterminated), multi-line `\"\"\"`
  (the opening delimiter ends its line, the closing one starts its own line after white space
  only, which is the indentation every other non-empty line must start with), raw strings
  with `#` (`#\"\"\"…\"\"\"#` on one line is a one-line raw string), escapes (`\\0 \\\\ \\t
  \\n \\r \\" \\'`, `\\u{1-8 hex}` of a scalar, `\\(…)` interpolation, and in a multi-line
  literal `\\` before the line break), no control character but tab. Extended regex literals
  `#/…/#`.
- `#if`, `#elseif`, `#else`, `#endif` anywhere in code (after `;`, a comment or other code on
  the line too); `#if` may follow only `;` or `{` on its line. A condition ends at the end of
  its line outside parentheses, and nothing but a comment may follow it, `#else` or `#endif`.

A condition is decided exactly when the text alone says (`Verdict.TRUE`/`FALSE`), else it is
`HOST` (depends on the machine: `os`, `arch`, `canImport`, …) or `UNDECIDABLE` (compiler
features, or a version check that differs between supported compilers). Anything the compiler
rejects is a `Problem`; so is what this reader cannot parse, so that it refuses rather than
guesses. Every step is a scan or a search for one character class, linear in the text.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterator, Sequence
from enum import Enum
from functools import lru_cache
from typing import NamedTuple

# -- values -----------------------------------------------------------------------------------


class Kind(Enum):
    CODE = "code"
    COMMENT = "comment"
    STRING = "string"  # the text of a string literal, delimiters included
    REGEX = "regex"


class Span(NamedTuple):
    kind: Kind
    start: int
    end: int


#: Problems whose text swallows what follows: the rest is not code (an unterminated comment,
#: string or regex). The other kinds ("literal", "directive", "character") are rejected by the
#: compiler but leave the text around them as it was.
SWALLOWING = frozenset({"comment", "string", "regex"})


class Problem(NamedTuple):
    """Something Swift rejects (or this reader cannot read), at `start`: `what` is "comment",
    "string", "regex" (never closed), "literal" (a malformed string literal), "directive"
    (an `#if` structure or condition) or "character"."""

    what: str
    start: int
    detail: str

    @property
    def swallows(self) -> bool:
        return self.what in SWALLOWING


class Verdict(Enum):
    """Whether a condition (or an `#if` branch) is compiled in, as far as the text can tell."""

    TRUE = "true"
    FALSE = "false"
    HOST = "host-dependent"  # depends on the machine evaluating the manifest
    UNDECIDABLE = "undecidable"  # depends on the compiler, or the reader cannot tell

    @property
    def decided(self) -> bool:
        return self is Verdict.TRUE or self is Verdict.FALSE


Version = tuple[int, ...]

#: Compilers a manifest may meet, as half-open version ranges: Swift 5.9 and 5.10 (no 5.11
#: was released) and every 6.x. A condition is decided only if all of them agree.
SUPPORTED_COMPILERS: tuple[tuple[Version, Version], ...] = (((5, 9), (5, 11)), ((6,), (7,)))
#: `swift(…)` compares the language mode's version: a 6.x compiler in Swift 5 mode is 5.10.
_SWIFT5_ON_6 = (5, 10)
#: Interpolations nested deeper than this are refused (each level costs the line checks).
MAX_NESTING = 16
#: Parentheses and `!` nested deeper than this in a condition are refused.
MAX_CONDITION_DEPTH = 64
#: Beyond this many distinct unknown atoms (or this size), a branch is judged by three-valued
#: logic instead of by trying every assignment; both are sound, only this one is exact.
MAX_FREE_ATOMS = 8
MAX_EXACT_SIZE = 128
#: Node evaluations all exact verdicts of one text may cost; past it, three-valued logic. Real
#: manifests use a few hundred; a hostile one cannot make the exact search superlinear.
EXACT_BUDGET = 400_000

# -- scanning patterns (each a single character class or fixed strings: no backtracking) ------

_CODE_STOP = re.compile(r'[/"#()]')
_CODE_STOP_NL = re.compile(r'[/"#()\r\n]')  # inside an interpolation of a one-line string
_NEWLINE = re.compile(r"[\r\n]")
#: One line break as Swift counts them: CRLF is one (an escaped one starts at its CR).
_LINE_BREAK = re.compile(r"\r\n|[\r\n]")
_BLOCK = re.compile(r"/\*|\*/")
_HASHES = re.compile(r"#+")
_DIRECTIVE_WORD = re.compile(r"(elseif|else|endif|if)(?!\w)")
_STRING_STOP = re.compile(r'[\\"\r\n\x01-\x08\x0b\x0c\x0e-\x1f\x7f]')
_UNICODE_ESCAPE = re.compile(r"\{([0-9a-fA-F]*)\}")
_INVALID_IN_CODE = re.compile(r"[\x01-\x08\x0e-\x1f\x7f\u2028\u2029]")
_TOOLS_VERSION = re.compile(r"//[ \t]*swift-tools-version[ \t]*:[ \t]*([0-9]+(?:\.[0-9]+){0,2})",
                            re.IGNORECASE)
_SIMPLE_ESCAPES = frozenset('0\\tnr"\'')

# -- the lexer --------------------------------------------------------------------------------


class _Literal:
    """A string literal being lexed: where it opened, and its delimiter."""

    __slots__ = ("content", "continuations", "hashes", "multiline", "start")

    def __init__(self, start: int, hashes: int, multiline: bool, content: int) -> None:
        self.start = start
        self.hashes = hashes
        self.multiline = multiline
        self.content = content  # just after the opening delimiter
        self.continuations: list[int] = []  # line breaks escaped by `\`


class _Interpolation:
    """An open `\\(`: code until its matching `)`, then back into the literal it came from."""

    __slots__ = ("depth", "literal")

    def __init__(self, literal: _Literal) -> None:
        self.depth = 1
        self.literal = literal


class _Directive(NamedTuple):
    start: int  # the `#`
    word: str  # "if", "elseif", "else", "endif"
    nested: bool  # inside an interpolation


class Lexed:
    """The spans of a text, in order and covering it exactly; the problems found; its `#if`
    structure (`inactive`) and its tools version."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.spans: list[Span] = []
        self.problems: list[Problem] = []
        self._directives: list[_Directive] = []
        self._multiline: list[tuple[_Literal, int]] = []  # (literal, offset of its closer)
        self._lex()
        self._starts = [span.start for span in self.spans]
        for literal, closer in self._multiline:
            self._check_lines(literal, closer)
        self._check_characters()
        self.tools_version = tools_version(text)
        self.inactive = Inactive(self)
        self.problems += self.inactive.problems
        self.problems.sort(key=lambda p: p.start)

    # -- queries ------------------------------------------------------------------------------

    def span_index(self, offset: int) -> int:
        """The index of the span holding `offset` (-1 before the text, last span past it)."""
        return bisect.bisect_right(self._starts, offset) - 1

    def kind_at(self, offset: int) -> Kind:
        """The kind of the span holding `offset` (CODE past the end)."""
        index = self.span_index(offset)
        if index < 0 or offset >= len(self.text):
            return Kind.CODE
        return self.spans[index].kind

    def literal_at(self, offset: int) -> str | None:
        """The value of the string literal holding `offset` when it is one whole one-line
        literal with no interpolation (`"abc"`, `#"abc"#`), else None: a checksum is live only
        as such."""
        index = self.span_index(offset)
        if index < 0 or offset >= len(self.text) or self.spans[index].kind is not Kind.STRING:
            return None
        span = self.spans[index]
        raw = self.text[span.start:span.end]
        hashes = len(raw) - len(raw.lstrip("#"))
        opener = "#" * hashes + '"'
        closer = '"' + "#" * hashes
        body = raw[len(opener):len(raw) - len(closer)]
        if len(raw) < len(opener) + len(closer) or not raw.startswith(opener) or \
                not raw.endswith(closer) or _NEWLINE.search(body) or \
                ("\\" + "#" * hashes) in body or (hashes == 0 and body.startswith('""')):
            return None  # unterminated, a piece around an interpolation, or with escapes
        return body

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

    def _problem(self, what: str, start: int, detail: str) -> None:
        self.problems.append(Problem(what, start, detail))

    def _lex(self) -> None:
        text = self.text
        stack: list[_Interpolation] = []
        i = code_from = 0
        while i < len(text):
            one_line = any(not frame.literal.multiline for frame in stack)
            match = (_CODE_STOP_NL if one_line else _CODE_STOP).search(text, i)
            if match is None:
                break
            start = match.start()
            char = text[start]
            if char in "\r\n":
                i = code_from = self._interpolation_past_line(start, stack, code_from)
            elif char in "()":
                i = start + 1
                if stack:
                    i, code_from = self._parenthesis(char, start, stack, code_from)
            elif char == "/":
                i, code_from = self._slash(start, code_from)
            else:
                i, code_from = self._pound_or_quote(start, stack, code_from)
        self._add(Kind.CODE, code_from, len(text))
        if stack:
            self._problem("string", stack[-1].literal.start,
                          "an interpolation \\( is never closed")

    def _interpolation_past_line(self, at: int, stack: list[_Interpolation],
                                 code_from: int) -> int:
        """A line break inside an interpolation of a one-line literal: Swift ends that literal
        there, unterminated, with every interpolation inside it."""
        while stack[-1].literal.multiline:
            stack.pop()
        literal = stack.pop().literal
        self._add(Kind.CODE, code_from, at)
        self._problem("string", literal.start, "an interpolation in a one-line string literal "
                      "runs past the end of its line")
        return at

    def _parenthesis(self, char: str, start: int, stack: list[_Interpolation],
                     code_from: int) -> tuple[int, int]:
        frame = stack[-1]
        frame.depth += 1 if char == "(" else -1
        if frame.depth:
            return start + 1, code_from
        # The interpolation's `)` belongs to the literal it came from.
        self._add(Kind.CODE, code_from, start)
        stack.pop()
        end = self._string_body(frame.literal, start, start + 1, stack)
        return end, end

    def _slash(self, start: int, code_from: int) -> tuple[int, int]:
        text = self.text
        after = text[start + 1:start + 2]
        if after == "/":
            self._add(Kind.CODE, code_from, start)
            newline = _NEWLINE.search(text, start)
            end = len(text) if newline is None else newline.start()
            self._add(Kind.COMMENT, start, end)
            return end, end
        if after == "*":
            self._add(Kind.CODE, code_from, start)
            end = self._block_comment(start)
            return end, end
        return start + 1, code_from

    def _pound_or_quote(self, start: int, stack: list[_Interpolation],
                        code_from: int) -> tuple[int, int]:
        text = self.text
        hashes = 0
        if text[start] == "#":
            run = _HASHES.match(text, start)
            assert run is not None
            hashes = run.end() - start
        after = start + hashes
        if text.startswith('"', after):
            self._add(Kind.CODE, code_from, start)
            if len(stack) >= MAX_NESTING:
                self._add(Kind.STRING, start, len(text))
                self._problem("string", start, f"string literals nested more than "
                              f"{MAX_NESTING} deep in interpolations")
                return len(text), len(text)
            end = self._string(start, hashes, stack)
            return end, end
        if text.startswith("/", after):
            self._add(Kind.CODE, code_from, start)
            end = self._regex(start, hashes)
            return end, end
        word = _DIRECTIVE_WORD.match(text, after)
        if word is not None:
            if hashes > 1:
                self._problem("directive", start, "'#' before a directive")
            self._directives.append(_Directive(after - 1, word.group(1), bool(stack)))
        return after, code_from

    def _block_comment(self, start: int) -> int:
        depth = 0
        for match in _BLOCK.finditer(self.text, start):
            depth += 1 if match.group() == "/*" else -1
            if depth == 0:
                self._add(Kind.COMMENT, start, match.end())
                return match.end()
        self._add(Kind.COMMENT, start, len(self.text))
        self._problem("comment", start, "/* is never closed")
        return len(self.text)

    def _regex(self, start: int, hashes: int) -> int:
        text = self.text
        opener_end = start + hashes + 1
        closer = "/" + "#" * hashes
        found = text.find(closer, opener_end)
        multiline = text[opener_end:opener_end + 1] in ("\n", "\r")
        newline = None if multiline else _NEWLINE.search(text, opener_end,
                                                        len(text) if found < 0 else found)
        if found >= 0 and newline is None:
            self._add(Kind.REGEX, start, found + len(closer))
            return found + len(closer)
        end = len(text) if newline is None else newline.start()
        self._add(Kind.REGEX, start, end)
        self._problem("regex", start, f"{'#' * hashes}/ is never closed")
        return end

    # -- string literals ----------------------------------------------------------------------

    def _string(self, start: int, hashes: int, stack: list[_Interpolation]) -> int:
        """Lex the literal whose opening delimiter starts at `start`; returns where code
        resumes (after the literal, or inside its first interpolation)."""
        text = self.text
        quote = start + hashes
        multiline = text.startswith('"""', quote) and (
            hashes == 0 or not self._closes_on_its_line(quote + 1, hashes))
        content = quote + (3 if multiline else 1)
        literal = _Literal(start, hashes, multiline, content)
        if multiline and text[content:content + 1] not in ("\n", "\r"):
            self._problem("literal", content, "multi-line string literal content must begin "
                          "on a new line")
        return self._string_body(literal, start, content, stack)

    def _closes_on_its_line(self, after: int, hashes: int) -> bool:
        """Swift reads `#\"\"\"` as a one-line raw string when `"` and its `#`s follow on the
        same line."""
        found = self.text.find('"' + "#" * hashes, after)
        return found >= 0 and _NEWLINE.search(self.text, after, found) is None

    def _string_body(self, literal: _Literal, span_start: int, i: int,
                     stack: list[_Interpolation]) -> int:
        """Lex a literal's text from `i` (its content, or just after an interpolation's `)`),
        as a STRING span from `span_start`; returns where code resumes."""
        text = self.text
        while True:
            match = _STRING_STOP.search(text, i)
            if match is None:
                return self._unterminated(literal, span_start, len(text))
            at = match.start()
            char = text[at]
            if char == '"':
                end = self._closing(literal, at)
                if end is None:
                    i = at + 1
                    continue
                self._add(Kind.STRING, span_start, end)
                if literal.multiline:
                    self._multiline.append((literal, at))
                return end
            if char in "\r\n":
                if not literal.multiline:
                    return self._unterminated(literal, span_start, at)
                i = at + 1
            elif char == "\\":
                resume = self._escape(literal, at, stack)
                if resume is None:
                    i = at + 1
                    continue
                if resume < 0:  # an interpolation opens: code until its `)`
                    self._add(Kind.STRING, span_start, -resume)
                    return -resume
                i = resume
            else:
                self._problem("literal", at, "unprintable ASCII character in a string literal")
                i = at + 1

    def _closing(self, literal: _Literal, at: int) -> int | None:
        """The end of the closing delimiter starting at `at`, or None if it is content."""
        quotes = '"""' if literal.multiline else '"'
        delimiter = quotes + "#" * literal.hashes
        if not self.text.startswith(delimiter, at):
            return None
        end = at + len(delimiter)
        if literal.hashes and self.text.startswith("#", end):
            self._problem("literal", end, "too many '#' characters in closing delimiter")
        return end

    def _unterminated(self, literal: _Literal, span_start: int, end: int) -> int:
        self._add(Kind.STRING, span_start, end)
        quotes = '"""' if literal.multiline else '"'
        self._problem("string", literal.start, f"{'#' * literal.hashes}{quotes} is never closed")
        return end

    def _escape(self, literal: _Literal, at: int, stack: list[_Interpolation]) -> int | None:
        """Check the escape at `at`: None if the backslash is plain text (a raw string's), the
        negated offset after `(` when an interpolation opens, else where the text resumes."""
        text = self.text
        pounds = "#" * literal.hashes
        if not text.startswith(pounds, at + 1):
            return None
        after = at + 1 + literal.hashes
        char = text[after:after + 1]
        if char == "(":
            stack.append(_Interpolation(literal))
            return -(after + 1)
        if char in _SIMPLE_ESCAPES and char:
            return after + 1
        if char == "u":
            return self._unicode_escape(at, after + 1)
        if literal.multiline:
            blank = after
            while text[blank:blank + 1] in (" ", "\t"):
                blank += 1
            if text[blank:blank + 1] in ("\n", "\r"):
                literal.continuations.append(blank)
                return blank
        self._problem("literal", at, "invalid escape sequence in a string literal")
        return after if char in ("", "\n", "\r") else after + 1

    def _unicode_escape(self, at: int, brace: int) -> int:
        match = _UNICODE_ESCAPE.match(self.text, brace)
        if match is None:
            self._problem("literal", at, "\\u needs a hexadecimal code in braces, \\u{…}")
            return brace
        digits = match.group(1)
        if not 1 <= len(digits) <= 8:
            self._problem("literal", at, "\\u{…} takes 1 to 8 hexadecimal digits")
        elif int(digits, 16) > 0x10FFFF or 0xD800 <= int(digits, 16) <= 0xDFFF:
            self._problem("literal", at, "\\u{…} is not a Unicode scalar")
        return match.end()

    def _check_lines(self, literal: _Literal, closer: int) -> None:
        """A multi-line literal's closing delimiter starts its line after white space only;
        that white space starts every other line but empty ones, and no line break before the
        closing line is escaped."""
        text = self.text
        breaks = list(_LINE_BREAK.finditer(text, literal.content, closer))
        if not breaks:
            return  # on its opening line: reported as content on the opening line
        indent = text[breaks[-1].end():closer]
        if indent.strip(" \t"):
            self._problem("literal", closer, "multi-line string literal closing delimiter must "
                          "begin on a new line")
            return
        if literal.continuations and literal.continuations[-1] == breaks[-1].start():
            self._problem("literal", breaks[-1].start(), "escaped newline at the last line of "
                          "a multi-line string literal")
        for line_break in breaks[:-1]:
            line = line_break.end()
            if text[line:line + 1] in ("\n", "\r"):
                continue  # an empty line needs no indentation
            if not text.startswith(indent, line, line + len(indent)) or \
                    _NEWLINE.search(text, line, line + len(indent)):
                self._problem("literal", line, "a line of a multi-line string literal is not "
                              "indented like its closing delimiter")
                return

    def _check_characters(self) -> None:
        for match in _INVALID_IN_CODE.finditer(self.text):
            if self.kind_at(match.start()) is Kind.CODE:
                self._problem("character", match.start(),
                              f"invalid character U+{ord(match.group()):04X} in source")


def tools_version(text: str) -> Version | None:
    """The `// swift-tools-version:` of the text's first line, trailing zeros dropped."""
    newline = _NEWLINE.search(text)
    first = text[:len(text) if newline is None else newline.start()]
    match = _TOOLS_VERSION.match(first)
    return None if match is None else _version(match.group(1))


def _version(literal: str) -> Version:
    parts = [int(part) for part in literal.split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


# -- conditions: formulas ---------------------------------------------------------------------


class Atom(NamedTuple):
    """A condition the text cannot evaluate by itself: `kind` is "host" (os, arch, canImport…),
    "feature" (hasFeature, `$Feature`, _compiler_version…), "compiler" or "swift"."""

    kind: str
    key: str  # canonical text, e.g. "os(Linux)" or ">=5.9"
    version: Version = ()
    at_least: bool = True  # `>=` (else `<`), for the version functions


class Not(NamedTuple):
    operand: Formula


class All(NamedTuple):
    operands: tuple[Formula, ...]


class Any_(NamedTuple):
    operands: tuple[Formula, ...]


Formula = bool | Atom | Not | All | Any_


def formula_size(formula: Formula) -> int:
    if isinstance(formula, (bool, Atom)):
        return 1
    if isinstance(formula, Not):
        return 1 + formula_size(formula.operand)
    return 1 + sum(formula_size(operand) for operand in formula.operands)


def _atoms(formula: Formula) -> Iterator[Atom]:
    if isinstance(formula, Atom):
        yield formula
    elif isinstance(formula, Not):
        yield from _atoms(formula.operand)
    elif isinstance(formula, (All, Any_)):
        for operand in formula.operands:
            yield from _atoms(operand)


# -- conditions: which compilers, and the exact verdict ---------------------------------------


class Compilers(NamedTuple):
    """The compilers that may read a manifest, and the language mode they read it in."""

    ranges: tuple[tuple[Version, Version], ...]
    mode: int | None  # 5 or 6; None when the tools version does not say

    @classmethod
    def for_tools(cls, tools: Version | None) -> Compilers:
        if tools is None:
            return cls(SUPPORTED_COMPILERS, None)
        ranges = tuple((max(low, tools), high) for low, high in SUPPORTED_COMPILERS
                       if max(low, tools) < high)
        mode = 6 if tools >= (6,) else 5 if tools >= (5,) else None
        return cls(ranges, mode)

    def effective(self, compiler: Version, atom: Atom) -> Version | None:
        """What `atom` compares against on `compiler` (None: unknown)."""
        if atom.kind == "compiler":
            return compiler
        if self.mode is None:
            return None
        if self.mode == 5 and compiler >= (6,):
            return _SWIFT5_ON_6
        return compiler

    def representatives(self, atoms: Sequence[Atom]) -> list[Version]:
        """One compiler per class that no version atom tells apart."""
        cuts = sorted({atom.version for atom in atoms if atom.kind in ("compiler", "swift")})
        found: list[Version] = []
        for low, high in self.ranges:
            found.append(low)
            found += [cut for cut in cuts if low < cut < high]
        return found


def _value(formula: Formula, compiler: Version | None, compilers: Compilers,
           free: dict[str, bool]) -> bool:
    if isinstance(formula, bool):
        return formula
    if isinstance(formula, Atom):
        return _atom_value(formula, compiler, compilers, free)
    if isinstance(formula, Not):
        return not _value(formula.operand, compiler, compilers, free)
    if isinstance(formula, All):
        return all(_value(f, compiler, compilers, free) for f in formula.operands)
    return any(_value(f, compiler, compilers, free) for f in formula.operands)


def _atom_value(atom: Atom, compiler: Version | None, compilers: Compilers,
                free: dict[str, bool]) -> bool:
    if atom.kind in ("host", "feature") or compiler is None:
        return free[_free_key(atom)]
    compared = compilers.effective(compiler, atom)
    if compared is None:
        return free[_free_key(atom)]
    return (compared >= atom.version) == atom.at_least


def _free_key(atom: Atom) -> str:
    return f"{atom.kind}:{atom.key}"


def _is_free(atom: Atom, compilers: Compilers) -> bool:
    """Free atoms are tried both ways: the host's and the features', and version checks when
    no supported compiler is known (or, for `swift`, the language mode is not)."""
    if atom.kind in ("host", "feature") or not compilers.ranges:
        return True
    return atom.kind == "swift" and compilers.mode is None


def exact_cost(formula: Formula, compilers: Compilers) -> int | None:
    """How many node evaluations `decide` spends trying everything (None: too many)."""
    size = formula_size(formula)
    if size > MAX_EXACT_SIZE:
        return None
    atoms = list(_atoms(formula))
    free = {_free_key(a) for a in atoms if _is_free(a, compilers)}
    if len(free) > MAX_FREE_ATOMS:
        return None
    versions = [a for a in atoms if not _is_free(a, compilers)]
    return size * (1 << len(free)) * max(1, len(compilers.representatives(versions)))


def decide(formula: Formula, compilers: Compilers) -> Verdict:
    """The formula's verdict over every supported compiler and every host: exact when small,
    else by three-valued logic (which may say UNDECIDABLE where trying everything would not)."""
    if exact_cost(formula, compilers) is None:
        return kleene(formula, compilers)
    atoms = list(_atoms(formula))
    free = sorted({_free_key(a) for a in atoms if _is_free(a, compilers)})
    hosts = [key for key in free if key.startswith("host:")]
    others = [key for key in free if not key.startswith("host:")]
    versions = [a for a in atoms if not _is_free(a, compilers)]
    compilers_tried: list[Version | None] = list(compilers.representatives(versions)) or [None]
    seen: set[bool] = set()
    host_dependent_only = True
    for host in itertools.product((False, True), repeat=len(hosts)):
        values = {_value(formula, compiler, compilers,
                         dict(zip(hosts + others, host + rest, strict=True)))
                  for compiler in compilers_tried
                  for rest in itertools.product((False, True), repeat=len(others))}
        host_dependent_only = host_dependent_only and len(values) == 1
        seen |= values
    if len(seen) == 1:
        return Verdict.TRUE if seen.pop() else Verdict.FALSE
    return Verdict.HOST if host_dependent_only else Verdict.UNDECIDABLE


def kleene(formula: Formula, compilers: Compilers) -> Verdict:
    """Three-valued logic: FALSE and anything is FALSE, TRUE or anything is TRUE; an unknown
    side makes the rest UNDECIDABLE if any part is, else HOST."""
    if isinstance(formula, bool):
        return Verdict.TRUE if formula else Verdict.FALSE
    if isinstance(formula, Atom):
        return _atom_kleene(formula, compilers)
    if isinstance(formula, Not):
        return negate(kleene(formula.operand, compilers))
    verdicts = [kleene(operand, compilers) for operand in formula.operands]
    return both(verdicts) if isinstance(formula, All) else either(verdicts)


def _atom_kleene(atom: Atom, compilers: Compilers) -> Verdict:
    if atom.kind == "host":
        return Verdict.HOST
    if _is_free(atom, compilers):
        return Verdict.UNDECIDABLE
    values = {_atom_value(atom, compiler, compilers, {})
              for compiler in compilers.representatives([atom])}
    if len(values) == 1:
        return Verdict.TRUE if values.pop() else Verdict.FALSE
    return Verdict.UNDECIDABLE


def negate(verdict: Verdict) -> Verdict:
    if verdict.decided:
        return Verdict.FALSE if verdict is Verdict.TRUE else Verdict.TRUE
    return verdict


def _unknown(verdicts: Sequence[Verdict]) -> Verdict:
    return Verdict.UNDECIDABLE if Verdict.UNDECIDABLE in verdicts else Verdict.HOST


def both(verdicts: Sequence[Verdict]) -> Verdict:
    if Verdict.FALSE in verdicts:
        return Verdict.FALSE
    if all(v is Verdict.TRUE for v in verdicts):
        return Verdict.TRUE
    return _unknown(verdicts)


def either(verdicts: Sequence[Verdict]) -> Verdict:
    if Verdict.TRUE in verdicts:
        return Verdict.TRUE
    if all(v is Verdict.FALSE for v in verdicts):
        return Verdict.FALSE
    return _unknown(verdicts)


# -- conditions: tokens -----------------------------------------------------------------------


class _Token(NamedTuple):
    kind: str  # "name", "dollar", "quoted" (backticks), "number", "string", "op", "punct", "end"
    text: str
    start: int
    end: int
    line_start: bool  # a line break (or a comment holding one) comes before it


_OPERATOR_CHARS = frozenset("/=-+!*%<>&|^~?.")
_BLANK = frozenset(" \t")  # white space a condition may hold (form feeds are refused there)
_NOT_LEFT_BOUND = frozenset(" \t\r\n([{,;:")
_NOT_RIGHT_BOUND = frozenset(" \t\r\n)]},;:")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)*")
_WORD_CHAR = re.compile(r"[\w.$]")
_QUOTED = re.compile(r"`[A-Za-z_][A-Za-z0-9_]*`")
#: Keywords are not flags: the compiler rejects some (`let`, `nil`, `_`) as conditions.
_KEYWORDS = frozenset((
    "Any", "Self", "Type", "_", "actor", "as", "associatedtype", "async", "await", "break",
    "case", "catch", "class", "continue", "default", "defer", "deinit", "do", "else", "enum",
    "extension", "fallthrough", "false", "fileprivate", "for", "func", "guard", "if",
    "import", "in", "indirect", "init", "inout", "internal", "is", "let", "nil",
    "nonisolated", "open", "operator", "precedencegroup", "private", "protocol", "public",
    "repeat", "rethrows", "return", "self", "some", "static", "struct", "subscript", "super",
    "switch", "throw", "throws", "true", "try", "typealias", "var", "where", "while"
))


def _shown(text: str) -> str:
    """Source text in a one-line message: quoted, escaped, cut at 40 characters."""
    return repr(text if len(text) <= 40 else text[:40] + "…")


class _ConditionError(Exception):
    def __init__(self, start: int, detail: str) -> None:
        super().__init__(detail)
        self.start = start
        self.detail = detail


class _Tokens:
    """The tokens of one directive's condition, read on demand from the lexed text."""

    def __init__(self, lexed: Lexed, start: int) -> None:
        self.lexed = lexed
        self.text = lexed.text
        self.position = start
        self.depth = 0  # open parentheses: line breaks inside them do not end the condition
        self._peeked: _Token | None = None

    def peek(self) -> _Token:
        if self._peeked is None:
            self._peeked = self._read()
        return self._peeked

    def next(self) -> _Token:
        token = self.peek()
        self._peeked = None
        if token.kind == "punct" and token.text == "(":
            self.depth += 1
        elif token.kind == "punct" and token.text == ")":
            self.depth -= 1
        return token

    def ends_here(self) -> bool:
        token = self.peek()
        return token.kind == "end" or (token.line_start and self.depth == 0)

    def _read(self) -> _Token:
        text = self.text
        line_start = False
        i = self.position
        while i < len(text):
            kind = self.lexed.kind_at(i)
            if kind is Kind.COMMENT:
                span = self.lexed.spans[self.lexed.span_index(i)]
                line_start = line_start or _NEWLINE.search(text, span.start, span.end) is not None
                i = span.end
                continue
            char = text[i]
            if kind is Kind.CODE and char in _BLANK:
                i += 1
            elif kind is Kind.CODE and char in "\r\n":
                line_start, i = True, i + 1
            elif line_start and self.depth == 0 and not text.startswith(("&&", "||"), i):
                # The next line: the condition is over, whatever comes there.
                return _Token("line", "", i, i, True)
            elif kind is not Kind.CODE:
                return self._literal(i, kind, line_start)
            else:
                return self._code_token(i, line_start)
        self.position = len(text)
        return _Token("end", "", len(text), len(text), True)

    def _literal(self, i: int, kind: Kind, line_start: bool) -> _Token:
        span = self.lexed.spans[self.lexed.span_index(i)]
        if kind is not Kind.STRING:
            raise _ConditionError(i, "a regex literal in a condition")
        self.position = span.end
        return _Token("string", self.text[span.start:span.end], span.start, span.end, line_start)

    def _code_token(self, i: int, line_start: bool) -> _Token:
        text = self.text
        char = text[i]
        for kind, pattern in (("name", _NAME), ("number", _NUMBER), ("quoted", _QUOTED)):
            match = pattern.match(text, i)
            if match is not None:
                return self._take(kind, i, match.end(), line_start)
        if char == "$":
            match = _NAME.match(text, i + 1)
            if match is None:
                raise _ConditionError(i, "'$' without a feature name in a condition")
            return self._take("dollar", i, match.end(), line_start)
        if char in "(),:":
            return self._take("punct", i, i + 1, line_start)
        if char in _OPERATOR_CHARS:
            end = i
            while end < len(text) and text[end] in _OPERATOR_CHARS and \
                    not text.startswith(("//", "/*"), end):
                end += 1
            return self._take("op", i, end, line_start)
        if char == "#":  # the next directive: the end of the condition if on its own line
            return _Token("hash", "#", i, i + 1, line_start)
        raise _ConditionError(i, f"unexpected {char!r} in a condition")

    def _take(self, kind: str, start: int, end: int, line_start: bool) -> _Token:
        if kind in ("name", "number", "dollar") and _WORD_CHAR.match(self.text, end) and \
                not (kind == "name" and self.text.startswith(".", end)):
            raise _ConditionError(end, f"unexpected {self.text[end]!r} after "
                                       f"{_shown(self.text[start:end])} in a condition")
        self.position = end
        return _Token(kind, self.text[start:end], start, end, line_start)

    def left_bound(self, token: _Token) -> bool:
        before = token.start - 1
        if before < 0 or self.text[before] in _NOT_LEFT_BOUND:
            return False
        return self.lexed.kind_at(before) is not Kind.COMMENT

    def right_bound(self, token: _Token) -> bool:
        after = token.end
        if after >= len(self.text) or self.text[after] in _NOT_RIGHT_BOUND:
            return False
        return self.lexed.kind_at(after) is not Kind.COMMENT


# -- conditions: the parser -------------------------------------------------------------------

_HOST_FUNCTIONS = frozenset({"os", "arch", "targetEnvironment", "_endian", "_pointerBitWidth",
                             "_runtime", "_ptrauth", "_hasAtomicBitWidth"})
_FEATURE_FUNCTIONS = frozenset({"hasFeature", "hasAttribute"})
_MAX_VERSION_PARTS = 8
_MAX_VERSION_DIGITS = 9


class _Parser:
    """`||` over `&&` over prefix `!` over literals, flags, calls and parentheses, as Swift
    parses a condition; anything else raises _ConditionError."""

    def __init__(self, tokens: _Tokens) -> None:
        self.tokens = tokens
        self.nesting = 0

    def condition(self) -> Formula:
        if self.tokens.ends_here():
            raise _ConditionError(self.tokens.peek().start, "a directive without a condition")
        formula = self._disjunction()
        token = self.tokens.peek()
        if not self.tokens.ends_here():
            raise _ConditionError(token.start, "extra tokens after the condition")
        if token.kind == "op" and token.text in ("&&", "||"):
            raise _ConditionError(token.start, "a condition goes on over a line break only "
                                               "inside parentheses")
        return formula

    def _binary(self, token: _Token, text: str) -> bool:
        if token.kind != "op" or token.text != text:
            return False
        left, right = self.tokens.left_bound(token), self.tokens.right_bound(token)
        if left != right:
            raise _ConditionError(token.start, f"'{text}' must have white space on both sides "
                                               "or on neither")
        return True

    def _disjunction(self) -> Formula:
        operands = [self._conjunction()]
        while not self.tokens.ends_here() and self._binary(self.tokens.peek(), "||"):
            self.tokens.next()
            operands.append(self._conjunction())
        return operands[0] if len(operands) == 1 else Any_(tuple(operands))

    def _conjunction(self) -> Formula:
        operands = [self._unary()]
        while not self.tokens.ends_here() and self._binary(self.tokens.peek(), "&&"):
            self.tokens.next()
            operands.append(self._unary())
        return operands[0] if len(operands) == 1 else All(tuple(operands))

    def _operand(self) -> _Token:
        if self.tokens.ends_here():
            raise _ConditionError(self.tokens.peek().start, "incomplete condition")
        return self.tokens.next()

    def _deeper(self, token: _Token) -> None:
        self.nesting += 1
        if self.nesting > MAX_CONDITION_DEPTH:
            raise _ConditionError(token.start, f"a condition nested more than "
                                               f"{MAX_CONDITION_DEPTH} deep")

    def _unary(self) -> Formula:
        token = self._operand()
        if token.kind == "op":
            if token.text != "!" or self.tokens.left_bound(token) or \
                    not self.tokens.right_bound(token):
                raise _ConditionError(token.start, f"{_shown(token.text)} where a condition "
                                                   "belongs (only a '!' joined to its operand)")
            self._deeper(token)
            operand = self._unary()
            self.nesting -= 1
            return Not(operand)
        return self._primary(token)

    def _primary(self, token: _Token) -> Formula:
        if token.kind == "punct" and token.text == "(":
            self._deeper(token)
            inner = self._disjunction()
            self._expect(")")
            self.nesting -= 1
            return inner
        if token.kind == "quoted":
            return False  # `true` in backticks is an identifier: an undefined flag
        if token.kind == "dollar":
            return Atom("feature", token.text)
        if token.kind != "name":
            raise _ConditionError(token.start, f"{_shown(token.text)} is not a condition")
        after = self.tokens.peek()
        if after.kind == "punct" and after.text == "(" and not after.line_start:
            self.tokens.next()
            return self._call(token)
        if token.text in ("true", "false"):
            return token.text == "true"
        if token.text in _KEYWORDS:
            raise _ConditionError(token.start, f"keyword '{token.text}' as a condition")
        return False  # a flag: manifests are compiled with no -D

    def _expect(self, text: str) -> _Token:
        token = self.tokens.next()
        if token.kind != "punct" or token.text != text:
            raise _ConditionError(token.start, f"expected '{text}' in the condition")
        return token

    def _call(self, name: _Token) -> Formula:
        function = name.text
        if function in _HOST_FUNCTIONS or function in _FEATURE_FUNCTIONS:
            argument = self._name_argument()
            self._expect(")")
            kind = "host" if function in _HOST_FUNCTIONS else "feature"
            return Atom(kind, f"{function}({argument})")
        if function == "canImport":
            return Atom("host", f"canImport({self._import_arguments()})")
        if function in ("swift", "compiler"):
            return self._version_check(function)
        if function == "_compiler_version":
            literal = self._string_argument()
            self._expect(")")
            return Atom("feature", f"_compiler_version({literal})")
        raise _ConditionError(name.start, f"unexpected platform condition '{function}(…)'")

    def _name_argument(self) -> str:
        token = self.tokens.next()
        if token.kind != "name" or token.text in _KEYWORDS:
            raise _ConditionError(token.start, "expected one identifier as the argument")
        return token.text

    def _import_arguments(self) -> str:
        parts = [self._name_argument()]
        while self.tokens.peek().kind == "op" and self.tokens.peek().text == ".":
            dot = self.tokens.next()
            if self.tokens.left_bound(dot) is False or self.tokens.right_bound(dot) is False:
                raise _ConditionError(dot.start, "a module path holds no white space")
            parts.append(self._name_argument())
        module = ".".join(parts)
        if self.tokens.peek().kind == "punct" and self.tokens.peek().text == ",":
            self.tokens.next()
            label = self.tokens.next()
            if label.text not in ("_version", "_underlyingVersion"):
                raise _ConditionError(label.start, "canImport's second argument is labeled "
                                                   "_version or _underlyingVersion")
            self._expect(":")
            value = self.tokens.next()
            if value.kind == "number":
                self._check_version(value)
            elif value.kind != "string" or self.tokens.lexed.literal_at(value.start) is None:
                raise _ConditionError(value.start, "expected a version")
            module += f", {label.text}: {value.text}"
        self._expect(")")
        return module

    def _string_argument(self) -> str:
        token = self.tokens.next()
        if token.kind != "string" or self.tokens.lexed.literal_at(token.start) is None:
            raise _ConditionError(token.start, "expected a string literal")
        return token.text

    def _version_check(self, function: str) -> Formula:
        operator = self.tokens.next()
        if operator.kind != "op" or operator.text not in (">=", "<"):
            raise _ConditionError(operator.start, f"{function}(…) takes '>=' or '<' and a "
                                                  "version")
        if self.tokens.left_bound(operator) or not self.tokens.right_bound(operator):
            raise _ConditionError(operator.start, f"'{operator.text}' must be joined to the "
                                                  "version")
        version = self.tokens.next()
        if version.kind != "number":
            raise _ConditionError(version.start, "expected a version such as 5.9")
        self._check_version(version)
        self._expect(")")
        return Atom(function, f"{operator.text}{version.text}", _version(version.text),
                    operator.text == ">=")

    @staticmethod
    def _check_version(token: _Token) -> None:
        parts = token.text.split(".")
        if len(parts) > _MAX_VERSION_PARTS or any(len(p) > _MAX_VERSION_DIGITS for p in parts):
            raise _ConditionError(token.start, "a version this reader does not compare")


def parse_condition(lexed: Lexed, start: int) -> tuple[Formula, int] | Problem:
    """The formula of the condition starting at `start` (just after `#if`/`#elseif`), and
    where it ends; or the Problem that stops it."""
    tokens = _Tokens(lexed, start)
    try:
        formula = _Parser(tokens).condition()
    except _ConditionError as error:
        return Problem("directive", error.start, error.detail)
    return formula, tokens.peek().start


def condition_verdict(condition: str, tools: Version | None = None) -> Verdict | Problem:
    """The verdict of one condition's text (as after `#if `), for a manifest of `tools`."""
    lexed = lex(condition)
    found = parse_condition(lexed, 0)
    if isinstance(found, Problem):
        return found
    string_problem = next((p for p in lexed.problems if p.what != "directive"), None)
    if string_problem is not None:
        return string_problem
    return decide(found[0], Compilers.for_tools(tools))


# -- #if structure ----------------------------------------------------------------------------


class Branch(NamedTuple):
    """One branch of an `#if` chain: `#if`, an `#elseif`, `#else`, or the implicit empty else
    of a chain that has none (`condition` None, `directive` at its `#endif`)."""

    directive: int  # the `#` of the directive that opens it
    body_start: int  # where its code starts (after the directive's line)
    body_end: int  # the `#` of the next directive of the chain (or the end of the text)
    condition: str | None  # the condition's text, for messages
    verdict: Verdict  # is this branch compiled in (enclosing branches included)?
    implicit: bool = False


class Chain(NamedTuple):
    """`#if … #endif`, with its branches in order and where it sits."""

    start: int
    end: int  # after `#endif` (the end of the text when never closed)
    branches: tuple[Branch, ...]
    parent: tuple[int, int] | None  # (chain index, branch index) of the enclosing branch


class _Open:
    """A chain being read: its branches so far and the one being read."""

    __slots__ = ("body", "branches", "directive", "formula", "guard", "guard_kleene",
                 "guard_size", "has_else", "index", "parent", "start", "text", "verdict")

    def __init__(self, index: int, start: int, parent: tuple[int, int] | None, guard: Formula,
                 guard_size: int, guard_kleene: Verdict) -> None:
        self.index = index  # its place among the chains, in the order they open
        self.start = start
        self.parent = parent
        self.guard = guard  # every enclosing branch taken and no earlier branch of this chain
        self.guard_size = guard_size
        self.guard_kleene = guard_kleene
        self.branches: list[Branch] = []
        self.has_else = False
        # The branch being read: its directive, body, condition text, formula and verdict.
        self.directive = 0
        self.body = 0
        self.text: str | None = None
        self.formula: Formula = True
        self.verdict = Verdict.TRUE


_UNPARSED = Atom("feature", "a condition this reader cannot parse")


class Inactive:
    """The `#if` structure of a lexed text: its chains, the ranges it compiles out, and the
    problems of its directives."""

    def __init__(self, lexed: Lexed) -> None:
        self._lexed = lexed
        self._compilers = Compilers.for_tools(lexed.tools_version)
        self._budget = EXACT_BUDGET
        self.problems: list[Problem] = []
        self._chains: list[Chain | None] = []
        stack: list[_Open] = []
        for directive in lexed._directives:
            self._directive(directive, stack)
        while stack:
            opened = stack.pop()
            self.problems.append(Problem("directive", opened.start, "#if is never closed"))
            self._close(opened, len(lexed.text), len(lexed.text))
        self.chains: tuple[Chain, ...] = tuple(c for c in self._chains if c is not None)
        self._dead_starts, self._dead_ends = self._dead_ranges()

    # -- queries ------------------------------------------------------------------------------

    def dead_at(self, offset: int) -> bool:
        """Is `offset` in a branch that is compiled out whatever the host and compiler?"""
        index = bisect.bisect_right(self._dead_starts, offset) - 1
        return index >= 0 and offset < self._dead_ends[index]

    def branches_at(self, offset: int) -> list[tuple[int, int]]:
        """(chain index, branch index) of every branch holding `offset`, outermost first."""
        return [(c, b) for c, chain in enumerate(self.chains)
                for b, branch in enumerate(chain.branches)
                if branch.body_start <= offset < branch.body_end]

    # -- building -----------------------------------------------------------------------------

    def _directive(self, directive: _Directive, stack: list[_Open]) -> None:
        word = directive.word
        if directive.nested:
            self.problems.append(Problem("directive", directive.start,
                                         f"#{word} inside a string interpolation"))
            return
        after = directive.start + 1 + len(word)
        condition: Formula | None = True
        if word in ("if", "elseif"):
            condition, body = self._condition(after)
        else:
            body = self._line_end(after)
        if word == "if":
            self._check_placement(directive.start)
            self._open(directive.start, body, condition, stack)
        elif not stack:
            self.problems.append(Problem("directive", directive.start,
                                         f"#{word} without an #if before it"))
        elif word == "endif":
            self._close(stack.pop(), directive.start, body)
        else:
            self._next_branch(stack[-1], directive.start, body, condition, word)

    def _condition(self, after: int) -> tuple[Formula | None, int]:
        found = parse_condition(self._lexed, after)
        if isinstance(found, Problem):
            self.problems.append(found)
            return None, self._line_end(after, report=False)
        formula, end = found
        return formula, self._line_end(end, report=False)

    def _line_end(self, position: int, report: bool = True) -> int:
        """Where the code after a directive starts: after its line's comments and line break.
        Tokens before the line break are a problem."""
        text = self._lexed.text
        tokens = _Tokens(self._lexed, position)
        try:
            token = tokens.peek()
        except _ConditionError as error:  # something unreadable on the same line
            token = _Token("op", "", error.start, error.start, False)
        if report and not token.line_start:
            self.problems.append(Problem("directive", token.start,
                                         "extra tokens after the directive on its line"))
        newline = _NEWLINE.search(text, position, token.start) if token.line_start else None
        if newline is None:
            return min(token.start, len(text))
        return newline.end() + (1 if text.startswith("\r\n", newline.start()) else 0)

    def _check_placement(self, start: int) -> None:
        """`#if` starts its line (after spaces, tabs or NUL only: a form feed, a vertical tab
        or a comment there is code to Swift) or follows a `;` or `{`."""
        text = self._lexed.text
        i = start - 1
        while i >= 0 and text[i] in " \t\x00":
            i -= 1
        if i < 0 or text[i] in "\r\n":
            return
        while i >= 0 and text[i] in " \t\x00\f\v":
            i -= 1
        if i >= 0 and text[i] in ";{" and self._lexed.kind_at(i) is Kind.CODE:
            return
        self.problems.append(Problem("directive", start, "#if must start its line (only spaces "
                                     "or tabs before it) or follow a ';'"))

    def _open(self, start: int, body: int, condition: Formula | None,
              stack: list[_Open]) -> None:
        if stack:
            outer = stack[-1]
            parent: tuple[int, int] | None = (outer.index, len(outer.branches))
            opened = _Open(len(self._chains), start, parent, All((outer.guard, outer.formula)),
                           outer.guard_size + formula_size(outer.formula), outer.verdict)
        else:
            opened = _Open(len(self._chains), start, None, True, 1, Verdict.TRUE)
        self._chains.append(None)  # filled when it closes
        stack.append(opened)
        self._begin(opened, start, body, condition)

    def _begin(self, opened: _Open, start: int, body: int, condition: Formula | None,
               else_: bool = False) -> None:
        """Open a branch: it is taken if the guard holds and its own condition does."""
        formula = _UNPARSED if condition is None else condition
        opened.directive, opened.body, opened.formula = start, body, formula
        opened.text = None if else_ else self._lexed.text[start:body].strip()
        opened.verdict = self._verdict(
            All((opened.guard, formula)), opened.guard_size + formula_size(formula),
            both([opened.guard_kleene, kleene(formula, self._compilers)]))

    def _verdict(self, formula: Formula, size: int, fallback: Verdict) -> Verdict:
        # Past the size or the text's budget, the incremental three-valued verdict keeps this
        # linear.
        if fallback.decided:
            return fallback  # three-valued logic is sound: what it decides, everything agrees
        cost = None if size > MAX_EXACT_SIZE else exact_cost(formula, self._compilers)
        if cost is None or cost > self._budget:
            return fallback
        self._budget -= cost
        return decide(formula, self._compilers)

    def _next_branch(self, opened: _Open, start: int, body: int, condition: Formula | None,
                     word: str) -> None:
        if opened.has_else:
            self.problems.append(Problem("directive", start, f"#{word} after #else"))
        self._finish_branch(opened, start)
        opened.has_else = opened.has_else or word == "else"
        self._begin(opened, start, body, condition, else_=word == "else")

    def _finish_branch(self, opened: _Open, end: int) -> None:
        """Close the branch being read at `end`; later ones are guarded by its negation."""
        opened.branches.append(Branch(opened.directive, opened.body, max(opened.body, end),
                                      opened.text, opened.verdict))
        opened.guard = All((opened.guard, Not(opened.formula)))
        opened.guard_size += formula_size(opened.formula) + 1
        opened.guard_kleene = both([opened.guard_kleene,
                                    negate(kleene(opened.formula, self._compilers))])

    def _close(self, opened: _Open, end: int, after: int) -> None:
        self._finish_branch(opened, end)
        if not opened.has_else:
            verdict = self._verdict(opened.guard, opened.guard_size, opened.guard_kleene)
            opened.branches.append(Branch(end, end, end, None, verdict, implicit=True))
        self._chains[opened.index] = Chain(opened.start, after, tuple(opened.branches),
                                           opened.parent)

    def _dead_ranges(self) -> tuple[list[int], list[int]]:
        ranges = sorted((b.directive, b.body_end) for chain in self.chains
                        for b in chain.branches if b.verdict is Verdict.FALSE and not b.implicit)
        starts: list[int] = []
        ends: list[int] = []
        for start, end in ranges:
            if ends and start <= ends[-1]:
                ends[-1] = max(ends[-1], end)
            else:
                starts.append(start)
                ends.append(end)
        return starts, ends


@lru_cache(maxsize=4)
def lex(text: str) -> Lexed:
    """The text's spans and problems. Cached: a check lexes each rendered manifest twice (the
    live-code rule, then the syntax check), and a Lexed is never changed once made."""
    return Lexed(text)
