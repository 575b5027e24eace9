"""The action's `publish` mode: the check's own sources, then `publish()` against the repository.

Sources are read exactly as `check` reads them (`action.gather_sources`: the workspace, other
refs of the repository, a run's artifact downloaded and unpacked into a scratch folder), shown
by repository path so annotations land on workflow lines, and handed to `publish` as
`Settings.read`. The template and its stubs are read by `publish` from `template-ref` on the
remote, so the commit is built on exactly the tree that was checked. The remote and the token
come from `action.remote`; the commit identity from input `author`.

Nothing is pushed on any error finding, on `dry-run`, or on a pull-request or merge-queue event
(those never get here: `action.run` checks them instead). The report, the check run, the job
summary and the outputs are those of `check`, plus what publishing did.

Exit codes: 0 pushed or a clean dry run, 1 findings (an existing branch and a lost race
included), 2 bad inputs, 3 git, the remote or the API failed.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from swiftpm_guard.action.check import url_settings
from swiftpm_guard.action.delivery import note, post
from swiftpm_guard.action.gather import Loaded, gather_sources
from swiftpm_guard.action.outputs import (
    OUT_DIR,
    exit_for,
    locator,
    log_findings,
    out_folder,
    outputs_for,
)
from swiftpm_guard.action.remote import RepositoryRemote, repository_remote
from swiftpm_guard.action.settings import ActionSettings
from swiftpm_guard.core.git_names import manifest_path
from swiftpm_guard.core.package_diff import describe
from swiftpm_guard.errors import InfrastructureError, UsageError
from swiftpm_guard.infra.github import GitHubSession
from swiftpm_guard.jobs.check_request import CheckRequest, ReadSources
from swiftpm_guard.jobs.publish import publish
from swiftpm_guard.jobs.publish_request import PublishRequest, PublishResult
from swiftpm_guard.jobs.resolve import ResolveSettings
from swiftpm_guard.report import markdown as md
from swiftpm_guard.report.check import console_line, to_dict, to_markdown, verdict
from swiftpm_guard.report.check_run import build_output, conclusion_for
from swiftpm_guard.sinks import actions_io
from swiftpm_guard.sinks.files import prepare_output_dir, write_atomically


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _say(line: str) -> None:
    print(line, flush=True)


def request_for(
    settings: ActionSettings, remote: RepositoryRemote, loaded: Loaded
) -> PublishRequest:
    """The publish request these inputs describe (validated on construction: exit 2)."""
    assert settings.version is not None  # ActionSettings requires it in publish mode
    try:
        manifest_path(settings.template)
    except UsageError:
        raise UsageError(
            f"input template {settings.template!r} must end with '.template' or '.j2' to be "
            "published (the suffix is dropped to name the manifest)"
        ) from None
    checked = CheckRequest(
        templates=(Path(settings.template),),  # a path inside template-ref
        version=settings.version,
        debug_suffix=settings.debug_suffix,
        swift=settings.swift,
        read=ReadSources(tuple(loaded.artifacts), tuple(loaded.findings)),
    )
    return PublishRequest(
        settings=checked,
        repo=remote.url,
        template_ref=settings.template_ref,
        branch_prefix=settings.branch_prefix,
        dry_run=settings.dry_run,
        allow_overwrite=settings.allow_overwrite,
        author=settings.author,
        token=remote.token,
        token_source=remote.token_source,
        event=settings.event.name,
        # What consumers put in `.package(url:)`: the repository as GitHub serves it, whatever
        # URL the checkout used.
        package_url=f"{settings.server_url}/{settings.event.repository}.git",
        verify_urls=url_settings(settings) if settings.verify_urls else None,
        resolve=ResolveSettings(swift=settings.resolve_swift) if settings.resolve_swift else None,
        exclude=settings.exclude_paths,
        update=settings.update,
    )


def publish_section(result: PublishResult, remote: RepositoryRemote, dry_run: bool) -> str:
    """What publishing did, for the summary and the check run: state, diff, manifest, snippet."""
    if result.pushed:
        state = (f"Pushed {md.code(result.branch)} at {md.code(str(result.commit))} to "
                 f"{md.code(remote.url)}.")
        if result.overwritten and result.remote_commit:
            state += f" It replaced {md.code(result.remote_commit)} (allow-overwrite)."
        if result.updated_from:
            state += f" It is a new commit on top of {md.code(result.updated_from)} (update)."
    else:
        state = f"{md.code(result.branch)} was **not pushed**: {md.text(str(result.skipped))}."
    lines = ["#### Publish", "", state, ""]
    if result.excluded:
        lines += ["Left out of the published tree (input `exclude-paths`): "
                  + ", ".join(md.code(p) for p in result.excluded), ""]
    if dry_run:
        lines += ["Products and binary targets against the newest branch of this version:", ""]
        shown = describe(result.diff) if result.diff is not None else [str(result.diff_note)]
        lines += [*md.fence("\n".join(shown)), ""]
        for path, text in result.manifests:
            lines += [
                f"<details><summary>{md.html(path)} (dry run)</summary>",
                "",
                *md.fence(text, "swift"),
                "</details>",
                "",
            ]
    if result.pushed or dry_run:
        lines += ["Consumers add:", "", *md.fence(result.snippet, "swift"), ""]
    return "\n".join(lines)


def document_of(result: PublishResult) -> dict[str, object]:
    """The JSON report: the check's, with a `publish` object (as the CLI's --json)."""
    return {**to_dict(result.report), "publish": result.as_dict()}


def _write(settings: ActionSettings, result: PublishResult) -> tuple[str, str]:
    """report.json (with a `publish` object, as the CLI's --json); the manifest when sound."""
    folder = out_folder(settings)
    report_rel = f"{OUT_DIR}/report.json"
    document = document_of(result)
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    files = [(folder / "report.json", text.encode())]
    manifest_rel = ""
    if result.report.consistent and result.manifests:
        manifest_rel = f"{OUT_DIR}/Package.swift"
        files.append((folder / "Package.swift", result.manifests[0][1].encode()))
    write_atomically(files)
    return report_rel, manifest_rel


def _failed(settings: ActionSettings, error: InfrastructureError) -> None:
    """A failed push or fetch still leaves a line in the job summary saying why."""
    if settings.summary_file is None:
        return
    hint = ""
    if any(s in str(error) for s in ("403", "401", "Authentication", "token")):
        hint = (
            "\n\nThe remote wants credentials: the token (input `push-token`, else "
            "`github-token`) goes only to "
            "the host GITHUB_SERVER_URL names, and pushing needs `permissions: contents: write`."
        )
    actions_io.append_summary(
        settings.summary_file,
        f"#### Publish\n\nFailed, nothing was pushed: {md.text(str(error))}{hint}\n",
    )


def run_publish(settings: ActionSettings, github: GitHubSession) -> int:
    remote = repository_remote(settings, _log)
    if settings.allow_overwrite:
        _say(
            actions_io.command(
                "warning",
                "allow-overwrite is on: an existing branch of this version will be replaced "
                "(only if it is still at the commit seen first; never a blind force)",
                {"title": "swiftpm-guard"},
            )
        )
    with tempfile.TemporaryDirectory(prefix="swiftpm-guard-") as scratch:
        loaded = Loaded()
        gather_sources(settings, github, Path(scratch), loaded)
        request = request_for(settings, remote, loaded)
        # Every place the run writes to is checked before anything can be pushed: once the
        # branch is out, a report that cannot be written must not hide that it is.
        prepare_output_dir(settings.workspace, OUT_DIR, append_to=[
            (settings.summary_file, "job summary"), (settings.output_file, "step outputs file")])
        try:
            result = publish(request, log=lambda line: _log(f"swiftpm-guard: {line}"))
        except InfrastructureError as error:
            _failed(settings, error)
            raise
    if result.pushed and result.commit:
        for line in actions_io.report_push(settings.output_file, settings.summary_file,
                                           branch=result.branch, commit=result.commit,
                                           remote=remote.url):
            _say(line)
    return _report(settings, github, result, remote, loaded)


def _report(settings: ActionSettings, github: GitHubSession, result: PublishResult,
            remote: RepositoryRemote, loaded: Loaded) -> int:
    """What publishing did, everywhere it is shown: files, log, check run, summary, outputs."""
    report = result.report
    report_rel, manifest_rel = _write(settings, result)
    log_findings([console_line(f) for f in report.findings])
    notes = [note(f"dry-run: nothing was pushed to {md.code(remote.url)}")] if settings.dry_run \
        else []
    section = publish_section(result, remote, settings.dry_run)
    markdown = "\n".join([*notes, to_markdown(report, settings.debug_suffix), section])
    brief = "\n".join(
        [*notes, to_markdown(report, settings.debug_suffix, sound_rows=False), section]
    )
    conclusion = conclusion_for(report, pull_request=False, pr_conclusion=settings.pr_conclusion)
    locate = locator(settings, settings.template, {settings.template, *loaded.ref_paths})
    output = build_output(report, markdown, conclusion=conclusion, locate=locate)
    read = [
        f"template {md.code(settings.template)} from {md.code(settings.template_ref)} at "
        f"{md.code(result.template_commit[:12])} ({md.text(remote.where)})",
        *loaded.notes,
    ]
    post(settings, github, output, markdown, read, brief=brief)
    if settings.output_file is not None:
        values = outputs_for(settings, report, report_rel, manifest_rel, pushed=result.pushed,
                             not_pushed=result.skipped or "", document=document_of(result))
        actions_io.write_outputs(settings.output_file, values)
    state = f"pushed {result.branch}" if result.pushed else f"not pushed: {result.skipped}"
    _say(f"{verdict(report)} ({state})")
    return exit_for(settings, report.consistent, conclusion)
