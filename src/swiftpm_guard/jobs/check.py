"""The check job: sources → model → render → checks → SwiftPM, up to the report.

A `CheckRequest` names the sources; `evaluate` reads them, renders every template and checks
the result both ways. Sinks (files, check runs, git) come after, in the front ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from swiftpm_guard.core.checks import CheckOptions, check, merge_artifacts
from swiftpm_guard.core.model import Artifact, Finding, Rendered, Report, Template
from swiftpm_guard.core.render import render
from swiftpm_guard.infra.prepared import Prepared
from swiftpm_guard.jobs.check_request import CheckRequest
from swiftpm_guard.jobs.swiftpm_proof import prove
from swiftpm_guard.sources.artifacts import (
    DeclaredName,
    expand_declared,
    read_checksums,
    read_declared,
)
from swiftpm_guard.sources.template import load_template


class Outcome(NamedTuple):
    report: Report
    rendered: tuple[Rendered, ...]
    #: name → artifact as merged from every source (what the checksums were filled from)
    built: dict[str, Artifact]


def gather_artifacts(settings: CheckRequest) -> tuple[list[Artifact], list[Finding]]:
    """Read every source the settings name into one list of artifacts (and source findings)."""
    artifacts: list[Artifact] = list(settings.read.artifacts) if settings.read else []
    findings: list[Finding] = list(settings.read.findings) if settings.read else []
    for folder in settings.artifacts:
        # Only with zips: their rules read plists and zip directories, at a cost to import.
        from swiftpm_guard.jobs.zip_contents import scan_zip_folder

        found, problems = scan_zip_folder(folder)
        artifacts += found
        findings += problems
    for path in settings.checksums:
        artifacts += read_checksums(path)
    for spec in settings.frameworks:
        artifacts += expand_declared(read_declared(spec), settings.debug_suffix)
    for names in _workflow_names(settings):
        artifacts += expand_declared(names, settings.debug_suffix, "workflow")
    return artifacts, findings


def _workflow_names(settings: CheckRequest) -> list[list[DeclaredName]]:
    ahead = settings.read_ahead
    if ahead is not None and ahead.specs == settings.frameworks_from:
        return ahead.names()
    if not settings.frameworks_from:
        return []
    from swiftpm_guard.sources.workflow import read_workflow_frameworks

    return [read_workflow_frameworks(spec) for spec in settings.frameworks_from]


def _render(template: Template, version: str, built: dict[str, Artifact],
            seconds: float) -> Rendered:
    """Jinja templates may come from a pull request: render them in a bounded child process."""
    if template.flavour != "jinja":
        return render(template, version, built)
    from swiftpm_guard.infra.isolation import call_isolated

    return call_isolated(render, template, version, built, file=template.path, seconds=seconds)


def evaluate(settings: CheckRequest, *, require_checksums: bool = False) -> Outcome:
    """Read, render and check; raises only for bad input, never for findings.

    The templates are read first: a workflow read ahead in a child (`read_ahead`) is still
    being parsed meanwhile, so their reading and lexing is not added to the wait for it.
    """
    templates, stub_findings = [], []
    for path in settings.templates:
        template, found = load_template(path, stubs_dir=settings.stubs_dir)
        templates.append(template)
        stub_findings += found
    artifacts, findings = gather_artifacts(settings)
    findings += stub_findings
    return evaluate_read(settings, templates, artifacts, findings,
                         require_checksums=require_checksums)


def evaluate_read(settings: CheckRequest, templates: Sequence[Template],
                  artifacts: Sequence[Artifact], findings: Sequence[Finding], *,
                  require_checksums: bool = False) -> Outcome:
    """`evaluate` with the templates (and any extra sources) already read by the caller."""
    options = check_options(settings, require_checksums)
    return evaluate_loaded(templates, artifacts, findings, options,
                           render_seconds=settings.render_seconds, swift=settings.swift,
                           swift_cache=settings.swift_cache, syntax_child=settings.syntax_child)


def check_options(settings: CheckRequest, require_checksums: bool = False) -> CheckOptions:
    return CheckOptions(
        version=settings.version,
        debug_suffix=settings.debug_suffix,
        version_pattern=settings.version_pattern,
        warn=settings.warn,
        require_checksums=require_checksums,
    )


def evaluate_loaded(
    templates: Sequence[Template],
    artifacts: Sequence[Artifact],
    findings: Sequence[Finding],
    options: CheckOptions,
    *,
    render_seconds: float = 20.0,
    swift: str = "auto",
    swift_cache: Path | None = None,
    syntax_child: Prepared | None = None,
) -> Outcome:
    """`evaluate` for inputs already read (the action reads them from refs and the API).

    The same steps as `evaluate` after its reading; tests/unit/test_evaluate_loaded.py keeps
    the two in agreement.
    """
    built, _conflicts = merge_artifacts(artifacts)  # check() reports the conflicts
    rendered = tuple(_render(t, options.version, built, render_seconds) for t in templates)
    report = check(rendered, artifacts, options, findings)
    report = prove(report, rendered, built, options, swift=swift, cache_dir=swift_cache,
                   syntax_child=syntax_child)
    return Outcome(report=report, rendered=rendered, built=built)
