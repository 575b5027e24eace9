"""Is what the verdict rests on live Swift code? (pure: rendered manifest in, findings out)

A manifest passes only if SwiftPM will really see its package and its binary targets. An
unterminated `/*` or string swallows the rest of the file; a `let package = Package(` or a
`.binaryTarget(` inside a comment or a string literal declares nothing; a checksum that only
appears in a comment is never downloaded against; two live `let package` declarations are a
redeclaration Swift rejects. Each of these is a `not-live-code` error.

A checksum that sits only in declarations no live code reads by name
(`let retired = ["delta": …]`, `retired` used nowhere else) is `unread-checksum`: SwiftPM
evaluates such a declaration and drops its value, and even where evaluating it could do more
(a closure, a call), the text does not show the checksum reaching the package. SwiftPM's own
answer replaces this one where it runs. A text with no live `let package` reads nothing at
all: the rule leaves it to the others.

An `#if` the text cannot decide (it depends on the host, or differs between supported
compilers) whose branches ask for different names is an `undecidable-condition` error: which
names SwiftPM reads is not something the static reading can tell, and it never takes the union.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Mapping

from swiftpm_guard.core.manifest_shape import Declaration, declarations
from swiftpm_guard.core.model import Finding, Rendered, Severity
from swiftpm_guard.core.swift_lexer import Branch, Chain, Inactive, Kind, Lexed, Verdict, lex

CODE = "not-live-code"
UNDECIDABLE = "undecidable-condition"

#: `let package = Package(`, as SwiftPM's manifest loader requires it (backticks, a module
#: prefix and `.init` are the spellings Swift accepts for the same call).
_PACKAGE_DECLARATION = re.compile(
    r"\b(?:let|var)\s+`?package`?\s*(?::\s*(?:PackageDescription\s*\.\s*)?Package\s*)?="
    r"\s*(?:PackageDescription\s*\.\s*)?Package\s*(?:\.\s*init\s*)?\("
)
#: Any mention of the package call or a binary target, live or not.
_PACKAGE_MENTION = re.compile(r"\bPackage\s*(?:\.\s*init\s*)?\(")
_BINARY_TARGET = re.compile(r"\bbinaryTarget\s*\(")


def live_code_findings(rendered: Rendered, checksums: Mapping[str, str]) -> list[Finding]:
    """`not-live-code` findings for one rendered manifest.

    `checksums` maps each name the template asked for to the text that was substituted for it
    (the checksum, or the placeholder itself when none was known): each must sit in a string
    literal of live code at least once.
    """
    text = rendered.text
    lexed = lex(text)
    inactive = lexed.inactive
    lines = _Lines(text)
    findings = [_finding(rendered, lines.of(p.start), p.what,
                         f"{p.detail} (line {lines.of(p.start)}): the rest of the manifest is "
                         f"inside a {p.what}, so SwiftPM would not see it as code")
                for p in lexed.problems if p.swallows]
    view = _View(lexed)
    packages = _live_packages(view, inactive)
    findings += _package_findings(rendered, lexed, inactive, lines, packages)
    findings += _binary_target_findings(rendered, lexed, inactive, lines)
    findings += _checksum_findings(rendered, lexed, inactive, checksums)
    if packages:  # without a live package nothing is read: the other rules say what is wrong
        findings += _unread_findings(rendered, lexed, view, checksums, lines)
    findings += _condition_findings(rendered, lexed, checksums, lines)
    return findings


def _where(lexed: Lexed, inactive: Inactive, offset: int) -> str:
    kind = lexed.kind_at(offset)
    if kind is Kind.CODE and inactive.dead_at(offset):
        return "block that #if compiles out"
    return kind.value


def _live_packages(view: _View, inactive: Inactive) -> list[int]:
    """The offsets of every `let package = Package(` in live code."""
    offsets = (view.to_text(m.start()) for m in _PACKAGE_DECLARATION.finditer(view.text))
    return [offset for offset in offsets if not inactive.dead_at(offset)]


def _package_findings(rendered: Rendered, lexed: Lexed, inactive: Inactive,
                      lines: _Lines, live: list[int]) -> list[Finding]:
    if live:
        return _redeclaration(rendered, inactive, live, lines)
    mention = _PACKAGE_MENTION.search(rendered.text)
    if mention is None:
        return []  # no package at all: SwiftPM (or the syntax check) says what is wrong
    where = _where(lexed, inactive, mention.start())
    line = lines.of(mention.start())
    return [_finding(rendered, line, "let package = Package(",
                     f"'let package = Package(' is not live code (the first 'Package(' is in a "
                     f"{where}, line {line}); SwiftPM would find no package")]


def _redeclaration(rendered: Rendered, inactive: Inactive, live: list[int],
                   lines: _Lines) -> list[Finding]:
    """Two live declarations are one too many unless different branches of one `#if` hold
    them (then each host or compiler sees one)."""
    for index, first in enumerate(live):
        for second in live[index + 1:]:
            if not _exclusive(inactive, first, second):
                return [_finding(rendered, lines.of(second), "let package = Package(",
                                 f"'let package = Package(' is declared twice in live code "
                                 f"(lines {lines.of(first)} and {lines.of(second)}); Swift "
                                 "rejects the redeclaration")]
    return []


def _exclusive(inactive: Inactive, first: int, second: int) -> bool:
    branches = dict(inactive.branches_at(first))
    return any(chain in branches and branches[chain] != branch
               for chain, branch in inactive.branches_at(second))


def _binary_target_findings(rendered: Rendered, lexed: Lexed, inactive: Inactive,
                            lines: _Lines) -> list[Finding]:
    findings = []
    for match in _BINARY_TARGET.finditer(rendered.text):
        start = match.start()
        if lexed.kind_at(start) is Kind.CODE and not inactive.dead_at(start):
            continue
        line = lines.of(start)
        findings.append(_finding(rendered, line, "binaryTarget",
                                 f".binaryTarget( on line {line} is inside a "
                                 f"{_where(lexed, inactive, start)}, not live code; SwiftPM "
                                 "would not declare it"))
        if len(findings) >= 5:
            break
    return findings


def _checksum_findings(rendered: Rendered, lexed: Lexed, inactive: Inactive,
                       checksums: Mapping[str, str]) -> list[Finding]:
    findings = []
    for name, value in sorted(checksums.items()):
        if not value or _in_live_string(rendered.text, lexed, inactive, value):
            continue
        findings.append(_finding(
            rendered, None, name,
            f"the checksum of '{name}' ({value[:16]}…) appears in no string literal of live "
            "code; SwiftPM would never check it"))
    return findings


def _in_live_string(text: str, lexed: Lexed, inactive: Inactive, value: str) -> bool:
    """Is `value` somewhere the whole value of a string literal in live code?"""
    return next(_live_strings(text, lexed, inactive, value), None) is not None


def _live_strings(text: str, lexed: Lexed, inactive: Inactive, value: str) -> Iterator[int]:
    """Every offset where `value` is the whole value of a string literal in live code."""
    start = text.find(value)
    while start >= 0:
        if lexed.literal_at(start) == value and not inactive.dead_at(start):
            yield start
        start = text.find(value, start + 1)


#: Words of the code view. ASCII only: a name next to any other character still counts as a
#: read (more reads mean fewer findings, never a wrong one).
_WORD = re.compile(r"[A-Za-z0-9_]+")
#: `let name = "…"` alone on its line (the string is one space in the code view), which
#: `declarations` does not take: it looks for a bracket group.
_STRING_DECLARATION = re.compile(
    r"(?m)^[ \t]*(?:let|var)[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?::[ \t]*[A-Za-z_][A-Za-z0-9_.]*"
    r"[?!]?[ \t]*)?=[ \t]+;?[ \t]*$")
UNREAD = "unread-checksum"


def _unread_findings(rendered: Rendered, lexed: Lexed, view: _View,
                     checksums: Mapping[str, str], lines: _Lines) -> list[Finding]:
    """A checksum whose every live occurrence sits in a declaration nothing reads (in a
    manifest with a live `let package`)."""
    inactive = lexed.inactive
    if not any(checksums.values()):
        return []
    unread = _unread_declarations(view, inactive)
    if not unread:
        return []
    starts = [d.start for d in unread]
    findings = []
    for name, value in sorted(checksums.items()):
        if not value:
            continue
        first: tuple[int, Declaration] | None = None
        for offset in _live_strings(rendered.text, lexed, inactive, value):
            index = bisect.bisect_right(starts, view.of_text(offset)) - 1
            if index < 0 or view.of_text(offset) >= unread[index].end:
                break  # a live occurrence outside them: this one reaches the package
            first = first or (offset, unread[index])
        else:
            if first is not None:
                findings.append(_unread(rendered, name, *first, view, lines))
    return findings


def _unread(rendered: Rendered, name: str, offset: int, declaration: Declaration, view: _View,
            lines: _Lines) -> Finding:
    line = lines.of(view.to_text(declaration.start))
    return _finding(rendered, lines.of(offset), name,
                    f"'{name}' sits only in '{declaration.name}' (line {line}), which nothing "
                    "in the manifest reads by name: the text does not show it reaching the "
                    "package, and SwiftPM drops a value nothing reads; use "
                    f"'{declaration.name}' in the package or remove '{name}' from it, or check "
                    "with the real SwiftPM", UNREAD)


def _unread_declarations(view: _View, inactive: Inactive) -> list[Declaration]:
    """The declarations (code-view spans, in order) that no live code reads by name, directly
    or through other read declarations."""
    text = view.text
    found = [d for d in _top_level(text) if not inactive.dead_at(view.to_text(d.start))]
    if not found:
        return []
    by_name: dict[str, list[int]] = {}
    for index, declaration in enumerate(found):
        by_name.setdefault(declaration.name, []).append(index)
    starts = [d.start for d in found]
    roots: set[str] = set()
    reads: list[set[str]] = [set() for _ in found]  # the names each declaration reads
    for word in _WORD.finditer(text):
        name = word.group()
        if name not in by_name or inactive.dead_at(view.to_text(word.start())):
            continue
        index = bisect.bisect_right(starts, word.start()) - 1
        if index >= 0 and word.start() < found[index].end:
            reads[index].add(name)
        else:
            roots.add(name)
    read = [False] * len(found)
    seen: set[str] = set()
    pending = list(roots)
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        for index in by_name[name]:
            read[index] = True
            pending.extend(reads[index] - seen)
    return [d for d, was_read in zip(found, read, strict=True) if not was_read]


def _top_level(text: str) -> list[Declaration]:
    """`declarations` (a bracket group) and `let x = "…"` lines outside them, in text order."""
    # `let package` is what SwiftPM reads: what it names is read, it is no candidate.
    found = [d for d in declarations(text) if d.name != "package"]
    starts = [d.start for d in found]
    for match in _STRING_DECLARATION.finditer(text):
        index = bisect.bisect_right(starts, match.start()) - 1
        if index < 0 or match.start() >= found[index].end:
            found.append(Declaration(match.group(1), match.start(), match.end()))
    return sorted(found, key=lambda d: d.start)


class _View:
    """The lexed text's code view (comments, strings and regexes one space each) and the map
    between its offsets and the text's."""

    def __init__(self, lexed: Lexed) -> None:
        self._lexed = lexed
        self.text = lexed.code_view()
        self._pairs = lexed.code_offsets()
        self._view_starts = [p[0] for p in self._pairs]

    def to_text(self, offset: int) -> int:
        index = bisect.bisect_right(self._view_starts, offset) - 1
        if index < 0:
            return offset
        view, text = self._pairs[index]
        if self._lexed.spans[index].kind is Kind.CODE:
            return text + offset - view
        return text

    def of_text(self, offset: int) -> int:
        index = self._lexed.span_index(offset)
        if index < 0:
            return offset
        view, text = self._pairs[index]
        if self._lexed.spans[index].kind is Kind.CODE:
            return view + offset - text
        return view


