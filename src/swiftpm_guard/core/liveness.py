"""Is what the verdict rests on live Swift code? (pure: rendered manifest in, findings out)

A manifest passes only if SwiftPM will really see its package and its binary targets. An
unterminated `/*` or string swallows the rest of the file; a `let package = Package(` or a
`.binaryTarget(` inside a comment or a string literal declares nothing; a checksum that only
appears in a comment is never downloaded against. Each of these is a `not-live-code` error.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping

from swiftpm_guard.core.model import Finding, Rendered, Severity
from swiftpm_guard.core.swift_lexer import Inactive, Kind, Lexed, lex

CODE = "not-live-code"

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
    inactive = Inactive(lexed)
    lines = _Lines(text)
    findings = [_finding(rendered, lines.of(p.start), p.what,
                         f"{p.detail} (line {lines.of(p.start)}): the rest of the manifest is "
                         f"inside a {p.what}, so SwiftPM would not see it as code")
                for p in lexed.problems]
    findings += _package_findings(rendered, lexed, inactive, lines)
    findings += _binary_target_findings(rendered, lexed, inactive, lines)
    findings += _checksum_findings(rendered, lexed, inactive, checksums)
    return findings


def _where(lexed: Lexed, inactive: Inactive, offset: int) -> str:
    kind = lexed.kind_at(offset)
    if kind is Kind.CODE and inactive.dead_at(offset):
        return "block that #if compiles out"
    return kind.value


def _package_findings(rendered: Rendered, lexed: Lexed, inactive: Inactive,
                      lines: _Lines) -> list[Finding]:
    view = lexed.code_view()
    pairs = lexed.code_offsets()
    view_starts = [p[0] for p in pairs]
    for match in _PACKAGE_DECLARATION.finditer(view):
        index = bisect.bisect_right(view_starts, match.start()) - 1
        offset = pairs[index][1] + match.start() - pairs[index][0]
        if not inactive.dead_at(offset):
            return []
    mention = _PACKAGE_MENTION.search(rendered.text)
    if mention is None:
        return []  # no package at all: SwiftPM (or the syntax check) says what is wrong
    where = _where(lexed, inactive, mention.start())
    line = lines.of(mention.start())
    return [_finding(rendered, line, "let package = Package(",
                     f"'let package = Package(' is not live code (the first 'Package(' is in a "
                     f"{where}, line {line}); SwiftPM would find no package")]


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
    start = text.find(value)
    while start >= 0:
        if lexed.literal_at(start) == value and not inactive.dead_at(start):
            return True
        start = text.find(value, start + 1)
    return False


def _finding(rendered: Rendered, line: int | None, subject: str, message: str) -> Finding:
    # Whole-token substitution keeps a placeholder template's lines; a Jinja render does not.
    same_lines = rendered.template.flavour == "placeholder"
    note = "" if same_lines or line is None else " (line of the rendered manifest)"
    return Finding(code=CODE, severity=Severity.ERROR, subject=subject,
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
