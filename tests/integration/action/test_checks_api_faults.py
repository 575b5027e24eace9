"""The check-run sink against the fake GitHub API through real PyGithub, with faults injected.

Waits are injected (a clock that advances when we "sleep"), so rate-limit waits of a minute
cost nothing; only the hanging-connection case spends real time (one 1-second timeout).
"""

from __future__ import annotations

import time

import pytest

from support.fake_github import READ, FakeGitHub
from swiftpm_guard.core.model import Finding, Report, Severity
from swiftpm_guard.infra.github import GitHubSession, RetryPolicy
from swiftpm_guard.report.check import to_markdown
from swiftpm_guard.report.check_run import build_output
from swiftpm_guard.sinks.checks_api import CheckRunTarget, post_check_run

REPO = "example/executorch"
TOKEN = "ghs_faultsToken"
SHA = "a" * 40


class Clock:
    """Monotonic time that jumps forward by every injected sleep."""

    def __init__(self) -> None:
        self.slept: list[float] = []
        self.offset = 0.0

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.offset += seconds

    def monotonic(self) -> float:
        return time.monotonic() + self.offset


@pytest.fixture
def fake(fake_github: FakeGitHub) -> FakeGitHub:
    fake_github.add_repo(REPO)
    fake_github.add_token(TOKEN)
    fake_github.add_token("ghs_readOnly", READ)
    return fake_github


def _policy(fake: FakeGitHub, clock: Clock, **overrides) -> RetryPolicy:
    values = {
        "sleep": clock.sleep,
        "monotonic": clock.monotonic,
        "wall_clock": lambda: fake.rate_limit_reset - 30,
        "request_timeout": 1,
        "seconds_between_writes": None,
        "log": lambda line: None,
    }
    values.update(overrides)
    return RetryPolicy(**values)


def _report(count: int) -> Report:
    findings = tuple(
        Finding(
            code="unfilled-placeholder",
            severity=Severity.ERROR if i % 3 else Severity.WARNING,
            subject=f"name_{i}",
            message=f"the template asks for 'name_{i}'",
            file="Package.swift.template",
            line=i + 1,
        )
        for i in range(count)
    )
    names = tuple(f"name_{i}" for i in range(count))
    return Report(
        version="1.2.3",
        templates=(),
        placeholders=names,
        built=(),
        unfilled=names,
        unclaimed=(),
        products=None,
        binary_targets=None,
        counts_source=None,
        findings=findings,
    )


def _publish(fake: FakeGitHub, policy: RetryPolicy, count: int = 120, token: str = TOKEN):
    report = _report(count)
    output = build_output(
        report,
        to_markdown(report),
        conclusion="failure",
        locate=lambda f: (f.file or "Package.swift.template", f.line or 1),
    )
    session = GitHubSession(fake.url, token, REPO, policy)
    target = CheckRunTarget(REPO, "SwiftPM manifest", SHA, "https://github.com/x/actions/runs/1")
    return post_check_run(session, target, output), session.client, output


def _statuses(fake: FakeGitHub, operation: str) -> list[int]:
    return [r.status for r in fake.calls(operation)]


def test_120_findings_go_out_in_three_requests_of_at_most_50(fake):
    published, client, output = _publish(fake, _policy(fake, Clock()))
    run = fake.only_check_run()
    assert published.annotations == 120 and published.reason is None
    assert published.url == run["html_url"]
    creates, updates = fake.calls("checks/create"), fake.calls("checks/update")
    sizes = [len(r.body["output"]["annotations"]) for r in creates + updates]
    assert sizes == [50, 50, 20]
    assert creates[0].body["status"] == "completed" and creates[0].body["conclusion"] == "failure"
    assert creates[0].body["head_sha"] == SHA
    stored = fake.annotations[run["id"]]
    assert stored == [a.as_api() for a in output.annotations]  # all of them, in order
    assert {a["annotation_level"] for a in stored} == {"failure", "warning"}
    # Read them back through PyGithub (the list-annotations operation, paginated).
    read_back = list(client.get_repo(REPO).get_check_run(run["id"]).get_annotations())
    assert len(read_back) == 120
    assert {(a.path, a.start_line) for a in read_back} == {
        ("Package.swift.template", i + 1) for i in range(120)
    }


@pytest.mark.parametrize(
    ("operation", "kind", "retry_after", "waits"),
    [
        ("checks/create", "500", None, [2.0]),
        ("checks/update", "502", None, [2.0]),
        ("checks/create", "secondary", 7, [7.0]),
        ("checks/update", "secondary", None, [60.0]),  # no Retry-After: the bounded default
        ("checks/update", "primary", None, [31.0]),  # until x-ratelimit-reset (+1s)
        ("checks/update", "hang", None, [2.0]),  # the 1 s request timeout, then a retry
    ],
)
def test_transient_faults_are_retried_on_every_method(fake, operation, kind, retry_after, waits):
    fake.inject(operation, kind, retry_after=retry_after)
    clock = Clock()
    published, _client, _output = _publish(fake, _policy(fake, clock))
    assert clock.slept == waits
    assert published.annotations == 120 and published.reason is None
    run = fake.only_check_run()  # created once, even when the create was retried
    assert len(fake.annotations[run["id"]]) == 120
    statuses = _statuses(fake, operation)
    failed = {"500": 500, "502": 502, "secondary": 403, "primary": 403, "hang": 0}[kind]
    assert statuses[0] == failed and statuses[1] in (200, 201)


