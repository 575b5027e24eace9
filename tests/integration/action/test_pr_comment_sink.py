"""The pull-request comment sink against the fake GitHub API through real PyGithub."""

from __future__ import annotations

import pytest

from support.fake_github import READ, FakeGitHub
from swiftpm_guard.infra.github import GitHubSession, RetryPolicy
from swiftpm_guard.report.pr_comment import comment
from swiftpm_guard.sinks import pr_comment as sink

REPO = "example/executorch"
TOKEN = "ghs_commentToken"
PULL = 12


@pytest.fixture
def fake(fake_github: FakeGitHub) -> FakeGitHub:
    fake_github.add_repo(REPO)
    fake_github.add_token(TOKEN)
    fake_github.add_token("ghs_readOnly", READ)
    fake_github.add_pull(REPO, PULL)
    return fake_github


def _session(fake: FakeGitHub, token: str = TOKEN) -> GitHubSession:
    policy = RetryPolicy(attempts=1, request_timeout=5, seconds_between_writes=None,
                         log=lambda line: None)
    return GitHubSession(fake.url, token, REPO, policy.for_run())


def _post(fake: FakeGitHub, gist: str, *, token: str = TOKEN, template: str = "a.template"):
    wanted = comment(check_name="SwiftPM manifest", template=template, conclusion="failure",
                     title="t", gist=gist, check_run_url=None)
    github = _session(fake, token)
    try:
        return wanted, sink.post_pr_comment(github, REPO, PULL, body=wanted.body,
                                            ours=wanted.ours, current=wanted.current)
    finally:
        github.close()


def _writes(fake: FakeGitHub) -> list[str]:
    return [r.operation_id for r in fake.requests if r.method != "GET"]


def test_created_once_then_left_alone_then_edited_in_place(fake):
    first, done = _post(fake, "- one\n")
    assert done == sink.Commented("created", fake.comments(REPO, PULL)[0]["html_url"])
    assert [c["body"] for c in fake.comments(REPO, PULL)] == [first.body]

    _same, done = _post(fake, "- one\n")
    assert done.done == "unchanged" and done.reason is None
    assert _writes(fake) == ["issues/create-comment"]  # no edit for the same findings

    changed, done = _post(fake, "- one\n- two\n")
    assert done.done == "updated"
    [only] = fake.comments(REPO, PULL)
    assert only["body"] == changed.body and only["edits"] == 1
    assert _writes(fake) == ["issues/create-comment", "issues/update-comment"]
    assert fake.violations == []


def test_others_comments_are_never_taken_for_ours(fake):
    mine = comment(check_name="SwiftPM manifest", template="a.template", conclusion="failure",
                   title="t", gist="- old\n", check_run_url=None)
    other_guard = comment(check_name="SwiftPM manifest", template="b.template",
                          conclusion="failure", title="t", gist="- old\n", check_run_url=None)
    quoted = "> " + mine.body  # a reviewer quoting our comment
    fake.add_comment(REPO, PULL, other_guard.body)
    fake.add_comment(REPO, PULL, quoted, user={"login": "reviewer", "id": 5, "type": "User"})
    _wanted, done = _post(fake, "- new\n")
    assert done.done == "created"
    bodies = [c["body"] for c in fake.comments(REPO, PULL)]
    assert bodies[:2] == [other_guard.body, quoted] and len(bodies) == 3
    assert [c["edits"] for c in fake.comments(REPO, PULL)] == [0, 0, 0]


def test_found_past_the_first_page(fake):
    for index in range(45):  # PyGithub asks 30 a page: ours is on the second
        fake.add_comment(REPO, PULL, f"chatter {index}")
    old, _ = _post(fake, "- one\n")
    assert len(fake.comments(REPO, PULL)) == 46
    _new, done = _post(fake, "- two\n")
    assert done.done == "updated" and len(fake.comments(REPO, PULL)) == 46
    pages = [r.query.get("page", ["1"])[0] for r in fake.calls("issues/list-comments")]
    assert pages == ["1", "2", "1", "2"]
    assert fake.comments(REPO, PULL)[45]["body"] != old.body


def test_the_listing_stops_at_its_cap(fake, monkeypatch):
    monkeypatch.setattr(sink, "LIST_MAX", 31)
    for index in range(40):
        fake.add_comment(REPO, PULL, f"chatter {index}")
    _post(fake, "- one\n")  # comment 41: past the cap
    _wanted, done = _post(fake, "- one\n")
    assert done.done == "created"  # not found within 31: a new one, never an endless read
    assert len(fake.calls("issues/list-comments")) == 4  # two pages per run, no third


