"""The check run, through PyGithub: created once, annotations 50 per request.

The only module that talks to the Checks API; PyGithub loads only when it runs. The run is
created already `completed` with its conclusion and the first 50 annotations, then each further
batch is appended with an edit (PATCH): a failure half-way leaves a finished run with the right
conclusion and fewer annotations, never one stuck `in_progress`. What landed comes back as a
value; the caller writes the rest as workflow commands.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING

from swiftpm_guard.core.model import Annotation, CheckRunOutput
from swiftpm_guard.errors import GitHubApiError
from swiftpm_guard.infra.github import GitHubSession, call

if TYPE_CHECKING:
    from swiftpm_guard.infra.github import CheckRun, Repository


@dataclass(frozen=True, slots=True)
class CheckRunTarget:
    repository: str  # owner/name
    name: str
    head_sha: str
    details_url: str | None
    #: An earlier step's check run to update instead of creating one (input `check-run`).
    update: int | None = None


@dataclass(frozen=True, slots=True)
class Posted:
    """How creating the check run went: its address and what it carried, or why not."""

    url: str | None = None
    annotations: int = 0
    run_id: int | None = None
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
    """Create the completed check run (or finish `target.update`), then append the remaining
    annotation batches."""
    policy = github.policy
    repo = github.client.get_repo(target.repository)  # lazy: no request
    if target.update is not None:
        try:
            run = repo.get_check_run(target.update)  # lazy: no request
            output = _without(output, _annotated(github, run))
            call(policy, f"update check run {target.update}", partial(
                run.edit, status="completed", conclusion=output.conclusion,
                output=_output(output, (output.batches() or [()])[0])))
        except GitHubApiError as error:
            return _refused(error, f"check run {target.update} could not be updated")
    else:
        try:
            run = call(policy, "create the check run", partial(_create, repo, target, output))
        except GitHubApiError as error:
            return _refused(error, "the check run could not be created")
    batches = output.batches() or [()]
    posted = len(batches[0])
    for batch in batches[1:]:
        what = f"add annotations {posted + 1}-{posted + len(batch)} to the check run"
        try:
            call(policy, what, partial(run.edit, output=_output(output, batch)))
        except GitHubApiError as error:
            return Posted(run.html_url, posted, run.id,
                          f"only {posted} annotations reached the check run: {error}",
                          expected=False)
        posted += len(batch)
    return Posted(run.html_url, posted, run.id)


def _create(repo: Repository, target: CheckRunTarget, output: CheckRunOutput) -> CheckRun:
    from github.GithubObject import NotSet  # noqa: TID251  (PyGithub's home)

    return repo.create_check_run(
        name=target.name, head_sha=target.head_sha, status="completed",
        conclusion=output.conclusion,
        output=_output(output, (output.batches() or [()])[0]),  # type: ignore[arg-type]
        details_url=target.details_url or NotSet)


def _refused(error: GitHubApiError, why: str) -> Posted:
    if error.not_writable:
        why = ("the token cannot write check runs (fork pull requests and Dependabot get a "
               "read-only token)")
    return Posted(reason=f"{why}: {error}", expected=error.not_writable)


#: An earlier step's run holds at most this many annotations worth reading back.
_READ_BACK_MAX = 1000


def _annotated(github: GitHubSession, run: CheckRun) -> set[tuple[object, ...]]:
    """What the run to update already shows: GitHub appends annotations on every edit, so the
    same finding must not be sent twice."""
    def listed() -> set[tuple[object, ...]]:
        seen: set[tuple[object, ...]] = set()
        for item in run.get_annotations():
            seen.add((item.path, item.start_line, item.annotation_level, item.title,
                      item.message))
            if len(seen) >= _READ_BACK_MAX:
                break
        return seen

    return call(github.policy, "read the annotations of the check run to update", listed)


def _without(output: CheckRunOutput, shown: set[tuple[object, ...]]) -> CheckRunOutput:
    fresh = tuple(a for a in output.annotations
                  if (a.path, a.line, a.level, a.title, a.message) not in shown)
    return replace(output, annotations=fresh)
