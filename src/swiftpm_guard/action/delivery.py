"""What the action leaves behind, in one place: `.swiftpm-guard/` in the workspace, the log,
the check run (else the same annotations as workflow commands), the job summary, the step
outputs and the exit code. A mode describes it as a `Delivery`; `deliver` carries it out.
The verdict never depends on the check run: that part is best effort.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from swiftpm_guard.action.settings import ActionSettings, spoken, spoken_key
from swiftpm_guard.console import command, say, tell
from swiftpm_guard.core.model import Annotation, CheckRunOutput, Phrase, Report
from swiftpm_guard.core.option_names import spell_bytes
from swiftpm_guard.core.subjects import SUBJECTS_FILE, subjects_text
from swiftpm_guard.errors import InputError
from swiftpm_guard.jobs.adapters import Adapters
from swiftpm_guard.report import markdown as md
from swiftpm_guard.report.attestation import summary_lines
from swiftpm_guard.report.check_run import fallback_note, job_summary, note
from swiftpm_guard.sinks import actions_io
from swiftpm_guard.sinks.files import write_atomically

#: Reports and the manifest go here, inside the workspace, so later steps can use them.
OUT_DIR = ".swiftpm-guard"
EXIT_OK, EXIT_FINDINGS = 0, 1
#: GitHub takes up to 1 MB per step output; the report inline stays below this, else the
#: output is a small stand-in that says so and where the whole report is.
JSON_OUTPUT_MAX_BYTES = 900_000


@dataclass(frozen=True, slots=True)
class Delivery:
    files: tuple[tuple[str, bytes], ...]  # names inside OUT_DIR
    #: Console lines, errors first (someone else's text: neutralised on the way out).
    log: tuple[str, ...]
    output: CheckRunOutput
    markdown: str  # the whole report: the check run's summary
    brief: str | None  # the job summary beside a check run that has the whole report
    outputs: Mapping[str, str]
    last: str  # the verdict on stdout
    exit_code: int
    reads: tuple[Phrase, ...] = ()
    #: Those of `log` whose findings the output annotates: left out when those annotations
    #: are written as workflow commands instead (each finding once in the log).
    annotated_log: tuple[str, ...] = ()
    #: Why no check run is posted (a free version in preflight: the job's check run, made
    #: by its check or publish step, keeps its title); None: post one.
    quiet: str | None = None
    #: Errors on no line of the checked commit (a downloaded zip, another ref's file): when
    #: workflow commands carry the annotations, these go as job-level ones (no file), and
    #: their lines of `log` (`job_level_log`) are left out.
    job_level: tuple[Annotation, ...] = ()
    job_level_log: tuple[str, ...] = ()
    #: The findings in Markdown for the pull-request comment (input pr-comment); None: this
    #: mode comments nothing.
    gist: str | None = None


def deliver(settings: ActionSettings, adapters: Adapters, delivery: Delivery) -> int:
    folder = out_folder(settings)
    paths = [(folder / name, spell_bytes(data, spoken_key)) for name, data in delivery.files]
    write_atomically(paths)
    _own(settings.workspace, [folder, *(path for path, _data in paths)])
    output = _spoken(delivery.output)
    if delivery.quiet is None:
        notes, url, commands, run_id = _check_run(
            settings, adapters, output,
            tuple(replace(a, message=spoken(a.message)) for a in delivery.job_level))
    else:
        notes, url, commands, run_id = [f"> No check run: {delivery.quiet}."], None, False, None
    if delivery.gist is not None and settings.pr_comment:
        notes = [*notes, *_pr_comment(settings, adapters, output, delivery.gist, url)]
    carried = frozenset((*delivery.annotated_log, *delivery.job_level_log)) if commands \
        else frozenset()
    for line in delivery.log:
        if line not in carried:
            tell(spoken(line))
    if settings.summary_file is not None:
        check_run = (settings.check_name, url) if url is not None else None
        brief = spoken(delivery.brief) if delivery.brief is not None else None
        actions_io.append_summary(settings.summary_file, job_summary(
            output, spoken(delivery.markdown), brief=brief, check_run=check_run,
            notes=notes, reads=delivery.reads))
    if settings.output_file is not None:
        actions_io.write_outputs(settings.output_file, {
            **{name: spoken(value) for name, value in delivery.outputs.items()},
            "check-run-id": "" if run_id is None else str(run_id)})
    say(spoken(delivery.last))
    return delivery.exit_code


def _spoken(output: CheckRunOutput) -> CheckRunOutput:
    """The output in the action's words: the options it names as inputs."""
    return replace(output, title=spoken(output.title),
                   summary=spoken(output.summary),
                   text=spoken(output.text) if output.text is not None else None,
                   annotations=tuple(replace(a, message=spoken(a.message))
                                     for a in output.annotations))


