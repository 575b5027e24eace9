"""The action's `audit` mode: judge every published branch, report it like a check.

The branches matching input `branches` are read from the repository `action.remote` picks (the
workspace clone's origin, else the server URL; the token as a header), judged by the same
`jobs.audit.audit_repository` as `swiftpm-guard audit`, and optionally their zip URLs fetched
(`verify-urls`). The audit's Markdown is the check run's summary and the job summary; findings
with a file and line become annotations naming their branch.

Exit codes: 0 every branch sound (warnings allowed), 1 a branch has an error finding, 2 bad
inputs (no branch matches), 3 git or the remote failed.
"""

from __future__ import annotations

import sys

from swiftpm_guard.action.check import url_settings
from swiftpm_guard.action.delivery import post
from swiftpm_guard.action.outputs import (
    OUT_DIR,
    exit_for,
    log_findings,
    out_folder,
    outputs_without_manifest,
)
from swiftpm_guard.action.remote import repository_remote
from swiftpm_guard.action.settings import ActionSettings
from swiftpm_guard.core.audit_rules import AuditOptions
from swiftpm_guard.infra.github import GitHubSession
from swiftpm_guard.jobs.audit import audit_repository
from swiftpm_guard.report import markdown as md
from swiftpm_guard.report.audit import (
    console_line,
    tip_line,
    to_dict,
    to_json,
    to_markdown,
    verdict,
)
from swiftpm_guard.report.audit_check_run import audit_output
from swiftpm_guard.sinks import actions_io
from swiftpm_guard.sinks.files import write_atomically

REPORT = f"{OUT_DIR}/audit.json"


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def run_audit(settings: ActionSettings, github: GitHubSession) -> int:
    remote = repository_remote(settings, _log)
    report = audit_repository(
        remote.url,
        settings.branches,
        AuditOptions(branch_prefix=settings.branch_prefix),
        urls=url_settings(settings) if settings.verify_urls else None,
        git_config=remote.git_config(),
    )
    folder = out_folder(settings)
    write_atomically([(folder / "audit.json", to_json(report).encode())])
    tips = [line for line in (tip_line(b) for b in report.branches) if line is not None]
    log_findings([*tips,
                  *(console_line(b.branch, f) for b in report.branches for f in b.findings)])
    markdown = to_markdown(report)
    conclusion = "success"
    if not report.consistent:
        conclusion = settings.pr_conclusion if settings.event.is_pull_request else "failure"
    output = audit_output(report, markdown, conclusion=conclusion)
    read = [f"branches {md.code(settings.branches)} of {md.code(remote.url)} "
            f"({md.text(remote.where)})"]
    post(settings, github, output, markdown, read, brief=to_markdown(report, sound_groups=False))
    if settings.output_file is not None:
        actions_io.write_outputs(settings.output_file, outputs_without_manifest(
            report.consistent, REPORT, document=to_dict(report)))
    print(f"{verdict(report)} (conclusion: {conclusion})", flush=True)
    return exit_for(settings, report.consistent, conclusion)
