"""composite/action.yml's steps, run as the runner runs them (support/composite.py), on this
host's Python: the install step puts the action's own source into a virtualenv under
RUNNER_TEMP, the second step runs entrypoint.py from it with the inputs as INPUT_*; outputs,
job summary and report are read back. With `swift` on PATH (the runner's, as Xcode's is on
macOS) the manifest is proved with the real SwiftPM inside the action.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from support.actions_env import REPOSITORY, clone, make_origin, push_payload
from support.composite import declared_inputs, run_composite
from support.git_http import serve_git
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, all_names, write_zip
from support.runner_job import Job

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def action_dir(tmp_path_factory) -> Path:
    """The action as the runner fetches it for `uses: owner/swiftpm-guard/composite@ref`:
    the repository's files (tracked and new, nothing ignored) under _actions/…/ref/."""
    root = tmp_path_factory.mktemp("actions") / "octo" / "swiftpm-guard" / "v1"
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], capture_output=True, check=True, timeout=60)
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = ROOT / name
        if source.is_file() and not name.startswith(("tests/", "fuzz/", "examples/")):
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    return root / "composite"


@pytest.fixture(scope="module")
def runner_temp(tmp_path_factory) -> Path:
    """Shared by the module's jobs: the second use finds the virtualenv already made."""
    return tmp_path_factory.mktemp("runner-temp")


@pytest.fixture
def served(tmp_path):
    """A loopback git server at GITHUB_SERVER_URL: where the action reads the repository."""
    root = tmp_path / "served"
    root.mkdir()
    with serve_git(root) as url:
        yield root, url.rstrip("/")


def _job(tmp_path: Path, runner_temp: Path, frameworks: list[str], served: tuple[Path, str],
         path_prefix: str = ""):
    origin = make_origin(tmp_path / "remote", frameworks=frameworks)
    root, server_url = served
    owner, name = REPOSITORY.split("/")
    (root / owner).mkdir()
    (root / owner / f"{name}.git").symlink_to(origin.bare)
    workspace = clone(origin, "main", tmp_path / "workspace")
    (workspace / "out").mkdir()
    for name in all_names([*PRODUCT_KEYS, *BINARY_ONLY_KEYS]):
        write_zip(workspace / "out" / f"{name}-1.2.3.zip", name)
    step = Job(tmp_path, "http://127.0.0.1:9/unreachable").step(
        workspace, "push",
        push_payload(ref="refs/heads/main", before="0" * 40,
                     after=origin.main),
        sha=origin.main, inputs={})
    env = {**step.env, "RUNNER_TEMP": str(runner_temp), "RUNNER_OS": "Linux",
           "GITHUB_SERVER_URL": server_url}
    env["PATH"] = path_prefix + env["PATH"]
    return workspace, env, step.summary_file


def _inputs(action_dir: Path, **given: str) -> dict[str, str]:
    values = {"mode": "check", "version": "1.2.3", "artifacts": "out",
              "frameworks-from": ".github/workflows/apple.yml:build-frameworks:FRAMEWORKS",
              "github-token": "", **given}
    return declared_inputs(action_dir / "action.yml", values)


def test_a_consistent_release_passes_with_the_runners_swiftpm(
    tmp_path, action_dir, runner_temp, swift, served
):
    shim = tmp_path / "runner-bin"
    shim.mkdir()
    (shim / "swift").write_text(f'#!/bin/sh\nexec "{swift}" "$@"\n')
    (shim / "swift").chmod(0o755)
    workspace, env, summary = _job(tmp_path, runner_temp, [*PRODUCT_KEYS, *BINARY_ONLY_KEYS],
                                   served, path_prefix=f"{shim}{os.pathsep}")
    run = run_composite(action_dir, inputs=_inputs(action_dir), env=env, cwd=workspace,
                        scratch=tmp_path / "steps")
    assert run.exit_code == 0, run
    assert run.outputs["consistent"] == "true", run
    assert run.outputs["products"] == "18" and run.outputs["binary-targets"] == "20", run
    assert run.steps["install"]["python"].startswith(str(runner_temp)), run.steps
    report = json.loads((workspace / run.outputs["report"]).read_text())
    assert report["consistent"] is True
    # swift: auto found the runner's swift on PATH and SwiftPM evaluated the manifest.
    assert report["swiftpm"]["used"] is True, report["swiftpm"]
    assert (workspace / run.outputs["manifest"]).is_file()
    assert summary.read_text().strip(), "no job summary"
    # The install built from a copy: nothing written into the action's folder.
    assert not list(action_dir.parent.glob("build")) and not list(
        action_dir.parent.glob("src/*.egg-info"))


def test_a_template_asking_for_an_unbuilt_framework_fails_and_says_where(
    tmp_path, action_dir, runner_temp, served
):
    built = [name for name in PRODUCT_KEYS if name != "kernels_llm"] + list(BINARY_ONLY_KEYS)
    workspace, env, _ = _job(tmp_path, runner_temp, built, served)
    for name in ("kernels_llm", "kernels_llm_debug"):
        (workspace / "out" / f"{name}-1.2.3.zip").unlink()
    run = run_composite(action_dir, inputs=_inputs(action_dir, swift="off"), env=env,
                        cwd=workspace, scratch=tmp_path / "steps")
    assert run.exit_code == 1, run
    assert run.outputs["consistent"] == "false", run
    assert "manifest" not in run.outputs
    # No token: the findings go to the log; the template is on its branch, not in this
    # commit's tree, so they name the branch instead of annotating a file that is not here.
    assert "swiftpm:Package.swift.template:" in run.logs, run
    # With no check run, an error on no line of this commit is a job-level annotation.
    assert "::error title=unfilled-placeholder%3A kernels_llm::" in run.logs, run


def test_the_install_step_refuses_an_old_python_in_one_line(tmp_path, action_dir):
    old = tmp_path / "python3.9"
    old.write_text("#!/bin/sh\nexit 1\n")  # what `python -c 'version >= 3.11'` answers there
    old.chmod(0o755)
    output = tmp_path / "output"
    output.touch()
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(action_dir / "install.sh")],
        env={"PATH": "/usr/bin:/bin", "RUNNER_TEMP": str(tmp_path), "GITHUB_OUTPUT": str(output),
             "SWIFTPM_GUARD_PYTHON": str(old)},
        capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done
    assert done.stdout.startswith("::error title=swiftpm-guard::needs Python >= 3.11"), done
    assert output.read_text() == ""
