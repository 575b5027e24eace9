"""The action's `preflight` mode: is `<branch-prefix><version>` still free, and (input
`verify-absent`) are the version's zip URLs free too? A release workflow runs it before it
uploads anything, instead of a hand-written `git ls-remote`.

The same `jobs.preflight` as `swiftpm-guard preflight`, against the repository
`action.remote` picks (push-token, else github-token, as a header). Writes
`.swiftpm-guard/preflight.json`, a check run, the job summary and the outputs.

Exit codes: 0 free, 1 the branch (or a zip URL) exists, 2 bad inputs, 3 git or the remote failed.
"""

from __future__ import annotations

import json
import sys

from swiftpm_guard.action.delivery import post
from swiftpm_guard.action.outputs import (
    EXIT_FINDINGS,
    EXIT_OK,
    OUT_DIR,
    log_findings,
    out_folder,
    outputs_without_manifest,
)
from swiftpm_guard.action.remote import repository_remote
from swiftpm_guard.action.settings import ActionSettings
from swiftpm_guard.core.urls import UrlSettings
from swiftpm_guard.infra.github import GitHubSession
from swiftpm_guard.jobs.preflight import PreflightRequest, PreflightResult, preflight
from swiftpm_guard.report.check import console_line
from swiftpm_guard.report.check_run import assemble
from swiftpm_guard.sinks import actions_io
from swiftpm_guard.sinks.files import write_atomically

REPORT = f"{OUT_DIR}/preflight.json"


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _markdown(result: PreflightResult, url: str) -> str:
    if not result.findings:
        return f"#### Preflight\n\n`{result.branch}` is free on `{url}`.\n"
    lines = ["#### Preflight", "", f"`{result.branch}` is **not** free on `{url}`:", ""]
    lines += [f"- `{f.code}`: {f.message}" for f in result.findings]
    return "\n".join(lines) + "\n"


def run_preflight(settings: ActionSettings, github: GitHubSession) -> int:
    assert settings.version is not None  # ActionSettings requires it in this mode
    remote = repository_remote(settings, _log)
    urls = None
    if settings.verify_absent:
        urls = UrlSettings(base_url=settings.base_url, absent_on_403=settings.absent_on_403)
    request = PreflightRequest(
        version=settings.version,
        repo=remote.url,
        branch_prefix=settings.branch_prefix,
        token=remote.token,
        token_source=remote.token_source,
        verify_absent=urls,
        template_ref=settings.template_ref,
        templates=(settings.template,),
    )
    result = preflight(request)
    document = {
        "branch": result.branch,
        "free": not result.findings,
        "remote_commit": result.remote_commit,
        "findings": [f.as_dict() for f in result.findings],
    }
    folder = out_folder(settings)
    text = json.dumps(document, indent=2) + "\n"
    write_atomically([(folder / "preflight.json", text.encode())])
    log_findings([console_line(f) for f in result.findings])
    markdown = _markdown(result, remote.url)
    conclusion = "failure" if result.findings else "success"
    title = f"{result.branch} is free" if not result.findings else f"{result.branch} is taken"
    output = assemble(conclusion=conclusion, title=title, markdown=markdown, text=None,
                      annotations=(), cut=[])
    post(settings, github, output, markdown, [f"`{remote.url}` ({remote.where})"])
    if settings.output_file is not None:
        actions_io.write_outputs(settings.output_file, outputs_without_manifest(
            not result.findings, REPORT, branch=result.branch,
            not_pushed="preflight only checks"))
    print(f"swiftpm-guard preflight: {title}", flush=True)
    return EXIT_FINDINGS if result.findings else EXIT_OK
