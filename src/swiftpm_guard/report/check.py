"""Report → JSON, Markdown and console lines (pure).

The JSON shape is a public interface (documented in the README, described by
`report/schemas/check.json`); add keys, never rename. Every value in the Markdown goes through
`report.markdown` (code spans, escaped text), so it renders exactly as written.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from swiftpm_guard import __version__
from swiftpm_guard.core.checks import base_name
from swiftpm_guard.core.model import Artifact, Finding, ReleaseLine, Report, Severity
from swiftpm_guard.core.option_names import option
from swiftpm_guard.core.weight import sentence
from swiftpm_guard.report.gist import Problem, Reading, headline, problems
from swiftpm_guard.report.markdown import cell, code, message, text
from swiftpm_guard.workflow_commands import neutralise

#: The JSON reports' shape version: the major moves only when a key changes meaning or goes.
SCHEMA_VERSION = "1.2"
TOOL = {"name": "swiftpm-guard", "version": __version__}
_YES, _NO = "✓", "✗"


def to_dict(report: Report) -> dict[str, object]:
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "check",
        "tool": dict(TOOL),
        "consistent": report.consistent,
        "version": report.version or None,
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
        "findings": [f.as_dict() for f in sorted(report.findings, key=finding_order)],
        "swiftpm": report.swiftpm.as_dict() if report.swiftpm else None,
        "proof": report.proof,
        "declared": list(report.declared),
        "checksums": {a.name: a.sha256 for a in report.artifacts if a.sha256 is not None},
        "origins": {a.name: origin_of(a) for a in report.artifacts},
        "verify_urls": report.hosted.as_dict() if report.hosted else None,
        "download": report.weight.as_dict() if report.weight else None,
    }


def origin_of(artifact: Artifact) -> dict[str, object]:
    """Where a name (and its checksum) came from: kind, file (zip path, checksums file,
    list, workflow) and line."""
    return {"kind": artifact.origin_kind, "file": artifact.origin.file,
            "line": artifact.origin.line, "file_name": artifact.file_name}


def to_json(report: Report) -> str:
    import json

    return json.dumps(to_dict(report), indent=2, ensure_ascii=False) + "\n"


def finding_order(finding: Finding) -> tuple[bool, str, int, str, str]:
    """Errors first, then by place (file, line), code and subject."""
    return (finding.severity is not Severity.ERROR, finding.file or "", finding.line or 0,
            finding.code, finding.subject)


_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.NOTICE: 2}


def ranked(findings: Iterable[Finding]) -> list[Finding]:
    """Errors, then warnings, then notices; each in the report's order."""
    return sorted(findings, key=lambda f: _RANK[f.severity])


def retired(findings: Iterable[Finding], lines: Sequence[ReleaseLine]) -> frozenset[Finding]:
    """The findings of checked release lines that no longer publish."""
    old = {line.ref for line in lines if line.skipped is None and not line.active}
    return frozenset(f for f in findings if f.ref in old)


def retired_lines(findings: Sequence[Finding], lines: Sequence[ReleaseLine],
                  debug_suffix: str) -> list[str]:
    """One console line per release line that no longer publishes and has findings of its
    own (those every line shares are listed as they are)."""
    said = []
    for line in lines:
        count = sum(f.ref == line.ref for f in findings)
        if line.skipped is not None or line.active or not count:
            continue
        last = line.last_published or "nothing"
        said.append(neutralise(
            f"{line.ref}: no longer publishes (last published {last}); publishing from it "
            f"would {_would(line, debug_suffix)} ({count} warning{'s' if count != 1 else ''}, "
            "each in the JSON report)"))
    return said


def console_lines(findings: Sequence[Finding], lines: Sequence[ReleaseLine],
                  debug_suffix: str = "_debug") -> list[str]:
    """The log: errors first, then warnings; a line that no longer publishes in one line."""
    old = retired(findings, lines)
    return [*(line for f in ranked(findings) if f not in old for line in finding_lines(f)),
            *retired_lines(findings, lines, debug_suffix)]


