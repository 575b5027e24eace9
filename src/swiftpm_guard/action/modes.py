"""The action's modes: settings → a job's request → the job → a `Delivery` of its result.

`check` (also what `publish` does where it may not push: code under review never publishes),
`publish` (the same sources, then the publish job against the repository's remote),
`preflight` (is the version's branch still free) and `audit` (the published branches).
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from swiftpm_guard.action.delivery import (
    OUT_DIR,
    Delivery,
    deliver,
    exit_for,
    outputs_for,
    outputs_without_manifest,
    relative,
    with_subjects,
)
from swiftpm_guard.action.settings import ActionSettings, spoken
from swiftpm_guard.console import command
from swiftpm_guard.core.manifest_files import manifest_of
from swiftpm_guard.core.model import Annotation, Phrase, Severity
from swiftpm_guard.core.names import manifest_path
from swiftpm_guard.core.subjects import subject_lines, subjects_of
from swiftpm_guard.core.urls import UrlSettings
from swiftpm_guard.errors import InfrastructureError, UsageError
from swiftpm_guard.jobs.adapters import Adapters
from swiftpm_guard.jobs.check import CheckRequest, CheckResult, RunArtifact, check
from swiftpm_guard.report import check as check_report
from swiftpm_guard.report.check_run import (
    annotation_of,
    assemble,
    audit_output,
    build_output,
    conclusion_for,
)
from swiftpm_guard.report.check_run import note as note_block
from swiftpm_guard.report.gist import Reading
from swiftpm_guard.sinks import actions_io

if TYPE_CHECKING:
    from swiftpm_guard.jobs.publish import PublishRequest, PublishResult
    from swiftpm_guard.jobs.remote import RepositoryRemote
    from swiftpm_guard.sources.refs import Upstream


def check_request(settings: ActionSettings) -> CheckRequest:
    """The check these inputs describe: sources in the workspace, the template from the
    template ref, or, on the template branch itself, the workspace's template against the
    framework lists of the release lines (default: the default branch)."""
    from swiftpm_guard.jobs.resolve import ResolveSettings

    holds = settings.workspace_holds_template
    event = settings.event
    run = settings.run_id
    return CheckRequest(
        templates=(settings.template,),
        version=settings.version,
        root=settings.workspace,
        confined=True,
        template_ref=None if holds else settings.template_ref,
        artifacts=settings.artifacts,
        checksums=settings.checksums,
        frameworks=(settings.frameworks,) if settings.frameworks else (),
        frameworks_from=settings.frameworks_from,
        workflows_from_refs=holds,
        frameworks_refs=settings.frameworks_refs,
        active_refs=settings.active_refs,
        branch_prefix=settings.branch_prefix,
        run_artifact=RunArtifact(run, settings.artifact_name or "") if run is not None else None,
        workspace_branch=event.branch,
        base_ref=event.pr_base_ref if event.is_pull_request else None,
        default_branch=event.default_branch,
        debug_suffix=settings.debug_suffix,
        swift=settings.swift,
        accept_static=settings.accept_static,
        urls=UrlSettings(base_url=settings.base_url, verify_zips=settings.verify_zips,
                         proxy=settings.proxy),
        verify_urls=settings.verify_urls,
        resolve=ResolveSettings(swift=settings.resolve_swift) if settings.resolve_swift else None,
        download_limit=settings.download_limit,
        upstream=_upstream(settings),
    )


def run(settings: ActionSettings, adapters: Adapters) -> int:
    if settings.mode == "audit":
        return run_audit(settings, adapters)
    if settings.mode == "preflight":
        return run_preflight(settings, adapters)
    request = check_request(settings)
    if settings.mode != "publish":
        return run_check(settings, adapters, request)
    from swiftpm_guard.jobs.publish import refusal

    event = settings.event
    why = refusal(request, adapters, event=event.name, ref=event.ref,
                  publish_refs=settings.publish_refs, triggered_by=event.run_event,
                  from_fork=event.run_from_fork)
    if why is not None:
        # Code under review is not a release, nor is a branch publish-refs leaves out. A
        # template PR's own template is in the workspace, which only the check reads: so
        # this is the check, said plainly.
        command(actions_io.command("notice", spoken(why), {"title": "swiftpm-guard"}))
        return run_check(settings, adapters, request, notes=(note_block(why),),
                         not_pushed=why)
    return run_publish(settings, adapters, request)


# -- check ---------------------------------------------------------------------------------------


def run_check(settings: ActionSettings, adapters: Adapters, request: CheckRequest,
              notes: Sequence[str] = (), not_pushed: str = "") -> int:
    """The check; `not_pushed` says why a publish that was asked for only checked."""
    result = check(request, adapters)
    report = result.report
    files = [("report.json", check_report.to_json(report).encode())]
    manifests = _named_files(result.complete_manifests())
    files += [(name, text.encode()) for name, text in manifests]
    manifest = manifests[0][1] if manifests else None
    sections = _sections(settings, result)
    reading = reading_of(settings, result)
    suffix = settings.debug_suffix
    markdown = "\n".join([*notes, check_report.to_markdown(report, suffix, reading=reading),
                          *sections])
    brief = "\n".join([*notes, check_report.to_markdown(report, suffix, sound_rows=False,
                                                        reading=reading), *sections])
    conclusion = conclusion_for(report, pull_request=settings.event.is_pull_request,
                                pr_conclusion=settings.pr_conclusion, existing=result.existing)
    outputs = outputs_for(settings, report, relative("report.json"),
                          relative("Package.swift") if manifest is not None else "",
                          not_pushed=not_pushed, document=check_report.to_dict(report))
    every, placed = logs(result, suffix)
    job_level, job_level_log = job_level_of(result, reading)
    subjects = (subjects_of(result.built, report.version, result.rendered)
                if request.builds and report.consistent else [])
    return deliver(settings, adapters, with_subjects(Delivery(
        files=tuple(files), log=every, annotated_log=placed,
        job_level=job_level, job_level_log=job_level_log,
        output=build_output(report, markdown, conclusion=conclusion,
                            locate=result.placement.of, reading=reading),
        markdown=markdown, brief=brief, outputs=outputs,
        last=check_report.verdict(report) + f" (conclusion: {conclusion})",
        exit_code=exit_for(settings, report.consistent, conclusion),
        reads=result.sources.reads,
        gist="\n".join(check_report.problems_markdown(report.findings, reading)),
    ), settings, subjects))


def reading_of(settings: ActionSettings, result: CheckResult) -> Reading:
    return Reading(builder=result.builder, debug_suffix=settings.debug_suffix,
                   existing=result.existing, base=result.base,
                   elsewhere=result.placement.elsewhere,
                   retired=check_report.retired(result.report.findings, result.lines))


def logs(result: CheckResult, suffix: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Console lines of the findings, errors first, a line that no longer publishes in one
    line: (every line, those of annotated findings, left out when workflow commands carry
    the annotations)."""
    of, elsewhere = result.placement.of, result.placement.elsewhere
    old = check_report.retired(result.report.findings, result.lines)
    shown = [f for f in check_report.ranked(result.report.findings) if f not in old]
    placed = tuple(line for f in shown if of(f) is not None
                   for line in check_report.finding_lines(f))
    every = [line for f in shown for line in check_report.finding_lines(
        f, None if of(f) is not None else elsewhere.get(f))]
    lines = check_report.retired_lines(result.report.findings, result.lines, suffix)
    return (*every, *lines), placed


