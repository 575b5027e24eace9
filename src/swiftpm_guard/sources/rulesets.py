"""Which ruleset rules GitHub applies to a branch: `GET /repos/{owner}/{repo}/rules/branches/
{branch}` ("Get rules for a branch"), which answers for any name, existing or not, with the
active rules of every ruleset, repository or organisation, whose pattern matches it.

PyGithub has no method for it, so its requester makes the call (retried and bounded like every
call, infra.github.call). A token that may not read the rules, or no such repository, is an
answer too: the audit says it could not tell (`RulesUnreadable`), it does not stop.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from swiftpm_guard.core.audit import BranchRules
from swiftpm_guard.errors import GitHubApiError, RulesUnreadable
from swiftpm_guard.infra.github import RetryPolicy, call

if TYPE_CHECKING:
    from swiftpm_guard.infra.github import Github

_PAGE = 100
#: A branch with more active rules than this is not one GitHub serves; stop asking.
_PAGES_MAX = 5


def branch_rules(client: Github, repository: str, branch: str,
                 policy: RetryPolicy) -> BranchRules:
    """The active rules that apply to `branch` of `repository` (`owner/name`)."""
    url = f"/repos/{repository}/rules/branches/{quote(branch, safe='/')}"
    rules: list[tuple[str, int | None]] = []
    for page in range(1, _PAGES_MAX + 1):
        params = {"per_page": _PAGE, "page": page}
        try:
            _headers, data = call(policy, f"read the rules for branch {branch}",
                                  partial(client.requester.requestJsonAndCheck, "GET", url,
                                          parameters=params))
        except GitHubApiError as error:
            # 401/403/404: this token may not read them; 5xx or limits past the budget: the
            # API cannot say now. Either way the branches' audit stands without it.
            raise RulesUnreadable(str(error)) from None
        items = data if isinstance(data, list) else []
        rules += [rule for item in items if (rule := _rule(item)) is not None]
        if len(items) < _PAGE:
            break
    return BranchRules(branch, tuple(rules))


def _rule(item: Any) -> tuple[str, int | None] | None:
    if not isinstance(item, dict) or not isinstance(item.get("type"), str):
        return None
    ruleset = item.get("ruleset_id")
    return item["type"], ruleset if isinstance(ruleset, int) else None
