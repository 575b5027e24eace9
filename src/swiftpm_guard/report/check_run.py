"""What a check run says: conclusion, title, summary, text and annotations (pure).

GitHub's limits are applied here, and whatever is cut is said in the output itself.
Workflow-command annotations (the fallback) are built from the same `Annotation` values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from swiftpm_guard.core.check_run import (
    ANNOTATIONS_MAX,
    CONCLUSIONS,
    MESSAGE_MAX_BYTES,
    SUMMARY_MAX,
    TEXT_MAX,
    TITLE_MAX,
    Annotation,
    CheckRunOutput,
)
from swiftpm_guard.core.model import Finding, Report, Severity
from swiftpm_guard.report.check import console_line, verdict
from swiftpm_guard.report.markdown import code

_LEVEL = {Severity.ERROR: "failure", Severity.WARNING: "warning", Severity.NOTICE: "notice"}
_CLOSE = "\n\n</details>"


def conclusion_for(report: Report, *, pull_request: bool, pr_conclusion: str) -> str:
    """`success`, else `failure`, except on pull requests where `pr_conclusion` applies."""
    if report.consistent:
        return "success"
    return pr_conclusion if pull_request else "failure"


def clip(text: str, limit: int, what: str) -> tuple[str, str | None]:
    """Cut `text` to `limit` characters at a line break; say so in the text and return why."""
    if len(text) <= limit:
        return text, None
    lines = text.count("\n") + 1
    note_template = "\n\n… cut: {n} of {total} lines not shown ({what} limit: {limit} characters)\n"
    room = limit - len(note_template.format(n=lines, total=lines, what=what, limit=limit))
    head = text[: room - len(_CLOSE)]
    if "\n" in head:
        head = head[: head.rindex("\n")]
    hidden = lines - (head.count("\n") + 1)
    if head.count("<details>") > head.count("</details>"):
        head += _CLOSE  # cut inside the folded rows: close them, or the note is folded away
    note = note_template.format(n=hidden, total=lines, what=what, limit=limit)
    return head + note, f"{what}: {hidden} of {lines} lines cut (limit {limit} characters)"


def clip_bytes(text: str, limit: int) -> str:
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    marker = " … (cut)"
    return data[: limit - len(marker.encode())].decode("utf-8", "ignore") + marker


def annotation_of(finding: Finding, path: str, line: int) -> Annotation:
    """One annotation; a finding placed elsewhere than its own file says where it came from."""
    title = f"{finding.code}: {finding.subject}"
    if len(title) > TITLE_MAX:
        title = title[: TITLE_MAX - 1] + "…"
    message = finding.message
    if finding.file and finding.file != path:
        message = f"{finding.file}: {message}"
    return Annotation(
        path=path,
        line=max(1, line),
        level=_LEVEL[finding.severity],
        title=title,
        message=clip_bytes(message, MESSAGE_MAX_BYTES),
    )


def build_output(
    report: Report, markdown: str, *, conclusion: str, locate: Callable[[Finding], tuple[str, int]]
) -> CheckRunOutput:
    """The whole check-run output for `report`; `locate` maps a finding to a repo path and line."""
    if conclusion not in CONCLUSIONS:
        raise ValueError(f"conclusion {conclusion!r} is not one of {CONCLUSIONS}")
    findings = _ordered(report.findings)
    annotations = tuple(annotation_of(f, *locate(f)) for f in findings[:ANNOTATIONS_MAX])
    cut: list[str] = []
    text_parts: list[str] = []
    overflow = findings[ANNOTATIONS_MAX:]
    if overflow:
        cut.append(
            f"annotations: {len(overflow)} findings past the first {ANNOTATIONS_MAX} "
            "are listed in the text instead"
        )
        text_parts.append(f"#### {len(overflow)} more findings (not annotated)\n")
        text_parts += [f"- {code(console_line(f))}" for f in overflow]
    text: str | None = None
    if text_parts:
        text, text_cut = clip("\n".join(text_parts) + "\n", TEXT_MAX, "text")
        if text_cut:
            cut.append(text_cut)
    return assemble(
        conclusion=conclusion,
        title=verdict(report).removeprefix("swiftpm-guard: "),
        markdown=markdown,
        text=text,
        annotations=annotations,
        cut=cut,
    )


def assemble(
    *,
    conclusion: str,
    title: str,
    markdown: str,
    text: str | None,
    annotations: tuple[Annotation, ...],
    cut: list[str],
) -> CheckRunOutput:
    """The output within GitHub's limits; what was cut goes first, where clipping cannot lose it."""
    notes = "".join(f"> cut: {note}\n" for note in cut)
    summary, summary_cut = clip(notes + ("\n" if notes else "") + markdown, SUMMARY_MAX, "summary")
    if summary_cut:
        cut = [*cut, summary_cut]
    if len(title) > TITLE_MAX:
        title = title[: TITLE_MAX - 1] + "…"
    return CheckRunOutput(
        conclusion=conclusion,
        title=title,
        summary=summary,
        text=text,
        annotations=annotations,
        cut=tuple(cut),
    )


def _ordered(findings: Iterable[Finding]) -> list[Finding]:
    """Errors first, then by place, so the first annotations are the ones that matter."""
    return sorted(
        findings,
        key=lambda f: (
            f.severity is not Severity.ERROR,
            f.file or "",
            f.line or 0,
            f.code,
            f.subject,
        ),
    )
