"""What a check run says: conclusion, title, summary, text and annotations; and the job
summary beside it (pure).

GitHub's limits are applied here (title ≤ 255, summary ≤ 65535 characters, at most
ANNOTATIONS_MAX annotations), and whatever is cut is said first in the output itself.
Workflow-command annotations (the fallback) are built from the same `Annotation` values.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from swiftpm_guard.core.model import (
    ANNOTATIONS_MAX,
    CONCLUSIONS,
    MESSAGE_MAX_BYTES,
    SUMMARY_MAX,
    TEXT_MAX,
    TITLE_MAX,
    Annotation,
    CheckRunOutput,
    Finding,
    Phrase,
    Report,
    Severity,
)
from swiftpm_guard.report import gist
from swiftpm_guard.report import markdown as md
from swiftpm_guard.report.check import finding_order
from swiftpm_guard.report.gist import Reading
from swiftpm_guard.report.markdown import code

if TYPE_CHECKING:
    from swiftpm_guard.core.audit import AuditReport

_LEVEL = {Severity.ERROR: "failure", Severity.WARNING: "warning", Severity.NOTICE: "notice"}
_CLOSE = "\n\n</details>"


def conclusion_for(report: Report, *, pull_request: bool, pr_conclusion: str,
                   existing: Collection[Finding] = ()) -> str:
    """`success`, else `failure`, except on pull requests where `pr_conclusion` applies:
    `auto` fails a pull request that brings an error and is neutral when every error was
    there before it (`existing`)."""
    if report.consistent:
        return "success"
    if not pull_request:
        return "failure"
    if pr_conclusion != "auto":
        return pr_conclusion
    brought = any(f.severity is Severity.ERROR and f not in existing for f in report.findings)
    return "failure" if brought else "neutral"


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


def annotation_of(finding: Finding, path: str, line: int, *, existing: bool = False
                  ) -> Annotation:
    """One annotation; a finding placed elsewhere than its own file says where it came from.
    One the base branch has too is a notice: there, but not this change's doing."""
    title = f"{finding.code}: {finding.subject}"
    message = finding.message
    if finding.file and finding.file != path:
        message = f"{finding.file}: {message}"
    if finding.fix:
        message += f"\nFix: {finding.fix}"
    level = _LEVEL[finding.severity]
    if existing:
        title, level = f"already there: {title}", "notice"
    if len(title) > TITLE_MAX:
        title = title[: TITLE_MAX - 1] + "…"
    return Annotation(path=path, line=max(1, line), level=level, title=title,
                      message=clip_bytes(message, MESSAGE_MAX_BYTES))


def build_output(
    report: Report, markdown: str, *, conclusion: str,
    locate: Callable[[Finding], tuple[str, int] | None], reading: Reading | None = None,
) -> CheckRunOutput:
    """The whole check-run output for `report`. `locate` maps a finding to a line of a file in
    the checked commit, or None: those are listed in the text as `ref:path:line` instead."""
    if conclusion not in CONCLUSIONS:
        raise ValueError(f"conclusion {conclusion!r} is not one of {CONCLUSIONS}")
    reading = reading or Reading()
    findings = _ordered(reading.shown(report.findings))
    placed = [(f, spot) for f in findings if (spot := locate(f)) is not None]
    annotations = tuple(_twins_on_one_line(
        [annotation_of(f, *spot, existing=f in reading.existing) for f, spot in placed],
        reading.debug_suffix)[:ANNOTATIONS_MAX])
    cut: list[str] = []
    text_parts: list[str] = []
    unplaced = [f for f in findings if locate(f) is None]
    if unplaced:
        text_parts.append("#### Not annotated: their files are not in this commit\n")
        text_parts += [f"- {_listed(f, reading)}" for f in unplaced]
    overflow = [f for f, _spot in placed[ANNOTATIONS_MAX:]]
    if overflow:
        cut.append(
            f"annotations: {len(overflow)} findings past the first {ANNOTATIONS_MAX} "
            "are listed in the text instead"
        )
        text_parts.append(f"\n#### {len(overflow)} more findings (not annotated)\n")
        text_parts += [f"- {_listed(f, reading)}" for f in overflow]
    text: str | None = None
    if text_parts:
        text, text_cut = clip("\n".join(text_parts) + "\n", TEXT_MAX, "text")
        if text_cut:
            cut.append(text_cut)
    folded = gist.problems(reading.shown(report.findings), reading.debug_suffix,
                           reading.existing)
    return assemble(conclusion=conclusion, title=gist.title(report, folded, reading.builder,
                                                            reading.debug_suffix),
                    markdown=markdown, text=text, annotations=annotations, cut=cut)


