"""The check run, through PyGithub: created once, annotations 50 per request.

The only module that talks to the Checks API; the action imports it lazily so the CLI never
loads PyGithub. The run is created already `completed` with its conclusion and the first 50
annotations, then each further batch is appended with an edit (PATCH): a failure half-way
leaves a finished run with the right conclusion and fewer annotations, never one stuck
`in_progress`. The caller learns how many annotations landed and annotates the rest itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from github.GithubObject import NotSet

from swiftpm_guard.core.check_run import Annotation, CheckRunOutput
from swiftpm_guard.infra.github import GitHubApiError, RetryPolicy, call

if TYPE_CHECKING:
    from github import Github


@dataclass(frozen=True, slots=True)
class CheckRunTarget:
    repository: str  # owner/name
    name: str
    head_sha: str
    details_url: str | None


@dataclass(frozen=True, slots=True)
class Published:
    check_run_id: int
    html_url: str | None
    annotations_posted: int
    #: Why later annotation batches did not land (the run itself exists and is complete).
    error: str | None = None


def _output(output: CheckRunOutput, batch: tuple[Annotation, ...]) -> dict[str, object]:
    body: dict[str, object] = {"title": output.title, "summary": output.summary}
    if output.text:
        body["text"] = output.text
    if batch:
        body["annotations"] = [a.as_api() for a in batch]
    return body


def publish_check_run(
    client: Github, target: CheckRunTarget, output: CheckRunOutput, policy: RetryPolicy
) -> Published:
    """Create the completed check run, then append the remaining annotation batches.

    Raises GitHubApiError when the run cannot be created (read-only token, API down);
    returns `Published.error` when it was created but a later batch failed.
    """
    repo = client.get_repo(target.repository)  # lazy: no request
    batches = output.batches() or [()]
    run = call(
        policy,
        "create the check run",
        partial(
            repo.create_check_run,
            name=target.name,
            head_sha=target.head_sha,
            status="completed",
            conclusion=output.conclusion,
            output=_output(output, batches[0]),  # type: ignore[arg-type]
            details_url=target.details_url or NotSet,
        ),
    )
    posted = len(batches[0])
    for batch in batches[1:]:
        what = f"add annotations {posted + 1}-{posted + len(batch)} to the check run"
        try:
            call(policy, what, partial(run.edit, output=_output(output, batch)))
        except GitHubApiError as error:
            return Published(run.id, run.html_url, posted, str(error))
        posted += len(batch)
    return Published(run.id, run.html_url, posted)
