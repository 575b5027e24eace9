"""The pull-request comment, through PyGithub: found by its marker, created once, edited in
place only when its findings changed.

A pull request's conversation is its issue's comments (GitHub's model): listed (at most
LIST_MAX, oldest first), created, edited. What happened comes back as a value; a token that
cannot write comments (a fork's pull request, Dependabot, a job without `pull-requests:
write`) is a reason, never a failure: the verdict does not depend on the comment.

Only a comment the token's own identity wrote is edited, whatever its body says (a marker is
easily copied): with a user's token (a PAT) the user `GET /user` names; with an installation
token, which `GET /user` refuses (403), the job's default token's `github-actions[bot]`
(an App's token then never finds its own comments, and posts a new one each run). When the
identity cannot be told, a new comment is posted rather than someone else's edited.
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
#: Whom the job's default token (GITHUB_TOKEN, an installation token) writes as.
ACTIONS_BOT = ("github-actions[bot]", "Bot")
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
        author = _author(github)
        mine = None if author is None else call(
            policy, f"list the comments of pull request #{number}",
            partial(_find, issue, ours, author))
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


def _author(github: GitHubSession) -> tuple[str, str] | None:
    """(login, type) the token writes comments as; None when that cannot be told."""
    try:
        _headers, user = call(github.policy, "read the token's user (GET /user)",
                              partial(github.client.requester.requestJsonAndCheck, "GET",
                                      "/user"))
    except GitHubApiError as error:
        # GitHub refuses an installation token GET /user: the job's default token's bot.
        return ACTIONS_BOT if error.status == 403 and not error.retried else None
    login, kind = (user.get("login"), user.get("type")) if isinstance(user, dict) else (0, 0)
    return (login, kind) if isinstance(login, str) and isinstance(kind, str) else None


def _find(issue: Issue, ours: Test, author: tuple[str, str]) -> IssueComment | None:
    """The oldest comment this guard wrote, among the first LIST_MAX: its marker, written by
    the token's own identity."""
    for index, listed in enumerate(issue.get_comments()):
        if index >= LIST_MAX:
            break
        user = listed.user
        if (user is not None and (user.login, user.type) == author
                and ours(listed.body or "")):
            return listed
    return None
