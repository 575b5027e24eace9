"""One pull-request check of the Docker action, laid out for `RunnerJob`: the scenario the
prebuilt-image tests and the pull-vs-build benchmark both run.

The PR adds `kernels_new` to the workflow's FRAMEWORKS array while the template does not ask
for it, so the check finds two `unclaimed-artifact` errors and, with `pr-conclusion: neutral`,
exits 0 with a neutral check run on the PR's head commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from support import actions_env as env
from support.container import REPO_ROOT, RunnerJob, action_inputs
from support.fake_github import FakeGitHub
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, workflow_text

TOKEN = "ghs_prebuiltImageToken0123456789"


@dataclass(frozen=True)
class PullRequestCheck:
    job: RunnerJob
    head: str
    origin_swiftpm: str


def pull_request_check(root: Path, fake: FakeGitHub) -> PullRequestCheck:
    origin = env.make_origin(root / "remote")
    fake.add_repo(env.REPOSITORY, git_dir=origin.bare)
    fake.add_token(TOKEN)
    job = RunnerJob(root / "job", event_name="pull_request", repository=env.REPOSITORY,
                    api_url=fake.url)
    workspace = env.clone(origin, "main", job.workspace)
    env.git(workspace, "checkout", "-q", "-b", "change-frameworks")
    (workspace / env.WORKFLOW).write_text(
        workflow_text([*PRODUCT_KEYS, *BINARY_ONLY_KEYS, "kernels_new"]))
    head = env.commit_all(workspace, "build kernels_new")
    env.git(workspace, "checkout", "-q", "--detach", origin.main)
    env.git(workspace, "merge", "-q", "--no-ff", "-m", "Merge head into base", head)
    job.sha = env.git(workspace, "rev-parse", "HEAD")
    job.ref = "refs/pull/12/merge"
    job.event = env.pull_request_payload(number=12, head_sha=head, head_ref="change-frameworks",
                                         base_ref="main", base_sha=origin.main)
    job.extra_volumes = {str(origin.bare): str(origin.bare)}
    job.inputs = action_inputs(REPO_ROOT / "action.yml",
                               {"frameworks-from": env.FRAMEWORKS_FROM,
                                "pr-conclusion": "neutral"}, token=TOKEN)
    return PullRequestCheck(job, head, origin.swiftpm)