def _own(workspace: Path, paths: list[Path]) -> None:
    """Run as root in the action's container, the files would be root's in a workspace that
    belongs to the runner's user (uid 1001): later steps could not replace them."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return
    owner = workspace.stat()
    for path in paths:
        try:
            os.chown(path, owner.st_uid, owner.st_gid, follow_symlinks=False)
        except OSError as error:
            raise InputError(f"cannot hand the file to the workspace's owner: "
                             f"{error.strerror}", file=str(path)) from None


def _check_run(settings: ActionSettings, adapters: Adapters, output: CheckRunOutput,
               job_level: tuple[Annotation, ...] = ()
               ) -> tuple[list[str], str | None, bool, int | None]:
    """The check run, else workflow commands for what it could not carry; summary notes, the
    check run's address and id (None when none was made), and whether every annotation went
    out as a workflow command."""
    from swiftpm_guard.sinks.checks_api import CheckRunTarget, Posted, post_check_run

    if settings.check_run == "none":
        return ["> No check run: input check-run is none (a later step makes it)."], None, \
            False, None
    update = None if settings.check_run == "create" else int(settings.check_run)
    target = CheckRunTarget(repository=settings.event.repository, name=settings.check_name,
                            head_sha=settings.event.head_sha, details_url=settings.details_url,
                            update=update)
    if settings.dry_run:
        posted = Posted(reason="dry-run: no check run was created")
        if adapters.check_runs is not None:  # a rehearsal still shows what it would hold
            adapters.check_runs.record(target, output, posted.reason)
    elif adapters.check_runs is not None:
        posted = adapters.check_runs.record(target, output, None)
    elif not settings.token or adapters.github is None:
        posted = Posted(reason="no github-token: no check run was created")
    else:
        posted = post_check_run(adapters.github, target, output)
    if posted.reason is None:
        return [], posted.url, False, posted.run_id
    command(actions_io.command("notice" if posted.expected else "warning",
                           f"{posted.reason}; annotating with workflow commands instead",
                           {"title": "swiftpm-guard"}))
    rest = output.annotations[posted.annotations:]
    for line in actions_io.annotation_commands(
            (*rest, *(job_level if posted.annotations == 0 else ()))):
        command(line)
    return ([fallback_note(posted.reason, len(rest))], posted.url, posted.annotations == 0,
            posted.run_id)


def _pr_comment(settings: ActionSettings, adapters: Adapters, output: CheckRunOutput,
                gist: str, check_run_url: str | None) -> list[str]:
    """The check's gist as this guard's comment on the pull request (created, or edited when
    the findings changed); the summary's notes when there is none."""
    from swiftpm_guard.report.pr_comment import comment
    from swiftpm_guard.sinks.pr_comment import Commented, post_pr_comment

    event = settings.event
    if not event.is_pull_request or event.pr_number is None:
        return []  # only a pull request has a conversation
    wanted = comment(check_name=settings.check_name, template=settings.template,
                     conclusion=output.conclusion, title=output.title,
                     gist=spoken(gist), check_run_url=check_run_url)
    if adapters.check_runs is not None:  # a rehearsal (a dry run too) shows what it would say
        done = Commented("recorded", adapters.check_runs.record_comment(wanted.body))
    elif settings.dry_run:
        done = Commented(reason="dry-run: no pull-request comment was written")
    elif not settings.token or adapters.github is None:
        done = Commented(reason="no github-token: no pull-request comment was written")
    else:
        done = post_pr_comment(adapters.github, event.repository, event.pr_number,
                               body=wanted.body, ours=wanted.ours, current=wanted.current)
    if done.reason is None:
        tell(f"swiftpm-guard: pull-request comment {done.done}: {done.url}")
        return []
    command(actions_io.command("notice" if done.expected else "warning", done.reason,
                               {"title": "swiftpm-guard"}))
    return [note(f"No pull-request comment: {md.text(done.reason)}.")]


