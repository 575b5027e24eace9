"""The GitHub Action: inputs and event → the CLI's own check → check run, summary, outputs.

Three modes share this glue: `check` (here), `publish` (action_publish: the same sources, then
`publish()` against the repository's remote) and `audit` (action_audit: the published
branches). Adapters are built here once and passed down: the GitHub client (made on first
use), the ref readers (the workspace clone, else the contents API). The verdict and the exit
code come from the report alone; the check run is best effort. When it cannot be written (fork
pull requests and Dependabot get a read-only token, or there is no token, or the API is down)
the same annotations go out as workflow commands and the job summary still tells everything.

Exit codes: 0 consistent (or a pull request whose conclusion is `neutral`; publish: pushed or a
clean dry run), 1 error findings (publish: also an existing branch or a lost race), 2 bad
inputs, 3 broken infrastructure (git, the API).
"""

from __future__ import annotations

import dataclasses
import os
import sys
import tempfile
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from swiftpm_guard.action_settings import ActionSettings, token_from
from swiftpm_guard.check_output import CheckRunOutput, build_output, conclusion_for
from swiftpm_guard.checks import CheckOptions
from swiftpm_guard.errors import GuardError, InputError, UsageError
from swiftpm_guard.model import Artifact, Finding, Report, Template
from swiftpm_guard.pipeline import Outcome, evaluate_loaded
from swiftpm_guard.placeholders import scan
from swiftpm_guard.publish import NO_PUSH_EVENTS
from swiftpm_guard.report import console_line, to_json, to_markdown, verdict
from swiftpm_guard.sinks import actions_io
from swiftpm_guard.sinks.files import write_atomically
from swiftpm_guard.sources.artifacts import (
    expand_declared,
    parse_name_list,
    read_checksums,
    scan_artifact_dir,
)
from swiftpm_guard.sources.files import read_text
from swiftpm_guard.sources.refs import (
    GitRef,
    RefReader,
    load_template_from_ref,
    read_workflow_from_ref,
)
from swiftpm_guard.sources.template import load_template
from swiftpm_guard.sources.workflow import read_workflow_frameworks

if TYPE_CHECKING:
    from github import Github
    from github.Repository import Repository

    from swiftpm_guard.github_client import RetryPolicy
    from swiftpm_guard.urls import UrlSettings

#: Reports and the manifest go here, inside the workspace, so later steps can use them.
OUT_DIR = ".swiftpm-guard"
#: Version used for the check when none is given (a PR compares names only).
_NO_VERSION = "0.0.0"
EXIT_OK, EXIT_FINDINGS = 0, 1


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _say(line: str) -> None:
    print(line, flush=True)


class GitHub:
    """The PyGithub client and repository handle, created on first use."""

    def __init__(self, settings: ActionSettings, policy: RetryPolicy) -> None:
        self.settings = settings
        self.policy = policy
        self._client: Github | None = None

    @property
    def client(self) -> Github:
        if self._client is None:
            from swiftpm_guard.github_client import connect

            self._client = connect(self.settings.api_url, self.settings.token, self.policy)
        return self._client

    @property
    def repo(self) -> Repository:
        return self.client.get_repo(self.settings.event.repository)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()


@dataclass
class Loaded:
    """Everything read for one run, before any check."""

    templates: list[Template] = field(default_factory=list)
    artifacts: list[Artifact] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    #: Paths in another ref of this repository (the template branch, `frameworks-ref`).
    ref_paths: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)


def _in_workspace(settings: ActionSettings, relative: str) -> Path:
    root = settings.workspace.resolve()
    path = (root / relative).resolve()
    if not path.is_relative_to(root):
        raise InputError("resolves outside the workspace (a symlink?)", file=relative)
    return path


def _reader(settings: ActionSettings, github: GitHub, ref: str) -> RefReader:
    from swiftpm_guard.sources.contents_api import ContentsRef

    return GitRef.open(settings.workspace, ref, _log) or ContentsRef(
        github.repo, ref, github.policy
    )


def _default_branch(settings: ActionSettings, github: GitHub) -> str:
    if settings.event.default_branch:
        return settings.event.default_branch
    from swiftpm_guard.github_client import call

    return call(
        github.policy, "read the repository's default branch", lambda: github.repo.default_branch
    )


def _load_template(settings: ActionSettings, github: GitHub, scratch: Path, loaded: Loaded) -> None:
    if settings.workspace_holds_template:
        path = _in_workspace(settings, settings.template)
        template, findings = load_template(path, display=settings.template)
        loaded.notes.append(
            f"template `{settings.template}` from the workspace (`{settings.event.branch}`)"
        )
    else:
        reader = _reader(settings, github, settings.template_ref)
        template, findings = load_template_from_ref(
            reader, settings.template, scratch / "template-ref"
        )
        loaded.ref_paths.add(template.path)
        loaded.ref_paths.update(stub.location.file for stub in template.stubs)
        loaded.notes.append(f"template `{settings.template}` from {reader.where}")
    loaded.templates.append(template)
    loaded.findings += findings


