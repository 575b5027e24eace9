"""Report → JSON, Markdown and console lines (pure).

The JSON shape is a public interface (documented in the README); add keys, never rename.
"""

from __future__ import annotations

import json

from swiftpm_guard.core.checks import base_name
from swiftpm_guard.core.model import Finding, Report, Severity

_YES, _NO = "✓", "✗"


def to_dict(report: Report) -> dict[str, object]:
    return {
        "consistent": report.consistent,
        "version": report.version,
        "template": report.templates[0].path if report.templates else None,
        "templates": [
            {"path": t.path, "placeholders": list(t.placeholders), "products": t.products,
             "binary_targets": t.binary_targets}
            for t in report.templates
        ],
        "placeholders": list(report.placeholders),
        "built": list(report.built),
        "unfilled": list(report.unfilled),
        "unclaimed": list(report.unclaimed),
        "products": report.products,
        "binary_targets": report.binary_targets,
        "counts_source": report.counts_source,
        "findings": [f.as_dict() for f in sorted(report.findings, key=_order)],
        "swiftpm": report.swiftpm.as_dict() if report.swiftpm else None,
    }


def to_json(report: Report) -> str:
    return json.dumps(to_dict(report), indent=2, ensure_ascii=False) + "\n"


def _order(finding: Finding) -> tuple[int, str, int, str, str]:
    return (finding.severity is not Severity.ERROR, finding.file or "", finding.line or 0,
            finding.code, finding.subject)


def console_line(finding: Finding) -> str:
    """`file:line: error: code: message`, the shape editors and CI logs link."""
    where = finding.file or "swiftpm-guard"
    if finding.line:
        where += f":{finding.line}"
    return f"{where}: {finding.severity}: {finding.code}: {finding.message}"


def verdict(report: Report) -> str:
    errors = sum(f.severity is Severity.ERROR for f in report.findings)
    warnings = sum(f.severity is Severity.WARNING for f in report.findings)
    counts = ""
    if report.binary_targets is not None:
        products = "?" if report.products is None else str(report.products)
        counts = f"; {products} products, {report.binary_targets} binary targets"
        counts += f" ({report.counts_source})"
    state = "consistent" if report.consistent else "NOT consistent"
    return (f"swiftpm-guard: {state} for {report.version}: {len(report.placeholders)} asked, "
            f"{len(report.built)} built, {errors} errors, {warnings} warnings{counts}")


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(report: Report, debug_suffix: str = "_debug") -> str:
    """One two-way table (asked by the template / built), then the findings."""
    asked = set(report.placeholders)
    built = set(report.built)
    claimed_bases = {base_name(n, debug_suffix) for n in asked}
    title = "consistent" if report.consistent else "**not consistent**"
    lines = [
        f"### SwiftPM manifest {report.version}: {title}",
        "",
        "| name | asked by template | built | |",
        "|---|:-:|:-:|---|",
    ]
    for name in sorted(asked | built):
        in_template = name in asked
        is_built = name in built
        if in_template and is_built:
            note = ""
        elif in_template:
            note = "unfilled: would ship the placeholder"
        elif base_name(name, debug_suffix) in claimed_bases:
            note = "debug twin of a product"
        else:
            note = "unclaimed: product would vanish"
        lines.append(f"| `{name}` | {_YES if in_template else _NO} | "
                     f"{_YES if is_built else _NO} | {note} |")
    if report.binary_targets is not None:
        products = "unknown" if report.products is None else str(report.products)
        lines += ["", f"Products: {products}; binary targets: {report.binary_targets} "
                      f"(counted: {report.counts_source})."]
    if report.swiftpm is not None:
        lines += ["", _swift_line(report)]
    lines += ["", "#### Findings", ""]
    if not report.findings:
        lines.append("None.")
    for finding in sorted(report.findings, key=_order):
        where = f" — `{finding.file}{':' + str(finding.line) if finding.line else ''}`" \
            if finding.file else ""
        lines.append(f"- **{finding.severity}** `{finding.code}` {_escape(finding.message)}"
                     f"{where}")
    return "\n".join(lines) + "\n"


def _swift_line(report: Report) -> str:
    status = report.swiftpm
    assert status is not None
    if not status.used:
        return f"SwiftPM not run: {_escape(status.reason)}."
    seconds = f" in {status.seconds:.1f} s" if status.seconds is not None else ""
    cached = " (cached)" if status.cached else ""
    return f"SwiftPM: {_escape(status.reason)}{seconds}{cached}."