def _twins_on_one_line(annotations: Sequence[Annotation], debug_suffix: str
                       ) -> list[Annotation]:
    """A name and its debug twin on the same line, for the same reason, are one annotation:
    `unclaimed-artifact: backend_mps, backend_mps_debug` (one problem, one mark)."""
    def key(a: Annotation) -> tuple[str, int, str, str]:
        return (a.path, a.line, a.level, a.title.removesuffix(debug_suffix) if debug_suffix
                else a.title)

    groups: dict[tuple[str, int, str, str], list[Annotation]] = {}
    for annotation in annotations:
        groups.setdefault(key(annotation), []).append(annotation)
    merged = []
    for members in groups.values():
        first = members[0]
        if len(members) > 1:
            names = ", ".join(m.title.split(": ", 1)[-1] for m in members)
            title = f"{first.title.rsplit(': ', 1)[0]}: {names}"
            first = replace(first, title=title[:TITLE_MAX])
        merged.append(first)
    return merged


def _listed(finding: Finding, reading: Reading) -> str:
    """`swiftpm:Package.swift.template:98` **error** `code` message, escaped."""
    where = reading.where(finding)
    return (f"{code(where) + ' ' if where else ''}**{finding.severity}** {code(finding.code)} "
            f"{md.message(finding.message)}")


def assemble(*, conclusion: str, title: str, markdown: str, text: str | None,
             annotations: tuple[Annotation, ...], cut: list[str]) -> CheckRunOutput:
    """The output within GitHub's limits; what was cut goes first, where clipping cannot lose it."""
    notes = "".join(f"> cut: {note}\n" for note in cut)
    summary, summary_cut = clip(notes + ("\n" if notes else "") + markdown, SUMMARY_MAX, "summary")
    if summary_cut:
        cut = [*cut, summary_cut]
    if len(title) > TITLE_MAX:
        title = title[: TITLE_MAX - 1] + "…"
    return CheckRunOutput(conclusion=conclusion, title=title, summary=summary, text=text,
                          annotations=annotations, cut=tuple(cut))


def _ordered(findings: Iterable[Finding]) -> list[Finding]:
    """Errors first, then by place, so the first annotations are the ones that matter."""
    return sorted(findings, key=finding_order)


def audit_listing(report: AuditReport) -> list[str]:
    """Each finding as `branch:path:line`, errors first: the audited files live on published
    branches, never in the commit the check run is for, so none is annotated (the same path
    there is another file, or none)."""
    found: list[tuple[bool, str, str]] = []
    for branch in report.branches:
        for finding in branch.findings:
            where = f"{branch.branch}:{finding.file or ''}" + (
                f":{finding.line}" if finding.file and finding.line else "")
            found.append((finding.severity is not Severity.ERROR, branch.branch,
                          f"- {code(where.rstrip(':'))} **{finding.severity}** "
                          f"{code(finding.code)} {md.message(finding.message)}"))
    found.sort(key=lambda item: (item[0], item[1]))
    return [line for _warning, _branch, line in found]


def audit_output(report: AuditReport, markdown: str, *, conclusion: str) -> CheckRunOutput:
    from swiftpm_guard.report import audit as audit_report
    listed = audit_listing(report)
    cut: list[str] = []
    text = None
    if listed:
        text, text_cut = clip("#### Findings by branch (not annotated: their files are on "
                              "the published branches)\n\n" + "\n".join(listed) + "\n",
                              TEXT_MAX, "text")
        cut += [text_cut] if text_cut else []
    return assemble(conclusion=conclusion,
                    title=audit_report.verdict(report).removeprefix("swiftpm-guard "),
                    markdown=markdown, text=text, annotations=(), cut=cut)


# -- the job summary beside the check run -----------------------------------------------------


def note(text: str) -> str:
    """A GitHub Markdown note block (summary and check run); `text` is Markdown already."""
    return f"> [!NOTE]\n> {text}\n"


def fallback_note(reason: str, annotations: int) -> str:
    """Why workflow commands carried the annotations the check run could not."""
    return (f"> [!NOTE]\n> {md.text(reason)}; {annotations} annotations were written as "
            "workflow commands instead.")


def job_summary(output: CheckRunOutput, markdown: str, *, brief: str | None,
                check_run: tuple[str, str] | None, notes: Sequence[str] = (),
                reads: Sequence[Phrase] = ()) -> str:
    """The step's summary: beside a check run (`check_run`: its name and address) the `brief`
    report and a link, since one job's view should not show the same table twice; without one
    (fork PRs, no token, dry-run, the API down) the whole report, the only place to read it."""
    body = markdown
    if check_run is not None and brief is not None:
        name, url = check_run
        body = f"{brief}\nThe whole report is in the check run [{md.text(name)}](<{url}>).\n"
    said = "Read: " + "; ".join(md.phrase(r) for r in reads) + "." if reads else ""
    return "\n".join([body, *(f"> {n}" for n in output.cut), *notes, "", said, ""])