def test_a_read_only_token_is_a_reason_with_the_fix_and_no_comment(fake):
    _wanted, done = _post(fake, "- one\n", token="ghs_readOnly")
    assert done.done == "" and done.url is None and done.expected is True
    assert done.reason is not None
    assert done.reason.startswith("the token cannot write pull-request comments (comment on "
                                  "pull request #12: HTTP 403: Resource not accessible by "
                                  "integration)")
    assert "pull-requests: write" in done.reason
    assert fake.comments(REPO, PULL) == []


def test_a_server_error_is_a_warning_not_a_crash(fake):
    fake.inject("issues/update-comment", "500")
    _post(fake, "- one\n")
    _wanted, done = _post(fake, "- two\n")
    assert done.expected is False and done.done == ""
    assert done.reason == ("the pull-request comment could not be written: edit comment "
                           f"{fake.comments(REPO, PULL)[0]['id']} of pull request #12: gave up "
                           "after 1 attempt(s) (budget 300s): HTTP 500: Server Error")


def test_its_own_comment_with_other_words_is_corrected_not_left_standing(fake):
    wanted = comment(check_name="SwiftPM manifest", template="a.template", conclusion="failure",
                     title="t", gist="- one\n", check_run_url=None)
    marker = wanted.body.split("\n", 1)[0]
    fake.add_comment(REPO, PULL, marker + "\n### ✅ all fine\n")  # by github-actions[bot]
    _wanted, done = _post(fake, "- one\n")
    assert done.done == "updated"
    assert [c["body"] for c in fake.comments(REPO, PULL)] == [wanted.body]


@pytest.mark.parametrize("author", [
    {"login": "mallory", "id": 7, "type": "User"},
    {"login": "github-actions", "id": 8, "type": "User"},  # a user named like the bot
    {"login": "github-actions[bot]", "id": 9, "type": "User"},  # the bot's login, not a Bot
    {"login": "other-app[bot]", "id": 10, "type": "Bot"},  # another app's bot
])
def test_a_copied_marker_by_anyone_else_is_never_edited(fake, author):
    wanted = comment(check_name="SwiftPM manifest", template="a.template", conclusion="failure",
                     title="t", gist="- one\n", check_run_url=None)
    copied = wanted.body.split("\n", 1)[0] + "\n### ✅ all fine\n"
    fake.add_comment(REPO, PULL, copied, user=author)
    _wanted, done = _post(fake, "- one\n")
    assert done.done == "created"
    listed = fake.comments(REPO, PULL)
    assert [(c["body"], c["edits"], c["user"]["login"]) for c in listed] == [
        (copied, 0, author["login"]), (wanted.body, 0, "github-actions[bot]")]
    assert _writes(fake) == ["issues/create-comment"]
    assert fake.violations == []


def test_with_a_user_s_token_only_that_user_s_comment_is_ours(fake):
    user = {"login": "release-manager", "id": 77, "type": "User"}
    pat = fake.add_token("github_pat_releaseManager", user=user)
    bots = comment(check_name="SwiftPM manifest", template="a.template", conclusion="failure",
                   title="t", gist="- bot's\n", check_run_url=None)
    fake.add_comment(REPO, PULL, bots.body)  # the default token's, from an earlier setup
    _first, done = _post(fake, "- one\n", token=pat)
    assert done.done == "created"  # the bot's is not the PAT's own
    assert fake.comments(REPO, PULL)[1]["user"]["login"] == "release-manager"
    changed, done = _post(fake, "- two\n", token=pat)
    assert done.done == "updated"
    assert [(c["body"], c["edits"]) for c in fake.comments(REPO, PULL)] == [
        (bots.body, 0), (changed.body, 1)]
    assert len(fake.calls("users/get-authenticated")) == 2
    assert fake.violations == []


def test_when_the_token_s_identity_cannot_be_told_a_new_comment_is_posted(fake):
    _post(fake, "- one\n")
    fake.inject("users/get-authenticated", "500")
    wanted, done = _post(fake, "- two\n")
    assert done.done == "created"
    assert [c["edits"] for c in fake.comments(REPO, PULL)] == [0, 0]
    assert fake.comments(REPO, PULL)[1]["body"] == wanted.body
    # Nothing listed when no comment could be recognised as ours anyway.
    assert len(fake.calls("issues/list-comments")) == 1
