"""Deliver a check-run output: the check run through the API, else the same annotations as
workflow commands; then the job summary. Best effort: the verdict never depends on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from swiftpm_guard.action.settings import ActionSettings
from swiftpm_guard.core.check_run import CheckRunOutput
from swiftpm_guard.infra.github import GitHubSession
from swiftpm_guard.report import markdown as md
from swiftpm_guard.sinks import actions_io


def _say(line: str) -> None:
    print(line, flush=True)


@dataclass(frozen=True, slots=True)
class _Attempt:
    """How creating the check run went: what it carried, or why it did not."""

    reason: str | None = None  # why workflow commands carry (the rest of) the annotations
    posted: int = 0
    url: str | None = None
    expected: bool = True  # a read-only token is normal on forks: a notice, not a warning


def _create(settings: ActionSettings, github: GitHubSession, output: CheckRunOutput) -> _Attempt:
    if settings.dry_run:
        return _Attempt("dry-run: no check run was created")
    if not settings.token:
        return _Attempt("no github-token: no check run was created")
    from swiftpm_guard.infra.github import GitHubApiError
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
        why = (
            "the token cannot write check runs (fork pull requests and Dependabot "
            "get a read-only token)"
            if error.not_writable
            else "the check run could not be created"
        )
        return _Attempt(f"{why}: {error}", expected=error.not_writable)
    posted = published.annotations_posted
    if published.error:
        return _Attempt(f"only {posted} annotations reached the check run: {published.error}",
                        posted, published.html_url, expected=False)
    return _Attempt(None, posted, published.html_url)


def deliver(
    settings: ActionSettings, github: GitHubSession, output: CheckRunOutput
) -> tuple[list[str], str | None]:
    """The check run, else workflow commands for what it could not carry; summary notes and
    the check run's address (None when none was created)."""
    attempt = _create(settings, github, output)
    if attempt.reason is None:
        return [], attempt.url
    _say(
        actions_io.command(
            "notice" if attempt.expected else "warning",
            f"{attempt.reason}; annotating with workflow commands instead",
            {"title": "swiftpm-guard"},
        )
    )
    rest = output.annotations[attempt.posted:]
    for line in actions_io.annotation_commands(rest):
        _say(line)
    note = (f"> [!NOTE]\n> {md.text(attempt.reason)}; {len(rest)} annotations were written as "
            "workflow commands instead.")
    return [note], attempt.url


def post(
    settings: ActionSettings,
    github: GitHubSession,
    output: CheckRunOutput,
    markdown: str,
    read: Sequence[str] = (),
    *,
    brief: str | None = None,
) -> None:
    """The check run (or workflow commands), then the job summary; `read` says what was read.

    One job's view should not show the same table twice: when the check run was created, the
    job summary is `brief` (the verdict and the findings, without the two-way table or the
    audit's timeline) and links to the check run, which carries the whole `markdown`. When no
    check run was written (fork PRs, no token, dry-run, the API down), the summary is the whole
    report, since it is then the only place it can be read.
    """
    notes, url = deliver(settings, github, output)
    if settings.summary_file is not None:
        body = markdown
        if url is not None and brief is not None:
            name = md.text(settings.check_name)
            body = f"{brief}\nThe whole report is in the check run [{name}](<{url}>).\n"
        sources = "Read: " + "; ".join(read) + "." if read else ""
        summary = "\n".join([body, *(f"> {n}" for n in output.cut), *notes, "", sources, ""])
        actions_io.append_summary(settings.summary_file, summary)


def note(text: str) -> str:
    """A GitHub Markdown note block (summary and check run)."""
    return f"> [!NOTE]\n> {text}\n"
