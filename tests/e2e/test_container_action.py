"""The action in its image, on a pull request, against the fake GitHub API on the host.

The runner's mounts and environment (`RunnerJob`), a workspace cloned like actions/checkout
leaves it and owned by uid 1001, the job's hostile PATH; the container reaches the fake API on
127.0.0.1 through the host network. GITHUB_SERVER_URL is the fake too, which serves the bare
repository over smart HTTP at `/<owner>/<name>.git` as GitHub does: the action's git reads other
branches from there (never from the clone's origin, a host path not even mounted). The fake
validates every request against GitHub's published schema and the test fails on any violation.

These need the action (issue 3: entrypoint.py, action.yml, tests/support/fake_github.py).
"""

from __future__ import annotations

import pytest

from support.container import REPO_ROOT, RunnerJob, action_inputs
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, workflow_text

if not (REPO_ROOT / "entrypoint.py").exists():
    pytest.skip("entrypoint.py (issue 3) is not in the repository yet", allow_module_level=True)
actions_env = pytest.importorskip("support.actions_env", reason="issue 3's test support")
fake_github_module = pytest.importorskip("support.fake_github", reason="issue 3's fake API")

pytestmark = pytest.mark.container

TOKEN = "ghs_containerWriteToken0123456789"


@pytest.fixture
def fake():
    with fake_github_module.running() as server:
        yield server
    assert not server.violations, "requests GitHub would reject:\n" + "\n".join(server.violations)


@pytest.mark.parametrize(("pr_conclusion", "expected_exit"), [("neutral", 0), ("failure", 1)])
def test_pull_request_check_posts_a_check_run_from_the_container(
    engine, image, tmp_path, fake, pr_conclusion, expected_exit
):
    git, env = actions_env.git, actions_env
    origin = env.make_origin(tmp_path / "remote")
    fake.add_repo(env.REPOSITORY, git_dir=origin.bare)
    fake.add_token(TOKEN)
    job = RunnerJob(
        tmp_path / "job", event_name="pull_request", repository=env.REPOSITORY, api_url=fake.url,
        server_url=fake.url,
    )
    # The PR adds a framework to the workflow that the template does not have.
    workspace = env.clone(origin, "main", job.workspace)
    git(workspace, "checkout", "-q", "-b", "change-frameworks")
    frameworks = [*PRODUCT_KEYS, *BINARY_ONLY_KEYS, "kernels_new"]
    (workspace / env.WORKFLOW).write_text(workflow_text(frameworks))
    head = env.commit_all(workspace, "build kernels_new")
    git(workspace, "checkout", "-q", "--detach", origin.main)
    git(workspace, "merge", "-q", "--no-ff", "-m", "Merge head into base", head)
    job.sha = git(workspace, "rev-parse", "HEAD")
    job.ref = "refs/pull/12/merge"
    job.event = env.pull_request_payload(
        number=12,
        head_sha=head,
        head_ref="change-frameworks",
        base_ref="main",
        base_sha=origin.main,
    )
    job.inputs = action_inputs(
        REPO_ROOT / "action.yml",
        {
            "frameworks-from": env.FRAMEWORKS_FROM,
            "pr-conclusion": pr_conclusion,
        },
        token=TOKEN,
    )

    result = job.run(engine, image)

    assert result.exit_code == expected_exit, result
    run = fake.only_check_run()
    assert run["head_sha"] == head != job.sha  # the PR's head, not the merge commit
    assert run["status"] == "completed" and run["conclusion"] == pr_conclusion
    annotations = fake.annotations[run["id"]]
    assert {(a["path"], a["title"]) for a in annotations} == {  # the name and its debug twin
        (env.WORKFLOW, "unclaimed-artifact: kernels_new, kernels_new_debug"),
    }
    # git ran inside (hostile PATH, workspace owned by uid 1001): the template came from
    # swiftpm, fetched by git from the server URL into the action's own repository, not from
    # the contents API fallback, and nothing was fetched into the clone.
    assert any("git-upload-pack" in path for _m, path, _a in fake.git_requests), result
    assert not fake.calls("repos/get-content"), "fell back to the contents API"
    remotes = git(workspace, "-c", f"safe.directory={workspace}", "branch", "-r")
    assert remotes == "origin/main", remotes  # the host's root reads uid 1001's clone
    assert result.outputs["consistent"] == "false", result
    report = workspace / result.outputs["report"]
    assert report.is_file(), "the report is written into the mounted workspace"
    assert "kernels_new" in result.summary
    for line in result.logs.splitlines():
        assert TOKEN not in line or line == f"::add-mask::{TOKEN}", line


def test_a_checksums_file_under_runner_temp_is_refused_with_what_is_mounted(
    engine, image, tmp_path, fake
):
    """What ExecuTorch's upload step does: `$RUNNER_TEMP/checksums.txt`. The runner mounts the
    workspace, home, workflow and file-command folders only; the action says so and what to do."""
    env = actions_env
    origin = env.make_origin(tmp_path / "remote")
    fake.add_repo(env.REPOSITORY, git_dir=origin.bare)
    fake.add_token(TOKEN)
    job = RunnerJob(tmp_path / "job", event_name="schedule", repository=env.REPOSITORY,
                    api_url=fake.url)
    env.clone(origin, "main", job.workspace)
    job.sha = origin.main
    job.event = env.schedule_payload()
    job.inputs = action_inputs(
        REPO_ROOT / "action.yml",
        {"version": "1.2.3", "checksums": "/home/runner/work/_temp/checksums.txt"},
        token=TOKEN,
    )
    result = job.run(engine, image)
    assert result.exit_code == 2, result
    [error] = [line for line in result.logs.splitlines() if line.startswith("::error")]
    assert "input checksums '/home/runner/work/_temp/checksums.txt' is outside the workspace" in (
        error)
    assert "$RUNNER_TEMP" in error and "/github/workspace" in error, error
    assert "run-id and artifact-name" in error, error
    assert "Traceback" not in result.logs
    assert result.outputs == {} and fake.requests == []
