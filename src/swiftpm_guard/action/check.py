"""The action's `check` mode: the inputs' sources → the check job → reports, check run,
summary, outputs. Also what `publish` does on pull requests (code under review never publishes).
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from swiftpm_guard.action import pr_annotations
from swiftpm_guard.action.delivery import post
from swiftpm_guard.action.gather import Loaded, gather
from swiftpm_guard.action.outputs import (
    OUT_DIR,
    exit_for,
    locator,
    log_findings,
    out_folder,
    outputs_for,
)
from swiftpm_guard.action.release_lines import evaluate_lines, release_lines
from swiftpm_guard.action.settings import ActionSettings
from swiftpm_guard.core.checks import CheckOptions
from swiftpm_guard.core.placeholders import scan
from swiftpm_guard.core.urls import UrlSettings
from swiftpm_guard.infra.github import GitHubSession
from swiftpm_guard.jobs import verify_urls
from swiftpm_guard.jobs.check import Outcome, evaluate_loaded
from swiftpm_guard.report.check import console_line, to_dict, to_json, to_markdown, verdict
from swiftpm_guard.report.check_run import build_output, conclusion_for
from swiftpm_guard.sinks import actions_io
from swiftpm_guard.sinks.files import write_atomically

#: Version used for the check when none is given (a PR compares names only).
_NO_VERSION = "0.0.0"


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def url_settings(settings: ActionSettings) -> UrlSettings:
    """Zip URLs: the template's `let url` is the base unless input base-url says otherwise."""
    return UrlSettings(base_url=settings.base_url)


def _evaluate(settings: ActionSettings, github: GitHubSession) -> tuple[Outcome, Loaded]:
    options = CheckOptions(
        version=settings.version or _NO_VERSION, debug_suffix=settings.debug_suffix
    )

    def evaluate(loaded: Loaded) -> Outcome:
        return evaluate_loaded(
            loaded.templates, loaded.artifacts, loaded.findings, options, swift=settings.swift
        )

    with tempfile.TemporaryDirectory(prefix="swiftpm-guard-") as scratch:
        refs = release_lines(settings, github)
        if len(refs) > 1:
            outcome, loaded = evaluate_lines(settings, github, Path(scratch), refs, evaluate)
        else:
            loaded = gather(settings, github, Path(scratch), refs[0] if refs else None)
            outcome = evaluate(loaded)
    if settings.verify_urls and settings.version is not None:
        outcome = verify_urls.with_hosted(outcome, settings.version, url_settings(settings),
                                          log=lambda line: _log(f"swiftpm-guard: {line}"))
    if settings.resolve_swift and settings.version is not None:
        from swiftpm_guard.jobs.resolve import ResolveSettings, with_resolution

        outcome, _said = with_resolution(outcome, settings.version,
                                         ResolveSettings(swift=settings.resolve_swift),
                                         url_settings(settings),
                                         log=lambda line: _log(f"swiftpm-guard: {line}"))
    if settings.version is None:
        # A PR comparing names has no version: the reports say nothing about one.
        shown = outcome.report._replace(version="")
        outcome = outcome._replace(report=shown)
    return outcome, loaded


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


def run_check(
    settings: ActionSettings,
    github: GitHubSession,
    notes: Sequence[str] = (),
    not_pushed: str = "",
) -> int:
    """The check; `not_pushed` says why a publish that was asked for only checked."""
    outcome, loaded = _evaluate(settings, github)
    report = outcome.report
    report_rel, manifest_rel = _write_files(settings, outcome)
    log_findings([console_line(f) for f in report.findings])
    locate = locator(settings, loaded.templates[0].path, loaded.ref_paths)
    sections = list(loaded.sections)
    if pr_annotations.applies(settings):
        locate, moved = pr_annotations.workflow_locator(settings, github, loaded, locate)
        for finding in report.findings:
            locate(finding)  # fills `moved`, once per finding
        sections.append(pr_annotations.template_side_markdown(moved, settings.template_ref))
    markdown = "\n".join([*notes, to_markdown(report, settings.debug_suffix), *sections])
    conclusion = conclusion_for(
        report, pull_request=settings.event.is_pull_request, pr_conclusion=settings.pr_conclusion
    )
    output = build_output(report, markdown, conclusion=conclusion, locate=locate)
    brief = "\n".join([*notes, to_markdown(report, settings.debug_suffix, sound_rows=False),
                       *sections])
    post(settings, github, output, markdown, loaded.notes, brief=brief)
    if settings.output_file is not None:
        actions_io.write_outputs(
            settings.output_file,
            outputs_for(settings, report, report_rel, manifest_rel, not_pushed=not_pushed,
                        document=to_dict(report)),
        )
    print(verdict(report) + f" (conclusion: {conclusion})", flush=True)
    return exit_for(settings, report.consistent, conclusion)