def _condition_findings(rendered: Rendered, lexed: Lexed, checksums: Mapping[str, str],
                        lines: _Lines) -> list[Finding]:
    """An undecided `#if` whose branches that may be compiled in ask for different names."""
    inactive = lexed.inactive
    if not any(not b.verdict.decided for c in inactive.chains for b in c.branches):
        return []
    asked = sorted((offset, name) for name, value in checksums.items() if value
                   for offset in _live_strings(rendered.text, lexed, inactive, value))
    offsets = [offset for offset, _name in asked]
    findings = []
    for chain in inactive.chains:
        open_branches = [b for b in chain.branches if b.verdict is not Verdict.FALSE]
        names = [_names_in(b, asked, offsets) for b in open_branches]
        if len(set(names)) > 1:
            findings.append(_undecided(rendered, chain, open_branches, names, lines))
        if len(findings) >= 5:
            break
    return findings


def _names_in(branch: Branch, asked: list[tuple[int, str]], offsets: list[int]) -> frozenset[str]:
    low = bisect.bisect_left(offsets, branch.body_start)
    high = bisect.bisect_left(offsets, branch.body_end)
    return frozenset(name for _offset, name in asked[low:high])


def _undecided(rendered: Rendered, chain: Chain, branches: list[Branch],
               names: list[frozenset[str]], lines: _Lines) -> Finding:
    first = next(b for b in chain.branches if b.condition is not None)
    if any(b.verdict is Verdict.UNDECIDABLE for b in branches):
        why = ("cannot be decided from the text (it differs between the supported compilers, "
               "Swift 5.9 to 6.x, or this reader cannot evaluate it)")
    else:
        why = "depends on the machine that evaluates the manifest"
    asks = "; ".join(f"{_branch_label(b)} (line {lines.of(b.directive)}) asks for "
                     f"{', '.join(sorted(n)) or 'nothing'}" for b, n in zip(branches, names,
                                                                            strict=True))
    line = lines.of(chain.start)
    return _finding(rendered, line, first.condition or "#if",
                       f"'{first.condition}' (line {line}) {why}, and its branches ask for "
                       f"different names: {asks}. Which of them SwiftPM reads is not for the "
                       "text to say, and the static check never takes the union: check with "
                       "the real SwiftPM (--swift) on each host, or ask for the same names in "
                       "every branch", code=UNDECIDABLE)


def _branch_label(branch: Branch) -> str:
    if branch.implicit:
        return "no #else"
    return branch.condition or "#else"


def _finding(rendered: Rendered, line: int | None, subject: str, message: str,
             code: str = CODE) -> Finding:
    # Whole-token substitution keeps a placeholder template's lines; a Jinja render does not.
    same_lines = rendered.template.flavour == "placeholder"
    note = "" if same_lines or line is None else " (line of the rendered manifest)"
    return Finding(code=code, severity=Severity.ERROR, subject=subject,
                   file=rendered.template.path, line=line if same_lines else None,
                   message=message + note)


class _Lines:
    """1-based line numbers of offsets, lines split at "\\n" only (as GitHub counts them)."""

    def __init__(self, text: str) -> None:
        self._starts = [0]
        index = text.find("\n")
        while index >= 0:
            self._starts.append(index + 1)
            index = text.find("\n", index + 1)

    def of(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset)