def job_level_of(result: CheckResult, reading: Reading
                 ) -> tuple[tuple[Annotation, ...], tuple[str, ...]]:
    """The errors on no line of the checked commit as job-level annotations (no file), and
    their log lines."""
    of, elsewhere = result.placement.of, result.placement.elsewhere
    errors = [f for f in reading.shown(result.report.findings)
              if of(f) is None and f.severity is Severity.ERROR]
    return (tuple(annotation_of(f, "", 0, existing=f in reading.existing) for f in errors),
            tuple(line for f in errors
                  for line in check_report.finding_lines(f, elsewhere.get(f))))


def _named_files(manifests: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The first manifest as `Package.swift` (the output `manifest`), the others by name."""
    return [("Package.swift" if index == 0 else posixpath.basename(path), text)
            for index, (path, text) in enumerate(manifests)]


def _sections(settings: ActionSettings, result: CheckResult) -> list[str]:
    sections = []
    if result.lines:
        sections.append(check_report.matrix_markdown(result.lines, settings.debug_suffix))
    if result.placement.template_side:
        sections.append(check_report.template_side_markdown(result.placement.moved,
                                                            settings.template_ref))
    if settings.version is not None and result.rendered:
        from swiftpm_guard.report.publish import draft_lines

        drafts = [(manifest_of(r.template.path), r.text) for r in result.rendered]
        sections.append("\n".join(["#### Draft manifest (not published by this run)", "",
                                   *draft_lines(drafts, "draft")]))
    return sections


# -- publish -------------------------------------------------------------------------------------


def _remote(settings: ActionSettings, adapters: Adapters) -> RepositoryRemote:
    from swiftpm_guard.jobs.remote import own_clone_remote, repository_remote

    if adapters.own_clone:
        return own_clone_remote(settings.workspace, adapters.git, adapters.log)
    return repository_remote(server_url=settings.server_url,
                             repository=settings.event.repository, token=settings.token,
                             push_token=settings.push_token, log=adapters.log)


def _upstream(settings: ActionSettings) -> Upstream:
    from swiftpm_guard.jobs.remote import upstream_of

    return upstream_of(server_url=settings.server_url, repository=settings.event.repository,
                       token=settings.token, push_token=settings.push_token,
                       head=settings.event.sha)


def publish_request(settings: ActionSettings, remote: RepositoryRemote,
                    check: CheckRequest) -> PublishRequest:
    """The publish request these inputs describe (validated on construction: exit 2)."""
    from swiftpm_guard.jobs.publish import PublishRequest

    try:
        manifest_path(settings.template)
    except UsageError:
        raise UsageError(
            f"input template {settings.template!r} must end with '.template' or '.j2' to be "
            "published (the suffix is dropped to name the manifest)"
        ) from None
    return PublishRequest(
        check=check,
        repo=remote.url,
        template_ref=settings.template_ref,
        branch_prefix=settings.branch_prefix,
        dry_run=settings.dry_run,
        allow_overwrite=settings.allow_overwrite,
        author=settings.author,
        token=remote.token,
        token_source=remote.token_source,
        event=settings.event.name,
        triggered_by=settings.event.run_event,
        from_fork=settings.event.run_from_fork,
        # What consumers put in `.package(url:)`: the repository as GitHub serves it, whatever
        # URL the checkout used.
        package_url=f"{settings.server_url}/{settings.event.repository}.git",
        exclude=settings.exclude_paths,
        update=settings.update,
    )


def run_publish(settings: ActionSettings, adapters: Adapters, check: CheckRequest) -> int:
    from swiftpm_guard.jobs.publish import publish
    from swiftpm_guard.report import publish as publish_report
    from swiftpm_guard.sinks.files import prepare_output_dir
    remote = _remote(settings, adapters)
    if settings.allow_overwrite:
        command(actions_io.command(
            "warning",
            "allow-overwrite is on: an existing branch of this version will be replaced (only "
            "if it is still at the commit seen first; never a blind force)",
            {"title": "swiftpm-guard"}))
    request = publish_request(settings, remote, check)

    def ready() -> None:
        # Every place the run writes to is checked before anything can be pushed: once the
        # branch is out, a report that cannot be written must not hide that it is.
        prepare_output_dir(settings.workspace, OUT_DIR, append_to=[
            (settings.summary_file, "job summary"), (settings.output_file, "step outputs file")])

    try:
        result = publish(request, adapters, ready=ready)
    except InfrastructureError as error:
        if settings.summary_file is not None:
            wants = any(s in str(error) for s in ("403", "401", "Authentication", "token"))
            actions_io.append_summary(settings.summary_file, publish_report.failed_summary(
                spoken(str(error)), wants_credentials=wants))
        raise
    if result.pushed and result.commit:
        for line in actions_io.report_push(
                settings.output_file, settings.summary_file, branch=result.branch,
                commit=result.commit, remote=remote.url,
                summary=publish_report.pushed_summary(result.branch, result.commit,
                                                      remote.url)):
            command(line)
    return _deliver_publish(settings, adapters, result, remote)


def _deliver_publish(settings: ActionSettings, adapters: Adapters, result: PublishResult,
                     remote: RepositoryRemote) -> int:
    from swiftpm_guard.report import publish as publish_report

    report = result.report
    document = {**check_report.to_dict(report), "publish": result.as_dict()}
    files = [("report.json", (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode())]
    if report.consistent and result.manifests:
        files += [(name, text.encode()) for name, text in _named_files(result.manifests)]
    notes = [publish_report.dry_run_note(remote.url)] if settings.dry_run else []
    section = publish_report.publish_section(
        branch=result.branch, pushed=result.pushed, commit=result.commit, remote=remote.url,
        skipped=result.skipped,
        replaced=result.remote_commit if result.overwritten else None,
        updated_from=result.updated_from, excluded=result.excluded, dry_run=settings.dry_run,
        diff=publish_report.diff_lines(result.diff, result.diff_note, settings.debug_suffix),
        manifests=result.manifests, snippet=result.snippet,
        proof=result.proof.shown() if result.proof else None)
    suffix = settings.debug_suffix
    reading = reading_of(settings, result.checked)
    markdown = "\n".join([*notes, check_report.to_markdown(report, suffix, reading=reading),
                          section])
    brief = "\n".join([*notes, check_report.to_markdown(report, suffix, sound_rows=False,
                                                        reading=reading), section])
    conclusion = conclusion_for(report, pull_request=False, pr_conclusion=settings.pr_conclusion)
    read = publish_report.read_from_ref(settings.template, settings.template_ref,
                                        result.template_commit, remote.where)
    state = f"pushed {result.branch}" if result.pushed else f"not pushed: {result.skipped}"
    compared = (publish_report.diff_lines(result.diff, result.diff_note, settings.debug_suffix)
                if settings.dry_run else [])
    every, placed = logs(result.checked, suffix)
    job_level, job_level_log = job_level_of(result.checked, reading)
    subjects = (subject_lines(result.checked.built.values(), report.version, result.manifests)
                if report.consistent else [])
    return deliver(settings, adapters, with_subjects(Delivery(
        files=tuple(files), log=(*every, *compared), annotated_log=placed,
        job_level=job_level, job_level_log=job_level_log,
        output=build_output(report, markdown, conclusion=conclusion,
                            locate=result.checked.placement.of, reading=reading),
        markdown=markdown, brief=brief,
        outputs=outputs_for(settings, report, relative("report.json"),
                            relative("Package.swift") if len(files) > 1 else "",
                            pushed=result.pushed, not_pushed=result.skipped or "",
                            document=document),
        last=f"{check_report.verdict(report)} ({state})",
        exit_code=exit_for(settings, report.consistent, conclusion),
        reads=(read, *result.checked.sources.reads),
    ), settings, subjects))


# -- preflight and audit -----------------------------------------------------------------------


def run_preflight(settings: ActionSettings, adapters: Adapters) -> int:
    """Is `<branch-prefix><version>` still free, and (input `verify-absent`) are the version's
    zip URLs free too? A release workflow runs it before it uploads anything."""
    from swiftpm_guard.jobs.preflight import PreflightRequest, preflight
    from swiftpm_guard.report import publish as publish_report
    assert settings.version is not None  # ActionSettings requires it in this mode
    remote = _remote(settings, adapters)
    urls = (UrlSettings(base_url=settings.base_url, absent_on_403=settings.absent_on_403,
                        proxy=settings.proxy)
            if settings.verify_absent else None)
    result = preflight(PreflightRequest(
        version=settings.version, repo=remote.url, branch_prefix=settings.branch_prefix,
        token=remote.token, token_source=remote.token_source, verify_absent=urls,
        template_ref=settings.template_ref, templates=(settings.template,)), adapters)
    document = result.as_dict()
    markdown = publish_report.preflight_markdown(result.branch, remote.url, result.findings)
    conclusion = "failure" if result.findings else "success"
    title = f"{result.branch} is free" if not result.findings else f"{result.branch} is taken"
    return deliver(settings, adapters, Delivery(
        files=(("preflight.json", (json.dumps(document, indent=2) + "\n").encode()),),
        log=tuple(publish_report.preflight_log(result.findings)),
        output=assemble(conclusion=conclusion, title=title, markdown=markdown, text=None,
                        annotations=(), cut=[]),
        markdown=markdown, brief=None,
        outputs=outputs_without_manifest(not result.findings, relative("preflight.json"),
                                         branch=result.branch,
                                         not_pushed="preflight only checks"),
        last=f"swiftpm-guard preflight: {title}",
        exit_code=result.exit_code,
        reads=(Phrase.of("", remote.url, f" ({remote.where})"),),
        quiet=None if result.findings else (
            "the version is free, so the job's check run (its check or publish step's) keeps "
            "its title"),
    ))


def run_audit(settings: ActionSettings, adapters: Adapters) -> int:
    """Judge every published branch matching input `branches` and report it like a check."""
    from swiftpm_guard.core.audit import AuditOptions
    from swiftpm_guard.jobs.audit import audit_repository, with_protection
    from swiftpm_guard.report import audit as audit_report
    remote = _remote(settings, adapters)
    report = audit_repository(
        remote.url, settings.branches, AuditOptions(branch_prefix=settings.branch_prefix),
        urls=UrlSettings(base_url=settings.base_url, verify_zips=settings.verify_zips,
                         proxy=settings.proxy)
        if settings.verify_urls else None,
        git=adapters.git, git_config=remote.git_config())
    # The API session is the event repository's, the one `_remote` reads the branches of.
    report = with_protection(report, adapters.github)
    assert report.protection is not None  # with_protection always says something
    if report.protection.unknown is not None or report.protection.missing:
        command(actions_io.command(
            "notice", audit_report.protection_sentence(report.protection),
            {"title": "swiftpm-guard: branch protection"}))
    tips = [line for line in (audit_report.tip_line(b) for b in report.branches)
            if line is not None]
    findings = [audit_report.console_line(b.branch, f) for b in report.branches
                for f in b.findings]
    markdown = audit_report.to_markdown(report)
    conclusion = "success"
    if not report.consistent:
        conclusion = settings.pr_conclusion if settings.event.is_pull_request else "failure"
    return deliver(settings, adapters, Delivery(
        files=(("audit.json", audit_report.to_json(report).encode()),),
        log=(*tips, *findings, *audit_report.repair_lines(report)),
        output=audit_output(report, markdown, conclusion=conclusion),
        markdown=markdown, brief=audit_report.to_markdown(report, sound_groups=False),
        outputs=outputs_without_manifest(report.consistent, relative("audit.json"),
                                         document=audit_report.to_dict(report)),
        last=f"{audit_report.verdict(report)} (conclusion: {conclusion})",
        exit_code=exit_for(settings, report.consistent, conclusion),
        reads=(Phrase.of("branches ", settings.branches, " of ", remote.url,
                         f" ({remote.where})"),),
    ))
