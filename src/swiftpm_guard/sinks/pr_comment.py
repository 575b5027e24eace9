"""The pull-request comment, through PyGithub: found by its marker, created once, edited in
place only when its findings changed.

A pull request's conversation is its issue's comments (GitHub's model): listed (at most
LIST_MAX, oldest first), created, edited. What happened comes back as a value; a token that
cannot write comments (a fork's pull request, Dependabot, a job without `pull-requests:
write`) is a reason, never a failure: the verdict does not depend on the comment.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from swiftpm_guard.errors import GitHubApiError
from swiftpm_guard.infra.github import GitHubSession, call

if TYPE_CHECKING:
    from github.Issue import Issue  # noqa: TID251  (PyGithub's home)
    from github.IssueComment import IssueComment  # noqa: TID251  (PyGithub's home)

#: Comments read looking for ours; past this a conversation gets a new comment of its own.
LIST_MAX = 1000
#: Said with every refusal: what the workflow needs for the comment.
PERMISSION_FIX = ("give the job the permission pull-requests: write (a fork's pull request "
                  "and Dependabot get a read-only token: there the job summary has the report)")


@dataclass(frozen=True, slots=True)
class Commented:
    """How the comment went: `created`, `updated`, `unchanged` and its address, or why not."""

    done: str = ""
    url: str | None = None
    reason: str | None = None
    #: A read-only token is normal on forks: a notice, not a warning.
    expected: bool = True


#: A question about a comment's body.
Test = Callable[[str], bool]


def post_pr_comment(github: GitHubSession, repository: str, number: int, *, body: str,
                    ours: Test, current: Test) -> Commented:
    """Create this guard's comment (`body`) on pull request `number`, or edit the one `ours`
    recognises unless it is `current` (already says this)."""
    policy = github.policy
    issue = github.client.get_repo(repository).get_issue(number)  # lazy: no request
    try:
        mine = call(policy, f"list the comments of pull request #{number}",
                    partial(_find, issue, ours))
        if mine is None:
            made = call(policy, f"comment on pull request #{number}",
                        partial(issue.create_comment, body))
            return Commented("created", made.html_url)
        if current(mine.body or ""):
            return Commented("unchanged", mine.html_url)
        call(policy, f"edit comment {mine.id} of pull request #{number}",
             partial(mine.edit, body))
        return Commented("updated", mine.html_url)
    except GitHubApiError as error:
        if error.not_writable:
            return Commented(reason=f"the token cannot write pull-request comments ({error}): "
                             f"{PERMISSION_FIX}")
        return Commented(reason=f"the pull-request comment could not be written: {error}",
                         expected=False)


def _find(issue: Issue, ours: Test) -> IssueComment | None:
    """The oldest comment this guard wrote, among the first LIST_MAX."""
    for index, listed in enumerate(issue.get_comments()):
        if index >= LIST_MAX:
            break
        if ours(listed.body or ""):
            return listed
    return None