def _load_workflows(
    settings: ActionSettings, github: GitHub, scratch: Path, loaded: Loaded
) -> None:
    if not settings.frameworks_from:
        return
    if settings.workspace_holds_template:
        ref = settings.frameworks_ref or _default_branch(settings, github)
        reader = _reader(settings, github, ref)
        for spec in settings.frameworks_from:
            names = read_workflow_from_ref(reader, spec, scratch / "frameworks-ref")
            loaded.artifacts += expand_declared(names, settings.debug_suffix)
            loaded.ref_paths.add(spec.path)
            loaded.notes.append(f"framework list `{spec.path}` from {reader.where}")
        return
    for spec in settings.frameworks_from:
        _in_workspace(settings, spec.path)
        names = read_workflow_frameworks(spec, root=settings.workspace.resolve(), display=spec.path)
        loaded.artifacts += expand_declared(names, settings.debug_suffix)
        loaded.notes.append(f"framework list `{spec.path}` from the workspace")


def _load_run_artifact(
    settings: ActionSettings, github: GitHub, scratch: Path, loaded: Loaded
) -> None:
    if settings.run_id is None or settings.artifact_name is None:
        return
    from swiftpm_guard.sources.actions_api import download_artifact, extract_zips, find_artifact

    if not settings.token:
        raise UsageError("inputs run-id and artifact-name need a github-token to download")
    repository = settings.event.repository
    found = find_artifact(
        github.client, repository, settings.run_id, settings.artifact_name, github.policy
    )
    downloads = scratch / "downloads"
    downloads.mkdir()
    archive = download_artifact(
        settings.api_url, settings.token, repository, found, downloads, github.policy
    )
    display = f"{settings.artifact_name}@run-{settings.run_id}"
    folder = extract_zips(archive, scratch / "run-artifact", display=display)
    archive.unlink()
    artifacts, findings = scan_artifact_dir(folder, display=display)
    loaded.artifacts += artifacts
    loaded.findings += findings
    loaded.notes.append(
        f"{len(artifacts)} zips from artifact `{settings.artifact_name}` of run {settings.run_id}"
    )


def gather(settings: ActionSettings, github: GitHub, scratch: Path) -> Loaded:
    """Read the template and every source the inputs name; raises only for bad input."""
    loaded = Loaded()
    _load_template(settings, github, scratch, loaded)
    gather_sources(settings, github, scratch, loaded)
    return loaded


def gather_sources(settings: ActionSettings, github: GitHub, scratch: Path, loaded: Loaded) -> None:
    """Every artifact source the inputs name (not the template), shown by repository path.

    A run's artifact is downloaded and unpacked under `scratch`; its checksums are values in
    `loaded` by the time this returns.
    """
    _load_workflows(settings, github, scratch, loaded)
    for relative in settings.artifacts:
        artifacts, findings = scan_artifact_dir(_in_workspace(settings, relative), display=relative)
        loaded.artifacts += artifacts
        loaded.findings += findings
    for relative in settings.checksums:
        loaded.artifacts += read_checksums(_in_workspace(settings, relative), display=relative)
    if settings.frameworks:
        spec = settings.frameworks
        if spec.startswith("@"):
            text = read_text(
                _in_workspace(settings, spec[1:]),
                display=spec[1:],
                max_bytes=1024 * 1024,
                what="framework list",
            )
            names = parse_name_list(text, file=spec[1:])
        else:
            names = parse_name_list(spec, file="frameworks input")
        if not names:
            raise InputError("no framework names given", file=spec.lstrip("@"))
        loaded.artifacts += expand_declared(names, settings.debug_suffix)
    _load_run_artifact(settings, github, scratch, loaded)


def locator(
    settings: ActionSettings, anchor: str, ref_paths: set[str]
) -> Callable[[Finding], tuple[str, int]]:
    """Repository path and line for an annotation; findings elsewhere sit on `anchor` (the
    template's path)."""
    root = settings.workspace.resolve()

    def locate(finding: Finding) -> tuple[str, int]:
        file = finding.file
        if file and (file in ref_paths or _exists_in(root, file)):
            return file, finding.line or 1
        return anchor, 1

    return locate


def _exists_in(root: Path, relative: str) -> bool:
    if relative.startswith("/") or ".." in Path(relative).parts:
        return False
    return (root / relative).exists()