def console_line(finding: Finding, where: str | None = None) -> str:
    """`file:line: error: code: message`, the shape editors and CI logs link; `where` says
    it otherwise (`swiftpm:Package.swift.template:98`, a file of another ref)."""
    if where is None:
        where = finding.file or "swiftpm-guard"
        if finding.line:
            where += f":{finding.line}"
    # File names, stub and zip member names are someone else's: the whole line is made
    # unable to form a workflow command (the CLI's stderr is a runner's log too).
    return neutralise(f"{where}: {finding.severity}: {finding.code}: {finding.message}")


def finding_lines(finding: Finding, where: str | None = None) -> list[str]:
    """The console line and, under it, the fix line when the finding has one."""
    lines = [console_line(finding, where)]
    if finding.fix:
        lines.append(neutralise(f"  fix: {finding.fix}"))
    return lines


def _counts(report: Report) -> str:
    declared = len(report.declared)
    built = len(report.built) - declared
    line = f"{len(report.placeholders)} asked, {built} built"
    return line + (f", {declared} declared (not built)" if declared else "")


def only_branch_exists(report: Report) -> bool:
    """The check found nothing; the one error is that the version is already published."""
    errors = {f.code for f in report.findings if f.severity is Severity.ERROR}
    return errors == {"branch-exists"}


def verdict(report: Report) -> str:
    errors = sum(f.severity is Severity.ERROR for f in report.findings)
    warnings = sum(f.severity is Severity.WARNING for f in report.findings)
    counts = ""
    if report.binary_targets is not None:
        products = "?" if report.products is None else str(report.products)
        counts = f"; {products} products, {report.binary_targets} binary targets"
        counts += f" ({report.counts_source})"
    if report.hosted is not None:
        counts += f"; {report.hosted.sentence()}"
    if report.weight is not None:
        counts += f"; {sentence(report.weight)}"
    if report.consistent:
        state = "consistent"
    elif only_branch_exists(report):
        state = ("already published (branch-exists; the manifest itself is consistent: "
                 f"republish with {option('update')})")
    else:
        state = "NOT consistent"
    version = f" for {report.version}" if report.version else ""
    if report.swiftpm is not None and not report.swiftpm.used:
        counts += "; proof: static (unproven)"
    return (f"swiftpm-guard: {state}{version}: {_counts(report)}, {errors} errors, "
            f"{warnings} warnings{counts}")


def _title(report: Report) -> str:
    version = f" {code(report.version)}" if report.version else ""
    if report.consistent:
        state = "consistent"
    elif only_branch_exists(report):
        state = "**already published** (`branch-exists`); the manifest itself is consistent"
    else:
        state = "**not consistent**"
    return f"### SwiftPM manifest{version}: {state}"


def _rows(report: Report, debug_suffix: str) -> tuple[list[str], list[str]]:
    """Table rows: (problems, the rest), each `| name | asked | built | note |`."""
    asked = set(report.placeholders)
    built: dict[str, Artifact | None] = {a.name: a for a in report.artifacts}
    if not built:  # a Report built by hand, without its artifacts
        built = dict.fromkeys(report.built)
    claimed_bases = {base_name(n, debug_suffix) for n in asked}
    problems: list[str] = []
    fine: list[str] = []
    for name in sorted(asked | set(built)):
        artifact = built.get(name)
        in_template, is_built = name in asked, name in built
        problem = True
        if in_template and is_built:
            note, problem = "", False
        elif in_template:
            note = "unfilled: would ship the placeholder"
        elif base_name(name, debug_suffix) in claimed_bases:
            note, problem = "debug twin of a product", False
        else:
            note = "unclaimed: product would vanish"
        shown = _NO if not is_built else "declared" if artifact and not artifact.sha256 else _YES
        row = (f"| {cell(code(name))} | {_YES if in_template else _NO} | {shown} | "
               f"{cell(text(note))} |")
        (problems if problem else fine).append(row)
    return problems, fine


