"""The fake GitHub's pull-request conversation: issue comments listed, created and edited.

A mixin of `FakeGitHub` (support/fake_github.py), in its own module to keep that one small:
its `_op_*` methods are dispatched by operation id like the others, and their answers are
validated against the same OpenAPI subset. A pull request's comments live on its issue
(GitHub's model): `add_pull` makes the issue, `comments` reads what is there.
"""

from __future__ import annotations

from typing import Any

#: Who the job's token writes as (GitHub's app user for GITHUB_TOKEN).
BOT = {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"}
_USER_URLS = ("events_url", "followers_url", "following_url", "gists_url",
              "organizations_url", "received_events_url", "repos_url", "starred_url",
              "subscriptions_url")
_CREATED = "2025-01-01T00:00:00Z"


class IssueComments:
    """State and handlers; `FakeGitHub` provides `_lock`, `_ids`, `_made`, `_page`, `url`,
    `caller`."""

    _lock: Any
    _ids: Any
    _made: Any
    _page: Any
    url: str
    caller: Any  # whom the request's token acts as (None: the job's installation token)

    def _issue_comments_init(self) -> None:
        #: (owner/name, issue number) → its comments, oldest first.
        self.issue_comments: dict[tuple[str, int], list[dict[str, Any]]] = {}

    # -- set-up and queries for tests -------------------------------------------------------

    def add_pull(self, full_name: str, number: int) -> None:
        """A pull request (its issue) that comments can be listed on and added to."""
        self.issue_comments.setdefault((full_name, number), [])

    def add_comment(self, full_name: str, number: int, body: str,
                    user: dict[str, Any] | None = None) -> dict[str, Any]:
        """A comment already in the conversation (someone else's, or an old run's)."""
        with self._lock:
            return self._new_comment(full_name, number, body, user or BOT)

    def comments(self, full_name: str, number: int) -> list[dict[str, Any]]:
        return self.issue_comments[(full_name, number)]

    # -- handlers ---------------------------------------------------------------------------

    def _new_comment(self, full_name: str, number: int, body: str,
                     user: dict[str, Any]) -> dict[str, Any]:
        comment_id = next(self._ids)
        comment = {
            "id": comment_id,
            "node_id": f"IC_{comment_id}",
            "url": f"{self.url}/repos/{full_name}/issues/comments/{comment_id}",
            "html_url": f"https://github.invalid/{full_name}/pull/{number}"
                        f"#issuecomment-{comment_id}",
            "issue_url": f"{self.url}/repos/{full_name}/issues/{number}",
            "body": body,
            "user": simple_user(user),
            "created_at": _CREATED,
            "updated_at": _CREATED,
            "author_association": "NONE",
            "edits": 0,  # the fake's own count (dropped from answers)
        }
        self.issue_comments[(full_name, number)].append(comment)
        return comment

    def _issue(self, repo: Any, params: dict[str, str]) -> tuple[str, int]:
        from support.fake_github import _error, _Reply

        key = (repo.full_name, int(params["issue_number"]))
        if key not in self.issue_comments:
            raise _Reply(404, _error("Not Found"))
        return key

    def _shown(self, op: Any, status: int, comment: dict[str, Any]) -> Any:
        return self._made(op, status, {k: v for k, v in comment.items() if k != "edits"})

    def _op_issues_list_comments(self, op: Any, repo: Any, params: dict[str, str],
                                 query: dict[str, list[str]], *_: Any) -> Any:
        from support.fake_github import _Reply

        key = self._issue(repo, params)
        chosen, links = self._page(query, self.issue_comments[key],
                                   f"/repos/{key[0]}/issues/{key[1]}/comments")
        return _Reply(200, [self._shown(op, 200, c) for c in chosen], links)

    def _op_issues_create_comment(self, op: Any, repo: Any, params: dict[str, str],
                                  query: Any, body: dict[str, Any], *_: Any) -> Any:
        from support.fake_github import _Reply

        key = self._issue(repo, params)
        with self._lock:
            comment = self._new_comment(key[0], key[1], body["body"], self.caller() or BOT)
        return _Reply(201, self._shown(op, 201, comment))

    def _op_issues_update_comment(self, op: Any, repo: Any, params: dict[str, str],
                                  query: Any, body: dict[str, Any], *_: Any) -> Any:
        from support.fake_github import _error, _Reply

        wanted = int(params["comment_id"])
        with self._lock:
            found = [c for (name, _n), listed in self.issue_comments.items()
                     if name == repo.full_name for c in listed if c["id"] == wanted]
            if not found:
                raise _Reply(404, _error("Not Found"))
            comment = found[0]
            comment["body"] = body["body"]
            comment["updated_at"] = "2025-01-01T00:00:01Z"
            comment["edits"] += 1
        return _Reply(200, self._shown(op, 200, comment))


def simple_user(user: dict[str, Any]) -> dict[str, Any]:
    """GitHub's `simple-user` (every field its schema requires) for login, id and type."""
    login = user["login"]
    api = f"https://api.github.invalid/users/{login}"
    return {"login": login, "id": user["id"], "type": user["type"], "node_id": f"U_{user['id']}",
            "avatar_url": f"https://avatars.github.invalid/u/{user['id']}", "gravatar_id": "",
            "url": api, "html_url": f"https://github.invalid/{login}", "site_admin": False,
            **{key: f"{api}/{key.removesuffix('_url')}" for key in _USER_URLS}}
