"""The release-line matrix: one row per ref a template change was checked against (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from swiftpm_guard.core.model import Finding, Severity
from swiftpm_guard.report import markdown as md


@dataclass(frozen=True, slots=True)
class LineResult:
    ref: str
    findings: tuple[Finding, ...]
    names: int  # framework names the ref's list declares (debug twins included)


def _bases(findings: Sequence[Finding], code: str, debug_suffix: str) -> list[str]:
    names = [f.subject for f in findings if f.code == code and f.severity is Severity.ERROR]
    bases = [n.removesuffix(debug_suffix) if debug_suffix else n for n in names]
    return list(dict.fromkeys(bases))


def sentences(line: LineResult, debug_suffix: str) -> list[str]:
    """What publishing from this ref with this template would do, in words."""
    said = [
        f"{line.ref} still builds {name}: publishing from it would drop the product"
        for name in _bases(line.findings, "unclaimed-artifact", debug_suffix)
    ]
    said += [
        f"{line.ref} does not build {name}: the template asks for it, so publishing from it "
        "would ship a placeholder"
        for name in _bases(line.findings, "unfilled-placeholder", debug_suffix)
    ]
    return said


def matrix_markdown(lines: Sequence[LineResult], debug_suffix: str) -> str:
    """`#### Release lines`: each ref, how many names it builds, and what would go wrong."""
    rows = ["#### Release lines", "", "| ref | names built | result |", "|---|---|---|"]
    for line in lines:
        errors = sum(f.severity is Severity.ERROR for f in line.findings)
        words = sentences(line, debug_suffix)
        result = "consistent" if errors == 0 else f"{errors} error(s): " + "; ".join(
            words or sorted({f.code for f in line.findings if f.severity is Severity.ERROR})
        )
        rows.append(f"| {md.cell(md.code(line.ref))} | {line.names} | "
                    f"{md.cell(md.text(result))} |")
    return "\n".join(rows) + "\n"
