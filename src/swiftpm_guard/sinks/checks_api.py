"""The check run, through PyGithub: created once, annotations 50 per request.

The only module that talks to the Checks API; PyGithub loads only when it runs. The run is
created already `completed` with its conclusion and the first 50 annotations, then each further
batch is appended with an edit (PATCH): a failure half-way leaves a finished run with the right
conclusion and fewer annotations, never one stuck `in_progress`. What landed comes back as a
value; the caller writes the rest as workflow commands.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from swiftpm_guard.core.model import Annotation, CheckRunOutput
from swiftpm_guard.infra.github import GitHubApiError, GitHubSession, call


@dataclass(frozen=True, slots=True)
class CheckRunTarget:
    repository: str  # owner/name
    name: str
    head_sha: str
    details_url: str | None


@dataclass(frozen=True, slots=True)
class Posted:
    """How creating the check run went: its address and what it carried, or why not."""

    url: str | None = None
    annotations: int = 0
    #: Why workflow commands carry (the rest of) the annotations; None: the run has them all.
    reason: str | None = None
    #: A read-only token is normal on forks: a notice, not a warning.
    expected: bool = True


def _output(output: CheckRunOutput, batch: tuple[Annotation, ...]) -> dict[str, object]:
    body: dict[str, object] = {"title": output.title, "summary": output.summary}
    if output.text:
        body["text"] = output.text
    if batch:
        body["annotations"] = [a.as_api() for a in batch]
    return body


def post_check_run(github: GitHubSession, target: CheckRunTarget,
                   output: CheckRunOutput) -> Posted:
    """Create the completed check run, then append the remaining annotation batches."""
    from github.GithubObject import NotSet  # noqa: TID251  (PyGithub's home)

    policy = github.policy
    repo = github.client.get_repo(target.repository)  # lazy: no request
    batches = output.batches() or [()]
    try:
        run = call(policy, "create the check run", partial(
            repo.create_check_run,
            name=target.name,
            head_sha=target.head_sha,
            status="completed",
            conclusion=output.conclusion,
            output=_output(output, batches[0]),  # type: ignore[arg-type]
            details_url=target.details_url or NotSet,
        ))
    except GitHubApiError as error:
        why = ("the token cannot write check runs (fork pull requests and Dependabot get a "
               "read-only token)" if error.not_writable else "the check run could not be created")
        return Posted(reason=f"{why}: {error}", expected=error.not_writable)
    posted = len(batches[0])
    for batch in batches[1:]:
        what = f"add annotations {posted + 1}-{posted + len(batch)} to the check run"
        try:
            call(policy, what, partial(run.edit, output=_output(output, batch)))
        except GitHubApiError as error:
            return Posted(run.html_url, posted,
                          f"only {posted} annotations reached the check run: {error}",
                          expected=False)
        posted += len(batch)
    return Posted(run.html_url, posted)
