"""The image, built from this repository and run the way the GitHub runner runs it.

Every run here has the runner's mounts and environment, a workspace owned by uid 1001 and the
job's hostile PATH/PYTHONPATH/PYTHONHOME. Until the action's entrypoint exists (issue 3) the
scenarios run the CLI inside the image; `test_action_*` take over from there.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from support.container import (
    REPO_ROOT,
    WORKSPACE,
    RunnerJob,
    action_inputs,
    chown_tree,
    release_clone,
)
from support.fake_github import running
from support.release import write_release

pytestmark = pytest.mark.container

CLI = ["/usr/local/bin/swiftpm-guard"]
PYTHON = "/opt/swiftpm-guard/bin/python"


def _release_job(tmp_path: Path, **release_options) -> RunnerJob:
    job = RunnerJob(tmp_path / "job")
    write_release(job.workspace, version="1.2.3", **release_options)
    return job


def _check_args(*extra: str) -> list[str]:
    # Relative paths: the runner's --workdir is the workspace, as in a workflow step.
    return [
        "check",
        "--template",
        "swiftpm/Package.swift.template",
        "--version",
        "1.2.3",
        "--artifacts",
        "artifacts",
        "--checksums",
        "checksums.txt",
        "--frameworks-from",
        "workflow/apple.yml:build-frameworks:FRAMEWORKS",
        *extra,
    ]


def _plant_decoys(workspace: Path) -> None:
    """Modules a hostile job could leave where PYTHONPATH or the working directory point."""
    boom = "raise SystemExit('decoy imported: the image trusted the job environment')\n"
    for relative in (
        "decoys/yaml.py",
        "decoys/sitecustomize.py",
        "decoys/startup.py",
        "decoys/swiftpm_guard/__init__.py",
        "swiftpm_guard/__init__.py",
        "yaml.py",
        "jinja2.py",
    ):
        path = workspace / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(boom)


def test_image_has_the_shape_a_docker_action_needs(image):
    config = image.attrs["Config"]
    entrypoint = config["Entrypoint"]
    assert entrypoint and entrypoint[0].startswith("/"), f"entrypoint not absolute: {entrypoint}"
    assert "-I" in entrypoint, "python must run isolated from the job's PYTHON* variables"
    assert config.get("User") in ("", None), "the runner needs root in the workspace"
    assert config.get("WorkingDir") in ("", None), "the runner sets --workdir itself"


def test_consistent_release_passes_and_writes_the_report_into_the_workspace(
    engine, image, tmp_path
):
    job = _release_job(tmp_path)
    _plant_decoys(job.workspace)
    result = job.run(
        engine, image, entrypoint=CLI, command=_check_args("--json", "swiftpm-guard-report.json")
    )
    assert result.exit_code == 0, result
    assert "decoy imported" not in result.logs
    assert "consistent for 1.2.3" in result.logs, result
    report = json.loads((job.workspace / "swiftpm-guard-report.json").read_text())
    assert report["consistent"] is True
    assert report["version"] == "1.2.3"
    # The image's SwiftPM evaluated it, though the job's PATH leads nowhere.
    assert report["proof"] == "swiftpm", report["swiftpm"]


def test_a_placeholder_without_a_built_framework_fails_with_exit_1(engine, image, tmp_path):
    # The template still asks for kernels_llm; this build did not make it.
    built = [
        "executorch",
        "backend_coreml",
        "backend_mps",
        "backend_xnnpack",
        "kernels_custom",
        "kernels_optimized",
        "kernels_quantized",
        "kernels_torchao",
        "threadpool",
    ]
    job = _release_job(tmp_path, built=built)
    result = job.run(
        engine, image, entrypoint=CLI, command=_check_args("--json", "swiftpm-guard-report.json")
    )
    assert result.exit_code == 1, result
    assert "kernels_llm" in result.logs, result
    report = json.loads((job.workspace / "swiftpm-guard-report.json").read_text())
    assert report["consistent"] is False
    assert any("kernels_llm" in json.dumps(f) for f in report["findings"])


def test_bad_input_exits_2_in_one_line_and_writes_nothing(engine, image, tmp_path):
    job = _release_job(tmp_path)
    args = _check_args("--json", "swiftpm-guard-report.json")
    args[args.index("1.2.3")] = "1.2.3/../../x"
    result = job.run(engine, image, entrypoint=CLI, command=args)
    assert result.exit_code == 2, result
    assert result.logs.strip().count("\n") == 0 and "not a safe version" in result.logs, result
    assert not (job.workspace / "swiftpm-guard-report.json").exists()


_GIT_PROBE = """
import os, subprocess, sys
from swiftpm_guard.infra.git import find_git, git_environment
git = find_git()
plain = subprocess.run([git, "rev-parse", "HEAD"], capture_output=True, text=True)
print("plain:", plain.returncode, plain.stderr.strip().splitlines()[:1])
env = git_environment(os.environ, safe_directories=[os.environ["GITHUB_WORKSPACE"]])
safe = subprocess.run([git, "rev-parse", "HEAD"], env=env, capture_output=True, text=True)
print("safe:", safe.returncode, safe.stdout.strip())
print("global config:", os.path.exists(os.path.join(os.environ["HOME"], ".gitconfig")))
"""


def test_git_reads_a_workspace_owned_by_the_runner_user(engine, image, tmp_path):
    git = shutil.which("git")
    assert git, "the host needs git to make the workspace repository"
    job = RunnerJob(tmp_path / "job")
    write_release(job.workspace, version="1.2.3")
    identity = ["-c", "user.name=Test", "-c", "user.email=test@example.invalid"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], [*identity, "commit", "-qm", "x"]):
        subprocess.run([git, *args], cwd=job.workspace, check=True)
    head = subprocess.run(
        [git, "rev-parse", "HEAD"], cwd=job.workspace, check=True, capture_output=True, text=True
    ).stdout.strip()
    chown_tree(job.workspace, 1001)
    result = job.run(engine, image, entrypoint=[PYTHON, "-I", "-c", _GIT_PROBE])
    assert result.exit_code == 0, result
    # Without help git refuses the workspace: the test really covers the runner's ownership.
    assert "plain: 128" in result.logs and "dubious ownership" in result.logs, result
    assert f"safe: 0 {head}" in result.logs, result
    assert "global config: False" in result.logs, result


@pytest.fixture
def fake():
    """The fake GitHub on loopback: here only its smart-HTTP git at GITHUB_SERVER_URL."""
    with running() as server:
        yield server


@pytest.mark.skipif(
    not (REPO_ROOT / "entrypoint.py").exists(),
    reason="entrypoint.py (issue 3) is not in the repository yet",
)
def test_action_check_on_push_without_a_token_writes_outputs(engine, image, tmp_path, fake):
    """GITHUB_SERVER_URL is the fake GitHub, serving the clone's bare repository as a public
    one: the action reads the template branch there by git, and with no token sends none."""
    job = RunnerJob(tmp_path / "job", event_name="push", repository="example/executorch",
                    server_url=fake.url)
    sha, origin = release_clone(job.workspace, tmp_path)
    fake.add_repo(job.repository, git_dir=origin)
    job.sha = sha
    job.event = {
        "ref": "refs/heads/main",
        "after": sha,
        "repository": {"full_name": job.repository, "default_branch": "main"},
    }
    job.inputs = action_inputs(
        REPO_ROOT / "action.yml",
        {
            "mode": "check",
            "version": "1.2.3",
            "artifacts": "artifacts",
            "checksums": "checksums.txt",
            "frameworks-from": ".github/workflows/apple.yml:build-frameworks:FRAMEWORKS",
        },
        token="",
    )
    result = job.run(engine, image)
    assert result.exit_code == 0, result
    assert result.outputs.get("consistent") == "true", (result.outputs, str(result))
    report = result.outputs.get("report", "")
    assert report, result.outputs
    assert (job.workspace / report.removeprefix(f"{WORKSPACE}/")).is_file(), report
    assert result.summary.strip(), "no job summary written"
    # The template came by git from GITHUB_SERVER_URL, with no Authorization header; the API
    # (unreachable here) was never needed.
    assert any("git-upload-pack" in path for _m, path, _a in fake.git_requests), result
    assert {auth for _m, _p, auth in fake.git_requests} == {None}, fake.git_requests
    assert fake.requests == [] and not fake.violations