def out_folder(settings: ActionSettings) -> Path:
    """`.swiftpm-guard/` in the workspace, created; refused when it is not a plain folder."""
    folder = settings.workspace / OUT_DIR
    try:
        folder.mkdir(exist_ok=True)
    except OSError as error:
        raise InputError(
            f"cannot create the output folder: {error.strerror}", file=OUT_DIR
        ) from None
    if folder.is_symlink() or not folder.is_dir():
        # A pull request could commit `.swiftpm-guard` as a link to somewhere else.
        raise InputError("exists in the workspace and is not a plain folder", file=OUT_DIR)
    return folder


def _write_files(settings: ActionSettings, outcome: Outcome) -> tuple[str, str]:
    """report.json always; Package.swift when consistent and every checksum was known."""
    out_folder(settings)
    report_rel = f"{OUT_DIR}/report.json"
    files = [(settings.workspace / report_rel, to_json(outcome.report).encode())]
    manifest_rel = ""
    rendered = outcome.rendered[0] if outcome.rendered else None
    complete = (
        rendered is not None
        and settings.version is not None
        and not any(t.kind == "checksum" for t in scan(rendered.text))
    )
    if outcome.report.consistent and complete and rendered is not None:
        manifest_rel = f"{OUT_DIR}/Package.swift"
        files.append((settings.workspace / manifest_rel, rendered.text.encode()))
    write_atomically(files)
    return report_rel, manifest_rel


def deliver(settings: ActionSettings, github: GitHub, output: CheckRunOutput) -> list[str]:
    """The check run, else workflow commands for what it could not carry; summary notes."""
    reason: str | None = None
    posted = 0
    expected = True  # a read-only token is normal on forks: a notice, not a warning
    if settings.dry_run:
        reason = "dry-run: no check run was created"
    elif not settings.token:
        reason = "no github-token: no check run was created"
    else:
        from swiftpm_guard.github_client import GitHubApiError
        from swiftpm_guard.sinks.checks_api import CheckRunTarget, publish_check_run

        target = CheckRunTarget(
            repository=settings.event.repository,
            name=settings.check_name,
            head_sha=settings.event.head_sha,
            details_url=settings.details_url,
        )
        try:
            published = publish_check_run(github.client, target, output, github.policy)
        except GitHubApiError as error:
            expected = error.not_writable
            reason = (
                "the token cannot write check runs (fork pull requests and Dependabot "
                "get a read-only token)"
                if error.not_writable
                else "the check run could not be created"
            ) + f": {error}"
        else:
            posted = published.annotations_posted
            if published.error:
                expected = False
                reason = f"only {posted} annotations reached the check run: {published.error}"
    notes: list[str] = []
    if reason is None:
        return notes
    _say(
        actions_io.command(
            "notice" if expected else "warning",
            f"{reason}; annotating with workflow commands instead",
            {"title": "swiftpm-guard"},
        )
    )
    rest = output.annotations[posted:]
    for line in actions_io.annotation_commands(rest):
        _say(line)
    notes.append(
        f"> [!NOTE]\n> {reason}; {len(rest)} annotations were written as workflow commands instead."
    )
    return notes


def exit_code(settings: ActionSettings, outcome: Outcome, conclusion: str) -> int:
    return exit_for(settings, outcome.report.consistent, conclusion)


def exit_for(settings: ActionSettings, consistent: bool, conclusion: str) -> int:
    if consistent:
        return EXIT_OK
    if settings.event.is_pull_request and conclusion == "neutral":
        return EXIT_OK
    return EXIT_FINDINGS


def post(
    settings: ActionSettings,
    github: GitHub,
    output: CheckRunOutput,
    markdown: str,
    read: Sequence[str] = (),
) -> None:
    """The check run (or workflow commands), then the job summary; `read` says what was read."""
    notes = deliver(settings, github, output)
    if settings.summary_file is not None:
        sources = "Read: " + "; ".join(read) + "." if read else ""
        summary = "\n".join([markdown, *(f"> {n}" for n in output.cut), *notes, "", sources, ""])
        actions_io.append_summary(settings.summary_file, summary)


def note(text: str) -> str:
    """A GitHub Markdown note block (summary and check run)."""
    return f"> [!NOTE]\n> {text}\n"


def run(settings: ActionSettings, policy: RetryPolicy) -> int:
    github = GitHub(settings, policy.for_run())
    try:
        if settings.mode == "audit":
            from swiftpm_guard.action_audit import run_audit

            return run_audit(settings, github)
        if settings.mode == "publish" and settings.event.name in NO_PUSH_EVENTS:
            # Code under review is not a release. A template PR's own template is in the
            # workspace, which only the check reads: so this is the check, said plainly.
            why = (
                f"mode publish on a `{settings.event.name}` event: checked only, nothing "
                "is pushed (pull requests and merge queues never publish)"
            )
            _say(actions_io.command("notice", why, {"title": "swiftpm-guard"}))
            return _check(settings, github, notes=(note(why),))
        if settings.mode == "publish":
            from swiftpm_guard.action_publish import run_publish

            return run_publish(settings, github)
        return _check(settings, github)
    finally:
        github.close()