def out_folder(settings: ActionSettings) -> Path:
    """`.swiftpm-guard/` in the workspace, created; refused when it is not a plain folder."""
    folder = settings.workspace / OUT_DIR
    try:
        folder.mkdir(exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot create the output folder: {error.strerror}",
                         file=OUT_DIR) from None
    if folder.is_symlink() or not folder.is_dir():
        # A pull request could commit `.swiftpm-guard` as a link to somewhere else.
        raise InputError("exists in the workspace and is not a plain folder", file=OUT_DIR)
    return folder


def exit_for(settings: ActionSettings, consistent: bool, conclusion: str) -> int:
    if consistent:
        return EXIT_OK
    if settings.event.is_pull_request and conclusion == "neutral":
        return EXIT_OK
    return EXIT_FINDINGS


def outputs_for(settings: ActionSettings, report: Report, report_rel: str, manifest_rel: str,
                *, pushed: bool = False, not_pushed: str = "",
                document: Mapping[str, object] | None = None) -> dict[str, str]:
    """The step outputs (action.yml declares exactly these); `document` is the JSON report."""
    return {
        "consistent": "true" if report.consistent else "false",
        "products": "" if report.products is None else str(report.products),
        "binary-targets": "" if report.binary_targets is None else str(report.binary_targets),
        "report": report_rel,
        "manifest": manifest_rel,
        "branch": settings.branch or "",
        "pushed": "true" if pushed else "false",
        "not-pushed-reason": "" if pushed else not_pushed,
        "json": json_output(document, report_rel) if document is not None else "",
        "attestation-subjects": "",  # set by `with_subjects` when zips were built
        "check-run-id": "",  # set by `deliver` once the check run exists
    }


def outputs_without_manifest(consistent: bool, report_rel: str, *, branch: str = "",
                             not_pushed: str = "",
                             document: Mapping[str, object] | None = None) -> dict[str, str]:
    """The step outputs of a mode that renders no manifest and pushes nothing (audit,
    preflight); `json` only when there is a JSON report (`document`)."""
    values = {
        "consistent": "true" if consistent else "false",
        "products": "",
        "binary-targets": "",
        "report": report_rel,
        "manifest": "",
        "branch": branch,
        "pushed": "false",
        "not-pushed-reason": not_pushed,
        "attestation-subjects": "",
    }
    if document is not None:
        values["json"] = json_output(document, report_rel)
    return values


def json_output(document: Mapping[str, object], report_rel: str) -> str:
    """The JSON report on one line, or past JSON_OUTPUT_MAX_BYTES a stand-in with
    `truncated: true`, its size, the verdict and the report file's path."""
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
    size = len(text.encode("utf-8"))
    if size <= JSON_OUTPUT_MAX_BYTES:
        return text
    keep = ("schema_version", "kind", "tool", "consistent", "version")
    stand_in = {key: document[key] for key in keep if key in document}
    stand_in.update(truncated=True, bytes=size, report=report_rel)
    return json.dumps(stand_in, ensure_ascii=False, separators=(",", ":"))


def relative(name: str) -> str:
    """A file of OUT_DIR as the outputs name it (relative to the workspace)."""
    return f"{OUT_DIR}/{name}"


def with_subjects(delivery: Delivery, settings: ActionSettings,
                  subjects: Sequence[tuple[str, str]]) -> Delivery:
    """The attestation subjects (core.subjects) as a file of OUT_DIR, the output naming it,
    and the job summary's `gh attestation verify` command for this release; none: as is."""
    if not subjects:
        return delivery
    name = relative(SUBJECTS_FILE)
    section = "\n".join(summary_lines(settings.event.repository, subjects, name))
    brief = delivery.brief + "\n" + section if delivery.brief is not None else None
    return replace(delivery, files=(*delivery.files,
                                    (SUBJECTS_FILE, subjects_text(subjects).encode())),
                   outputs={**delivery.outputs, "attestation-subjects": name},
                   markdown=delivery.markdown + "\n" + section, brief=brief)