def test_read_only_token_is_not_retried_and_says_so(fake):
    clock = Clock()
    posted = _publish(fake, _policy(fake, clock), token="ghs_readOnly")[0]
    assert posted.url is None and posted.expected and "HTTP 403" in str(posted.reason)
    assert "Resource not accessible by integration" in str(posted.reason)
    assert _statuses(fake, "checks/create") == [403] and clock.slept == []
    assert fake.check_runs == {}


def test_injected_403_not_accessible_with_a_write_token(fake):
    fake.inject("checks/create", "not-accessible")
    posted = _publish(fake, _policy(fake, Clock()))[0]
    assert posted.expected and _statuses(fake, "checks/create") == [403]


def test_422_on_create_is_not_retried(fake):
    fake.inject("checks/create", "422")
    clock = Clock()
    posted = _publish(fake, _policy(fake, clock))[0]
    assert "HTTP 422" in str(posted.reason) and not posted.expected
    assert _statuses(fake, "checks/create") == [422] and clock.slept == []


def test_422_on_a_later_batch_keeps_the_finished_run_and_reports_the_rest(fake):
    fake.inject("checks/update", "422")
    published, _client, _output = _publish(fake, _policy(fake, Clock()))
    assert published.annotations == 50
    assert published.reason is not None and "422" in published.reason
    run = fake.only_check_run()
    assert run["status"] == "completed" and run["conclusion"] == "failure"
    assert len(fake.annotations[run["id"]]) == 50
    assert _statuses(fake, "checks/update") == [422]  # the second batch was not attempted


def test_retries_are_bounded_in_count(fake):
    fake.inject("checks/create", "500", times=100)
    clock = Clock()
    posted = _publish(fake, _policy(fake, clock))[0]
    assert "gave up after 6 attempt(s)" in str(posted.reason) and posted.url is None
    assert clock.slept == [2.0, 4.0, 8.0, 16.0, 32.0]
    assert _statuses(fake, "checks/create") == [500] * 6 and fake.check_runs == {}


def test_retries_are_bounded_in_total_time(fake):
    fake.inject("checks/update", "500", times=100)
    clock = Clock()
    published, _client, _output = _publish(fake, _policy(fake, clock, total_seconds=10.0))
    assert clock.slept == [2.0, 4.0]  # the next 8 s wait would overrun the 10 s budget
    assert published.annotations == 50 and "gave up after 3 attempt(s)" in published.reason


def test_a_retry_after_beyond_the_budget_is_not_waited_for(fake):
    fake.inject("checks/create", "secondary", retry_after=1000)
    clock = Clock()
    posted = _publish(fake, _policy(fake, clock))[0]
    assert "budget 300s" in str(posted.reason)
    assert clock.slept == [] and _statuses(fake, "checks/create") == [403]
    assert not posted.expected  # a rate limit, not a read-only token


def test_a_hanging_connection_costs_bounded_real_time(fake):
    fake.inject("checks/create", "hang", times=100)
    clock = Clock()
    started = time.monotonic()
    posted = _publish(fake, _policy(fake, clock, attempts=3))[0]
    assert "gave up after 3 attempt" in str(posted.reason)
    assert time.monotonic() - started < 10  # three 1 s timeouts, not the fake's 10 s hang
    assert clock.slept == [2.0, 4.0]


def test_every_call_of_a_run_shares_one_deadline(fake):
    fake.inject("checks/update", "500", times=100)
    clock = Clock()
    policy = _policy(fake, clock, run_seconds=5.0).for_run()
    published, _client, _output = _publish(fake, policy)
    assert clock.slept == [2.0]  # the next 4 s wait would pass the run's 5 s deadline
    assert published.annotations == 50 and "gave up after 2 attempt(s)" in published.reason


@pytest.mark.parametrize(("kind", "waits"), [("502", [2.0]), ("secondary", [60.0])])
def test_the_artifact_download_is_retried_like_every_api_call(fake, tmp_path, kind, waits):
    """The download leaves PyGithub (GitHub redirects it to blob storage) but not the retry:
    the same GithubRetry, with the same injected waits."""
    from swiftpm_guard.sources.actions_api import RunArtifact, download_artifact

    data = b"PK\x05\x06" + b"\0" * 18
    stored = fake.add_artifact(REPO, 7, "frameworks", data)
    fake.inject("actions/download-artifact", kind)
    clock = Clock()
    path = download_artifact(fake.url, TOKEN, REPO, RunArtifact(stored.id, "frameworks", 22),
                             tmp_path, _policy(fake, clock))
    assert path.read_bytes() == data
    assert clock.slept == waits
    assert _statuses(fake, "actions/download-artifact") == [
        {"502": 502, "secondary": 403}[kind], 302]


def test_the_retry_is_pygithubs_own(fake):
    from github import GithubRetry

    session = GitHubSession(fake.url, TOKEN, REPO, _policy(fake, Clock()))
    assert isinstance(session.client.requester.kwargs["retry"], GithubRetry)
