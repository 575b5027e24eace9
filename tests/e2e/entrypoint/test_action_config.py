"""The configuration file through `entrypoint.py`: read at the default branch (never the pull
request's head), each step's input over the file over the default, and a bad file is one
`file:line` error and exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.actions_env import (
    FRAMEWORKS_FROM,
    REPOSITORY,
    Origin,
    clone,
    commit_all,
    git,
    make_origin,
    pull_request_payload,
    push_payload,
    run_entrypoint,
)
from support.fake_github import FakeGitHub
from support.runner_job import Job

TOKEN = "ghs_e2eConfigToken0123456789"
CONFIG = ".github/swiftpm-guard.yml"
ON_MAIN = f"""\
# What every guard step of the repository shares.
template-ref: swiftpm
frameworks-from: {FRAMEWORKS_FROM}
check-name: Guard (from main)
accept-static: true
"""


def _with_config(tmp_path: Path, origin: Origin, text: str) -> str:
    """Commit `text` as the configuration file on origin's main; the new main."""
    seed = clone(origin, "main", tmp_path / "seed")
    (seed / CONFIG).write_text(text)
    commit = commit_all(seed, "guard settings")
    git(seed, "push", "-q", "origin", "HEAD:main")
    return commit


@pytest.fixture
def origin(tmp_path: Path, fake_github: FakeGitHub) -> Origin:
    made = make_origin(tmp_path / "remote")
    fake_github.add_repo(REPOSITORY, git_dir=made.bare)
    fake_github.add_token(TOKEN)
    return made


def _push_step(tmp_path: Path, fake: FakeGitHub, origin: Origin, main: str,
               inputs: dict[str, str]):
    workspace = clone(origin, "main", tmp_path / "workspace")
    step = Job(tmp_path, fake.url).step(
        workspace, "push",
        push_payload(ref="refs/heads/main", before=origin.main,
                     after=main),
        sha=main, inputs={"github-token": TOKEN, **inputs})
    return step, workspace


def test_the_file_on_the_default_branch_gives_every_shared_setting(tmp_path, origin,
                                                                   fake_github):
    main = _with_config(tmp_path, origin, ON_MAIN)
    step, workspace = _push_step(tmp_path, fake_github, origin, main, {})
    result = run_entrypoint(step, workspace)
    assert result.returncode == 0, result.stdout + result.stderr
    run = fake_github.only_check_run()
    assert run["name"] == "Guard (from main)"  # the file's (input: default)
    assert "20 declared" in run["output"]["title"] or "consistent" in run["output"]["title"]
    assert (f"settings from {CONFIG} at origin/main: template-ref, frameworks-from, "
            "check-name, accept-static") in result.stderr


def test_a_step_s_input_wins_over_the_file_and_the_file_over_the_default(tmp_path, origin,
                                                                         fake_github):
    main = _with_config(tmp_path, origin, ON_MAIN)
    step, workspace = _push_step(tmp_path, fake_github, origin, main,
                                 {"check-name": "Guard (this step)"})
    result = run_entrypoint(step, workspace)
    assert result.returncode == 0, result.stdout + result.stderr
    assert fake_github.only_check_run()["name"] == "Guard (this step)"


def test_without_a_file_the_defaults_hold(tmp_path, origin, fake_github):
    step, workspace = _push_step(tmp_path, fake_github, origin, origin.main,
                                 {"frameworks-from": FRAMEWORKS_FROM})
    result = run_entrypoint(step, workspace)
    assert result.returncode == 0, result.stdout + result.stderr
    assert fake_github.only_check_run()["name"] == "SwiftPM manifest"
    assert "settings from" not in result.stderr


def test_a_pull_request_cannot_change_the_settings_its_check_runs_with(tmp_path, origin,
                                                                       fake_github, runner):
    main = _with_config(tmp_path, origin, ON_MAIN)
    workspace = clone(origin, "main", tmp_path / "workspace")
    git(workspace, "checkout", "-q", "-b", "loosen")
    (workspace / CONFIG).write_text(ON_MAIN.replace("Guard (from main)", "Guard (from the PR)")
                                    + "pr-conclusion: neutral\n")
    head = commit_all(workspace, "my own settings")
    payload = pull_request_payload(number=7, head_sha=head, head_ref="loosen", base_ref="main",
                                   base_sha=main)
    _step, result = runner.run(workspace, "pull_request", payload, sha=head,
                               ref="refs/pull/7/merge", inputs={"github-token": TOKEN})
    assert result.returncode == 0, result.stdout + result.stderr
    run = fake_github.only_check_run()
    assert run["name"] == "Guard (from main)" and run["head_sha"] == head
    assert "pr-conclusion" not in result.stderr.split("settings from", 1)[1].splitlines()[0]


def test_a_named_file_that_is_not_there_is_bad_input(tmp_path, origin, fake_github):
    step, workspace = _push_step(tmp_path, fake_github, origin, origin.main,
                                 {"frameworks-from": FRAMEWORKS_FROM,
                                  "config": ".github/guard.yml"})
    result = run_entrypoint(step, workspace)
    assert result.returncode == 2, result.stdout + result.stderr
    assert ".github/guard.yml: configuration file not found in origin/main" in result.stdout
    assert fake_github.calls("checks/create") == []


@pytest.mark.parametrize(("text", "line"), [
    ("template-ref: swiftpm\nverify-urls: yes\n", ".github/swiftpm-guard.yml:2: verify-urls "
                                                  "must be true or false, got 'yes'"),
    (f"frameworks-from: {FRAMEWORKS_FROM}\npush-token: ghp_x\n",
     ".github/swiftpm-guard.yml:2: setting 'push-token' cannot be in the configuration "
     "file: a token is never written in a file"),
    ("\n\nbranch-prefix: '../x'\n", ".github/swiftpm-guard.yml:3: branch-prefix '../x' cannot "
                                     "start a branch name"),
])
def test_a_bad_file_is_one_line_and_exit_2_before_anything_runs(tmp_path, origin, fake_github,
                                                                text, line):
    main = _with_config(tmp_path, origin, text)
    step, workspace = _push_step(tmp_path, fake_github, origin, main,
                                 {"frameworks-from": FRAMEWORKS_FROM})
    result = run_entrypoint(step, workspace)
    assert result.returncode == 2, result.stdout + result.stderr
    errors = [x for x in result.stdout.splitlines() if x.startswith("::error")]
    assert errors == [f"::error title=swiftpm-guard::{line}"]
    assert fake_github.calls("checks/create") == []
    assert not (workspace / ".swiftpm-guard").exists()


def test_a_hostile_file_cannot_write_a_workflow_command(tmp_path, origin, fake_github):
    main = _with_config(tmp_path, origin, '"\\n::warning::pwned": x\n')
    step, workspace = _push_step(tmp_path, fake_github, origin, main,
                                 {"frameworks-from": FRAMEWORKS_FROM})
    result = run_entrypoint(step, workspace)
    assert result.returncode == 2, result.stdout + result.stderr
    commands = [x for x in (result.stdout + result.stderr).splitlines()
                if x.lstrip().startswith("::") and not x.startswith("::add-mask::")]
    assert len(commands) == 1 and commands[0].startswith("::error title=swiftpm-guard::")
    assert "unknown setting" in commands[0] and "::warning::" not in commands[0]