def _evaluate(settings: ActionSettings, github: GitHub) -> tuple[Outcome, Loaded]:
    options = CheckOptions(
        version=settings.version or _NO_VERSION, debug_suffix=settings.debug_suffix
    )
    with tempfile.TemporaryDirectory(prefix="swiftpm-guard-") as scratch:
        loaded = gather(settings, github, Path(scratch))
        outcome = evaluate_loaded(
            loaded.templates, loaded.artifacts, loaded.findings, options, swift=settings.swift
        )
    if settings.verify_urls and settings.version is not None:
        outcome = with_hosted(outcome, settings, settings.version)
    if settings.version is None:
        shown = dataclasses.replace(outcome.report, version="(no version input)")
        outcome = dataclasses.replace(outcome, report=shown)
    return outcome, loaded


def with_hosted(outcome: Outcome, settings: ActionSettings, version: str) -> Outcome:
    """`verify-urls`: every zip the manifest names must be served (with its checksum, when
    known), fetched the way SwiftPM will."""
    from swiftpm_guard.sources.hosted import verify_hosted
    from swiftpm_guard.urls import zips_of_rendered

    options = url_settings(settings)
    zips = zips_of_rendered(outcome.rendered, outcome.built, version, options)
    _log(f"swiftpm-guard: verify-urls: fetching {len(zips)} zip URLs")
    found = verify_hosted(zips, options)
    report = dataclasses.replace(outcome.report, findings=(*outcome.report.findings, *found))
    return dataclasses.replace(outcome, report=report)


def url_settings(settings: ActionSettings) -> UrlSettings:
    """Zip URLs: the template's `let url` is the base unless input base-url says otherwise."""
    from swiftpm_guard.urls import UrlSettings

    return UrlSettings(base_url=settings.base_url)


def outputs_for(
    settings: ActionSettings,
    report: Report,
    report_rel: str,
    manifest_rel: str,
    *,
    pushed: bool = False,
) -> dict[str, str]:
    """The step outputs (action.yml declares exactly these)."""
    return {
        "consistent": "true" if report.consistent else "false",
        "products": "" if report.products is None else str(report.products),
        "binary-targets": "" if report.binary_targets is None else str(report.binary_targets),
        "report": report_rel,
        "manifest": manifest_rel,
        "branch": settings.branch or "",
        "pushed": "true" if pushed else "false",
    }


def log_findings(lines: Sequence[str]) -> None:
    for line in actions_io.plain(lines):
        _log(line)


def _check(settings: ActionSettings, github: GitHub, notes: Sequence[str] = ()) -> int:
    outcome, loaded = _evaluate(settings, github)
    report = outcome.report
    report_rel, manifest_rel = _write_files(settings, outcome)
    log_findings([console_line(f) for f in report.findings])
    markdown = "\n".join([*notes, to_markdown(report, settings.debug_suffix)])
    conclusion = conclusion_for(
        report, pull_request=settings.event.is_pull_request, pr_conclusion=settings.pr_conclusion
    )
    locate = locator(settings, loaded.templates[0].path, loaded.ref_paths)
    output = build_output(report, markdown, conclusion=conclusion, locate=locate)
    post(settings, github, output, markdown, loaded.notes)
    if settings.output_file is not None:
        actions_io.write_outputs(
            settings.output_file, outputs_for(settings, report, report_rel, manifest_rel)
        )
    _say(verdict(report) + f" (conclusion: {conclusion})")
    return exit_code(settings, outcome, conclusion)


def main(environ: Mapping[str, str] | None = None, *, policy: RetryPolicy | None = None) -> int:
    env = os.environ if environ is None else environ
    token = token_from(env)
    if token:
        for line in actions_io.mask(token):
            _say(line)
    try:
        settings = ActionSettings.from_env(env)
        if policy is None:
            from swiftpm_guard.github_client import RetryPolicy

            policy = RetryPolicy()
        return run(settings, policy)
    except GuardError as error:
        _say(actions_io.command("error", str(error), {"title": "swiftpm-guard"}))
        return error.exit_code
    except KeyboardInterrupt:
        _log("swiftpm-guard: interrupted")
        return 130
    except Exception as error:  # a bug must not pass for "findings" (exit 1)
        traceback.print_exc()
        _say(
            actions_io.command(
                "error",
                f"internal error: {type(error).__name__}: {error}",
                {"title": "swiftpm-guard"},
            )
        )
        return 3