_HEADER = ["| name | asked by a template | built | note |", "|---|:-:|:-:|---|"]


def table(report: Report, debug_suffix: str = "_debug", *, sound_rows: bool = True) -> list[str]:
    """The two-way table: problem rows first, the sound rows folded in a `<details>` block
    (or, without `sound_rows`, only counted: the job summary beside a check run)."""
    problems, fine = _rows(report, debug_suffix)
    lines: list[str] = []
    if problems:
        lines += [*_HEADER, *problems, ""]
    if fine:
        what = "declared" if report.declared and len(report.declared) == len(report.built) \
            else "built"
        summary = (f"{len(fine)} names asked for and {what}" if not problems
                   else f"{len(fine)} more names, asked for and {what}")
        if not sound_rows:
            return [*lines, f"{summary}: no problem (their rows are in the check run).", ""]
        lines += [f"<details><summary>{summary} (no problem)</summary>", "", *_HEADER, *fine,
                  "", "</details>", ""]
    return lines


def finding_line(finding: Finding) -> str:
    """`- **error** `code` message — `file:line``, every value escaped or in a code span."""
    where = ""
    if finding.file:
        where = f" — {code(finding.file + (f':{finding.line}' if finding.line else ''))}"
    return f"- **{finding.severity}** {code(finding.code)} {message(finding.message)}{where}"


def to_markdown(report: Report, debug_suffix: str = "_debug", *, sound_rows: bool = True,
                reading: Reading | None = None) -> str:
    """The verdict, the two-way table (`sound_rows`: see `table`), then the problems."""
    reading = reading or Reading(debug_suffix=debug_suffix)
    lines = [_title(report), "", text(_counts(report)) + ".", ""]
    lines += table(report, debug_suffix, sound_rows=sound_rows)
    if report.binary_targets is not None:
        products = "unknown" if report.products is None else str(report.products)
        lines += [f"Products: {products}; binary targets: {report.binary_targets} "
                  f"(counted: {text(report.counts_source or 'unknown')}).", ""]
    if report.swiftpm is not None:
        lines += [_swift_line(report), ""]
    if report.hosted is not None:
        lines += [f"Hosted zips (verify-urls): {text(report.hosted.sentence())}.", ""]
    if report.weight is not None:
        lines += [f"Download weight: {text(sentence(report.weight))}.", ""]
    return "\n".join([*lines, *problems_markdown(report.findings, reading)]) + "\n"


def problems_markdown(findings: Sequence[Finding], reading: Reading) -> list[str]:
    """`#### Findings`: each problem once (debug twins folded) with where and how to fix it;
    those the base branch has too in their own section."""
    folded = problems(reading.shown(findings), reading.debug_suffix, reading.existing)
    new = [p for p in folded if not p.existing]
    lines = ["#### Findings", ""]
    lines += [item for p in new for item in _problem_lines(p, reading)] or ["None."]
    hidden = sum(f in reading.retired for f in findings)
    if hidden:
        lines += ["", f"{hidden} more on release lines that no longer publish: one row each "
                  "under Release lines, every one in the JSON report."]
    old = [p for p in folded if p.existing]
    if old:
        base = f" ({code(reading.base)})" if reading.base else ""
        lines += ["", f"#### Already there before this change{base}", "",
                  "These do not decide this check's conclusion.", ""]
        lines += [item for p in old for item in _problem_lines(p, reading)]
    return lines


def _problem_lines(problem: Problem, reading: Reading) -> list[str]:
    finding = problem.finding
    places = [w for w in dict.fromkeys(reading.where(m) for m in problem.members) if w]
    where = f" — {', '.join(code(w) for w in places)}" if places else ""
    lines = [f"- **{finding.severity}** {text(headline(problem, reading.builder))}{where}",
             f"  {code(finding.code)} {message(finding.message)}"]
    if finding.fix:
        lines.append(f"  Fix: {message(finding.fix)}")
    return lines


