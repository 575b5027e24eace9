"""Read what the action's inputs name into values: the template (from the workspace or the
template ref), framework lists (workflow files, here or on another ref), zips and checksums in
the workspace, and a run's artifact through the Actions API. Findings name repository paths,
so annotations land on the lines they are about.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from swiftpm_guard.action.settings import ActionSettings
from swiftpm_guard.core.model import Artifact, Finding, Template
from swiftpm_guard.errors import InputError, UsageError
from swiftpm_guard.infra.github import GitHubSession
from swiftpm_guard.jobs.zip_contents import scan_zip_folder
from swiftpm_guard.report import markdown as md
from swiftpm_guard.sources.artifacts import (
    expand_declared,
    parse_name_list,
    read_checksums,
)
from swiftpm_guard.sources.files import inside, read_text
from swiftpm_guard.sources.git_ref import (
    RefReader,
    load_template_from_ref,
    read_workflow_from_ref,
)
from swiftpm_guard.sources.template import load_template
from swiftpm_guard.sources.workflow import read_workflow_frameworks
from swiftpm_guard.sources.workspace_clone import GitRef


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@dataclass
class Loaded:
    """Everything read for one run, before any check."""

    templates: list[Template] = field(default_factory=list)
    artifacts: list[Artifact] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    #: Paths in another ref of this repository (the template branch, `frameworks-ref`).
    ref_paths: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    #: Markdown sections for the summary and the check run (the release-line matrix).
    sections: list[str] = field(default_factory=list)


def _in_workspace(settings: ActionSettings, relative: str) -> Path:
    return inside(settings.workspace, relative)


def reader_for(settings: ActionSettings, github: GitHubSession, ref: str) -> RefReader:
    """A ref of this repository: the workspace clone's (fetched if absent), else the API."""
    return _reader(settings, github, ref)


def _reader(settings: ActionSettings, github: GitHubSession, ref: str) -> RefReader:
    from swiftpm_guard.sources.contents_api import ContentsRef

    return GitRef.open(settings.workspace, ref, _log) or ContentsRef(
        github.repo, ref, github.policy
    )


def default_branch(settings: ActionSettings, github: GitHubSession) -> str:
    if settings.event.default_branch:
        return settings.event.default_branch
    from swiftpm_guard.infra.github import call

    return call(
        github.policy, "read the repository's default branch", lambda: github.repo.default_branch
    )


def _load_template(
    settings: ActionSettings, github: GitHubSession, scratch: Path, loaded: Loaded
) -> None:
    if settings.workspace_holds_template:
        path = _in_workspace(settings, settings.template)
        template, findings = load_template(path, display=settings.template)
        loaded.notes.append(
            f"template {md.code(settings.template)} from the workspace "
            f"({md.code(str(settings.event.branch))})"
        )
    else:
        reader = _reader(settings, github, settings.template_ref)
        template, findings = load_template_from_ref(
            reader, settings.template, scratch / "template-ref"
        )
        loaded.ref_paths.add(template.path)
        loaded.ref_paths.update(stub.location.file for stub in template.stubs)
        loaded.notes.append(f"template {md.code(settings.template)} from {md.text(reader.where)}")
    loaded.templates.append(template)
    loaded.findings += findings


def _load_workflows(
    settings: ActionSettings,
    github: GitHubSession,
    scratch: Path,
    loaded: Loaded,
    frameworks_ref: str | None,
) -> None:
    if not settings.frameworks_from:
        return
    if settings.workspace_holds_template:
        ref = frameworks_ref or default_branch(settings, github)
        reader = _reader(settings, github, ref)
        for spec in settings.frameworks_from:
            names = read_workflow_from_ref(reader, spec, scratch / "frameworks-ref")
            loaded.artifacts += expand_declared(names, settings.debug_suffix, "workflow")
            loaded.ref_paths.add(spec.path)
            loaded.notes.append(f"framework list {md.code(spec.path)} from {md.text(reader.where)}")
        return
    for spec in settings.frameworks_from:
        _in_workspace(settings, spec.path)
        names = read_workflow_frameworks(spec, root=settings.workspace.resolve(), display=spec.path)
        loaded.artifacts += expand_declared(names, settings.debug_suffix, "workflow")
        loaded.notes.append(f"framework list {md.code(spec.path)} from the workspace")


def _load_run_artifact(
    settings: ActionSettings, github: GitHubSession, scratch: Path, loaded: Loaded
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
    artifacts, findings = scan_zip_folder(folder, display=display)
    loaded.artifacts += artifacts
    loaded.findings += findings
    loaded.notes.append(
        f"{len(artifacts)} zips from artifact {md.code(str(settings.artifact_name))} of run "
        f"{settings.run_id}"
    )


def gather(
    settings: ActionSettings,
    github: GitHubSession,
    scratch: Path,
    frameworks_ref: str | None = None,
) -> Loaded:
    """Read the template and every source the inputs name; raises only for bad input.

    `frameworks_ref`: the ref whose framework lists a template change is checked against
    (default: the repository's default branch)."""
    loaded = Loaded()
    _load_template(settings, github, scratch, loaded)
    gather_sources(settings, github, scratch, loaded, frameworks_ref)
    return loaded


def gather_sources(
    settings: ActionSettings,
    github: GitHubSession,
    scratch: Path,
    loaded: Loaded,
    frameworks_ref: str | None = None,
) -> None:
    """Every artifact source the inputs name (not the template), shown by repository path.

    A run's artifact is downloaded and unpacked under `scratch`; its checksums are values in
    `loaded` by the time this returns.
    """
    _load_workflows(settings, github, scratch, loaded, frameworks_ref)
    for relative in settings.artifacts:
        artifacts, findings = scan_zip_folder(_in_workspace(settings, relative), display=relative)
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
