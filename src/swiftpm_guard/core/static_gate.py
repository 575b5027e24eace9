"""Without SwiftPM, the text decides only what text alone decides exactly (pure).

The rule, per manifest some SwiftPM reads (each rendered template and each kept as is):

1. The names asked are the `__SHA256_<name>__` tokens anywhere in the text, comments included
   (core.render.scan, no lexer); core.checks compares them with the built names per exact name
   and per manifest. Always applied, with or without SwiftPM.
2. `tools_version_findings`: the first line is exactly `// swift-tools-version:X.Y[.Z]` (one
   space after `//`, at most one after the colon from 5.4 on, nothing after the version; `\\n`
   or `\\r\\n` ends it), with 5.3 <= X.Y.Z <= 6.0.0: `binaryTarget` came with tools 5.3, and 6.0
   is the newest every Swift 6.0.x SwiftPM (the image's 6.0.3) reads. SwiftPM accepts more
   spellings (leading blank lines, `;` and text after it, other spacing); this narrower form is
   one every supported SwiftPM reads the same way. Anything else (no line, a BOM, 5.2, 99.0,
   trailing text) is a `tools-version` error naming line 1. Always applied.
3. `needs_swiftpm`: exactly one `Package(` spelling in the text (a plain count of `Package`
   followed by `(`, `.init` between allowed) and no `.init(` anywhere else, and that one is
   `let package = Package(`. SwiftPM dumps the last `Package` initialised, so a second one (or
   an `.init(` that may be one) is refused: only SwiftPM can say which package it evaluates.
4. Everything else the verdict rests on (whether each placeholder is live code, `#if`s and
   computed collections around binary targets, regex literals, which names are products) needs
   evaluating Swift: one `needs-swiftpm` finding per manifest, an error unless the user accepts
   a static reading (`--accept-static`), which makes it a warning and the manifest unproven.
   A manifest rule 3 refuses stays an error whatever `--accept-static` says.

Rules 3 and 4 apply only when SwiftPM did not evaluate the manifests (jobs.swiftpm_proof).
"""

from __future__ import annotations

import re

from swiftpm_guard.core.model import Finding, Rendered, Severity
from swiftpm_guard.core.option_names import option
from swiftpm_guard.core.render import manifest_line

CODE = "needs-swiftpm"
TOOLS_VERSION = "tools-version"

#: The oldest tools version with `binaryTarget`, and the newest every supported SwiftPM reads.
OLDEST = (5, 3, 0)
NEWEST = (6, 0, 0)

_NUMBER = r"(?:0|[1-9][0-9]{0,3})"
_TOOLS_LINE = re.compile(
    rf"// swift-tools-version:(?P<space> ?)(?P<version>{_NUMBER}\.{_NUMBER}(?:\.{_NUMBER})?)"
)
_PACKAGE_CALL = re.compile(r"\bPackage\s*(?:\.\s*init\s*)?\(")
_INIT_CALL = re.compile(r"\.\s*init\s*\(")
_LET_PACKAGE = re.compile(r"\blet\s+package\s*=\s*Package\s*\(")


def tools_version_findings(rendered: Rendered) -> list[Finding]:
    """A `tools-version` error when the first line is not one every supported SwiftPM reads."""
    text = rendered.text
    end = text.find("\n")
    first = (text if end < 0 else text[:end]).removesuffix("\r")
    why = _tools_version_problem(first)
    if why is None:
        return []
    line, note = manifest_line(rendered, 1)
    shown = first[:80].encode("unicode_escape").decode("ascii")
    return [Finding(
        code=TOOLS_VERSION, severity=Severity.ERROR, subject="swift-tools-version",
        file=rendered.template.path, line=line,
        message=(f"line 1 {shown!r}{note}: {why}; write `// swift-tools-version:X.Y` with "
                 f"{_dotted(OLDEST)} <= X.Y <= {_dotted(NEWEST)} as the first line"),
    )]


def _tools_version_problem(first: str) -> str | None:
    match = _TOOLS_LINE.fullmatch(first)
    if match is None:
        if first.startswith("\ufeff"):
            return "it starts with a byte order mark, which SwiftPM does not skip"
        if _TOOLS_LINE.match(first):
            return "text follows the version"
        return "it is not a `// swift-tools-version:` line"
    version = tuple(int(part) for part in match["version"].split("."))
    version += (0,) * (3 - len(version))
    if not OLDEST <= version <= NEWEST:
        return (f"tools version {match['version']} is outside {_dotted(OLDEST)}…"
                f"{_dotted(NEWEST)} (binary targets need 5.3; Swift 6.0 reads at most 6.0)")
    if match["space"] and version < (5, 4, 0):
        return "SwiftPM before 5.4 reads no space after the colon"
    return None


def _dotted(version: tuple[int, ...]) -> str:
    return ".".join(str(part) for part in version[:2])


def needs_swiftpm(rendered: Rendered, accept_static: bool) -> Finding:
    """The one `needs-swiftpm` finding of a manifest SwiftPM did not evaluate (see rule 3, 4)."""
    refused = _package_problem(rendered.text)
    path = rendered.template.path
    if refused is not None:
        why, offset = refused
        line, note = manifest_line(rendered, rendered.text.count("\n", 0, offset) + 1)
        return Finding(
            code=CODE, severity=Severity.ERROR, subject=path, file=path, line=line,
            message=(f"{why}{note}; SwiftPM evaluates the last Package initialised, so only "
                     "SwiftPM can say what this manifest declares and a static reading cannot "
                     f"be accepted: run where `swift` is ({option('swift')}, the image with "
                     "SwiftPM)"),
        )
    severity = Severity.WARNING if accept_static else Severity.ERROR
    unproven = (f"accepted as a static reading ({option('accept-static')}): this manifest is "
                "unproven"
                if accept_static else
                f"run where `swift` is ({option('swift')}, the image with SwiftPM), or accept a "
                f"static reading with {option('accept-static')}")
    # No file: it is about where the check ran, not a line to annotate (the subject names it).
    return Finding(
        code=CODE, severity=severity, subject=path, file=None, line=None,
        message=(f"SwiftPM did not evaluate {path}; whether each placeholder is live "
                 "code, which `#if` branches and computed collections keep which binary "
                 "targets, which are products, and which platforms the XCFrameworks' slices "
                 f"must cover only SwiftPM can say: {unproven}"),
    )


def _package_problem(text: str) -> tuple[str, int] | None:
    """Why the text does not show exactly one `let package = Package(`, and where; or None."""
    calls = list(_PACKAGE_CALL.finditer(text))
    if not calls:
        return "the text has no `Package(` call", 0
    if len(calls) > 1:
        return (f"the text has {len(calls)} `Package(` calls", calls[1].start())
    inits = [m for m in _INIT_CALL.finditer(text)
             if not calls[0].start() <= m.start() < calls[0].end()]
    if inits:
        return "the text has an `.init(` call, which may initialise a Package", inits[0].start()
    declared = _LET_PACKAGE.search(text)
    if declared is None or declared.end() != calls[0].end():
        return "the one `Package(` call is not `let package = Package(`", calls[0].start()
    return None