def _swift_line(report: Report) -> str:
    status = report.swiftpm
    assert status is not None
    if not status.used:
        return (f"SwiftPM not run: {text(status.reason)}. Proof: static, the manifests are "
                "unproven.")
    seconds = f" in {status.seconds:.1f} s" if status.seconds is not None else ""
    cached = " (cached)" if status.cached else ""
    return f"SwiftPM: {text(status.reason)}{seconds}{cached}."


# -- a template change against several release lines, and the template side of a PR ----------


def _bases(findings: Sequence[Finding], code: str, debug_suffix: str) -> list[str]:
    names = [f.subject for f in findings if f.code == code and f.severity is not Severity.NOTICE]
    bases = [n.removesuffix(debug_suffix) if debug_suffix else n for n in names]
    return list(dict.fromkeys(bases))


def line_sentences(line: ReleaseLine, debug_suffix: str) -> list[str]:
    """What goes wrong when publishing from this ref with this template, in words."""
    dropped = _bases(line.findings, "unclaimed-artifact", debug_suffix)
    missed = _bases(line.findings, "unfilled-placeholder", debug_suffix)
    said = [f"drop {', '.join(dropped)} (built here, no product in the template)"] \
        if dropped else []
    return said + ([f"miss {', '.join(missed)} (the template asks, not built here)"]
                   if missed else [])


def _would(line: ReleaseLine, debug_suffix: str) -> str:
    """`publish 18 products` or `be blocked: miss kernels_torchao (…)`."""
    graver = {Severity.ERROR, Severity.WARNING} if not line.active else {Severity.ERROR}
    wrong = [f for f in line.findings if f.severity in graver]
    if not wrong:
        return "publish: the template fits"
    words = line_sentences(line, debug_suffix) or sorted({f.code for f in wrong})
    return "be blocked: " + "; ".join(words)


def matrix_markdown(lines: Sequence[ReleaseLine], debug_suffix: str) -> str:
    """`#### Release lines`: per ref, whether it still publishes, what publishing from it with
    this template would do, and when it last published; then the refs not checked and why."""
    checked = [line for line in lines if line.skipped is None]
    rows = ["#### Release lines", "",
            "| ref | still publishes | names built | publishing from it would | last published |",
            "|---|:-:|--:|---|---|"]
    for line in checked:
        last = "" if line.active else (line.last_published or "never")
        rows.append(f"| {cell(code(line.ref))} | {_YES if line.active else _NO} | "
                    f"{line.names} | {cell(text(_would(line, debug_suffix)))} | "
                    f"{cell(text(last))} |")
    skipped = [line for line in lines if line.skipped is not None]
    if skipped:
        rows += ["", "Not checked:", ""]
        rows += [f"- {code(line.ref)}: {text(line.skipped or '')}" for line in skipped]
    rows += ["", "Findings on lines that no longer publish are warnings: they will not publish "
             f"again, so they do not fail this check. `{option('active-refs')}` names the lines "
             "that still publish."]
    return "\n".join(rows) + "\n"


def template_side_markdown(findings: Sequence[Finding], template_ref: str) -> str:
    """What the template says about the findings annotated on workflow lines."""
    if not findings:
        return ""
    lines = [f"#### Template side ({code(template_ref)}, not in this pull request's tree)", ""]
    seen: set[tuple[str | None, int | None, str]] = set()
    for finding in findings:
        key = (finding.file, finding.line, finding.code)
        if key in seen:
            continue
        seen.add(key)
        where = f"{finding.file}:{finding.line}" if finding.line else str(finding.file)
        lines.append(f"- {code(where)} {code(finding.code)} {code(finding.subject)}")
    return "\n".join(lines) + "\n"
