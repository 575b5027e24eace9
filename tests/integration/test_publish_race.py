"""K publishers of the same version, started together as real processes: exactly one wins.

With the barrier, every publisher has already seen the branch absent and waits at `git push`
until all K are there, so the race is decided by the remote itself, not by our ls-remote.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from support.git_remote import reflog, refs

K = 5
BRANCH = "refs/heads/swiftpm-1.2.3"
DEADLINE = 180


def start_publishers(
    remote, release, tmp_path: Path, env: dict[str, str], count: int
) -> list[tuple[subprocess.Popen[bytes], Path]]:
    publishers = []
    for index in range(count):
        report = tmp_path / f"racer-{index}.json"
        args = [
            sys.executable,
            "-m",
            "swiftpm_guard",
            "publish",
            "--artifacts",
            str(release.artifacts),
            "--version",
            release.version,
            "--repo",
            remote.url,
            "--json",
            str(report),
            # One identity each, so every racer builds a different commit.
            "--author",
            f"Racer {index} <racer-{index}@example.invalid>",
            "--accept-static",  # no swift here
        ]
        process = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        publishers.append((process, report))
    return publishers


def finish(publishers) -> list[tuple[int, str, dict[str, object]]]:
    results = []
    try:
        for process, report in publishers:
            _out, err = process.communicate(timeout=DEADLINE)
            document = json.loads(report.read_text()) if report.exists() else {}
            results.append((process.returncode, err.decode(), document.get("publish", {})))
    finally:
        for process, _report in publishers:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)
    return results


def race_env(spy, remote) -> dict[str, str]:
    env = {k: v for k, v in spy.env.items() if k != "GITHUB_EVENT_NAME"}
    env["GITHUB_TOKEN"] = remote.token or "unused"
    return env


def check_one_winner(results, remote, before: dict[str, str]) -> str:
    winners = [r for r in results if r[0] == 0]
    losers = [r for r in results if r[0] != 0]
    assert len(winners) == 1, [(code, err[-300:]) for code, err, _ in results]
    winner = winners[0][2]
    assert winner["pushed"] is True
    for code, err, published in losers:
        assert code == 1, err
        assert "branch-exists" in err
        assert published.get("pushed") is False
    after = refs(remote.bare)
    assert after[BRANCH] == winner["commit"]
    assert reflog(remote.bare, BRANCH) == [winner["commit"]]  # created once, never rewritten
    assert {k: v for k, v in after.items() if k != BRANCH} == before
    return str(winner["commit"])


@pytest.mark.slow
def test_racing_publishers_at_the_push_exactly_one_wins(remote, release, spy, tmp_path):
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    spy.configure(SPY_GIT_BARRIER=str(barrier), SPY_GIT_PARTIES=str(K))
    env = race_env(spy, remote)
    before = refs(remote.bare)
    results = finish(start_publishers(remote, release, tmp_path, env, K))
    check_one_winner(results, remote, before)
    assert len([c for c in spy.calls() if c[:1] == ["push"]]) == K  # all K really pushed
    for code, err, _published in results:
        if code:
            assert "race lost" in err, err


@pytest.mark.slow
def test_racing_publishers_without_synchronisation_exactly_one_wins(remote, release, spy, tmp_path):
    before = refs(remote.bare)
    results = finish(start_publishers(remote, release, tmp_path, race_env(spy, remote), 4))
    check_one_winner(results, remote, before)
