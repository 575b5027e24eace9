"""Tokens reach only git's credential path (issue 25): a workspace clone whose .git/config and
hooks an earlier step of the job wrote (a pull request's build can) runs nothing of ours.

Planted in the clone: every hook (in `.git/hooks` and in a `core.hooksPath` folder), a
`core.fsmonitor` program, a filter driver on every path, a credential helper, `core.askPass`,
`core.sshCommand`, `remote.origin.uploadpack`, a `gc.auto` that would run `pre-auto-gc`, and a
global config in the job's `$HOME` naming the same. Each program records its environment (and
the environment of its parent, where a token would be). Then the action fetches the template
ref into the clone and checks, publishes and audits; nothing may be recorded. A plain git with
the runner's environment first proves the plants fire.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.action_repo import Served, served
from support.actions_env import (
    FRAMEWORKS_FROM,
    REPOSITORY,
    git,
    make_origin,
    run_entrypoint,
    runner_env,
    schedule_payload,
)
from support.fake_github import FakeGitHub
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, all_names, write_zip

TOKEN = "ghs_containmentToken0123456789"
PUSH_TOKEN = "ghp_containmentPushToken0123456789"
NIGHTLY = "1.2.3.20250101"
HOOKS = ("post-checkout", "reference-transaction", "pre-push", "post-index-change",
         "pre-auto-gc", "post-merge", "post-rewrite", "push-to-checkout", "pre-commit",
         "fsmonitor-watchman", "post-update", "pre-receive", "update")


def _recorder(path: Path, name: str, record: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"""#!/bin/sh
env > "{record}/{name}.$$"
cat "/proc/$PPID/environ" 2>/dev/null | tr '\\0' '\\n' >> "{record}/{name}.$$"
exit 0
""")
    path.chmod(0o755)
    return path


def plant(workspace: Path, home: Path, record: Path) -> None:
    """Everything in the clone and the job's $HOME that git could start a program from."""
    record.mkdir(parents=True, exist_ok=True)
    spare = workspace.parent / "planted-hooks"
    for name in HOOKS:
        _recorder(workspace / ".git" / "hooks" / name, f"hook-{name}", record)
        _recorder(spare / name, f"hookspath-{name}", record)
    program = {key: _recorder(workspace.parent / "planted" / key, key, record)
               for key in ("fsmonitor", "filter", "credential", "askpass", "ssh", "uploadpack")}
    settings = {
        "core.hooksPath": str(spare),
        "core.fsmonitor": str(program["fsmonitor"]),
        "filter.evil.clean": str(program["filter"]),
        "filter.evil.smudge": str(program["filter"]),
        "filter.evil.process": str(program["filter"]),
        "filter.evil.required": "true",
        "credential.helper": f"!{program['credential']}",
        "core.askPass": str(program["askpass"]),
        "core.sshCommand": str(program["ssh"]),
        "remote.origin.uploadpack": str(program["uploadpack"]),
        "remote.origin.receivepack": str(program["uploadpack"]),
        "gc.auto": "1",
        "fetch.recurseSubmodules": "yes",
    }
    for key, value in settings.items():
        git(workspace, "config", key, value)
    (workspace / ".git" / "info").mkdir(exist_ok=True)
    (workspace / ".git" / "info" / "attributes").write_text("* filter=evil diff=evil\n")
    home.mkdir(parents=True, exist_ok=True)
    (home / ".gitconfig").write_text("".join(_config_line(k, v) for k, v in settings.items()))


def _config_line(key: str, value: str) -> str:
    section, _, name = key.rpartition(".")
    head, _, sub = section.partition(".")
    title = f'{head} "{sub}"' if sub else head
    return f"[{title}]\n\t{name} = {value}\n"


def recorded(record: Path) -> list[str]:
    return sorted(p.name for p in record.iterdir())


@pytest.fixture(params=["path", "http"])
def repo(request, tmp_path: Path, fake_github: FakeGitHub) -> Iterator[Served]:
    origin = make_origin(tmp_path / "remote")
    with served(request.param, origin, tmp_path / "srv", PUSH_TOKEN) as made:
        fake_github.add_repo(REPOSITORY, git_dir=made.bare)
        fake_github.add_token(TOKEN)
        yield made


def _step(tmp_path: Path, fake: FakeGitHub, repo: Served, workspace: Path, name: str,
          inputs: dict[str, str]):
    (tmp_path / name).mkdir()
    step = runner_env(tmp_path / name, api_url=fake.url, workspace=workspace,
                      event_name="schedule", payload=schedule_payload(), sha=repo.origin.main,
                      ref="refs/heads/main",
                      inputs={"github-token": TOKEN, "push-token": PUSH_TOKEN, **inputs})
    step.env["HOME"] = str(tmp_path / "home")
    step.env["ACTIONS_RUNTIME_TOKEN"] = "runtime-token-secret"
    return repo.point(step)


def test_planted_hooks_fsmonitor_and_filters_run_nothing(tmp_path, repo, fake_github):
    workspace = repo.clone("main", tmp_path / "workspace")
    out = workspace / "out"
    out.mkdir()
    for name in all_names([*PRODUCT_KEYS, *BINARY_ONLY_KEYS]):
        write_zip(out / f"{name}-{NIGHTLY}.zip", name)
    record = tmp_path / "recorded"
    plant(workspace, tmp_path / "home", record)

    # The plants are real: plain git, as an earlier step would run it, starts them.
    subprocess.run(["git", "-C", str(workspace), "update-ref", "refs/probe", "HEAD"],
                   env={"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home")},
                   capture_output=True, timeout=60, check=False)
    assert recorded(record), "no planted program ran for plain git: the test proves nothing"
    for path in record.iterdir():
        path.unlink()

    steps = {
        "check": {"mode": "check", "version": NIGHTLY, "artifacts": "out",
                  "frameworks-from": FRAMEWORKS_FROM},
        "publish": {"mode": "publish", "version": NIGHTLY, "artifacts": "out",
                    "frameworks-from": FRAMEWORKS_FROM},
        "audit": {"mode": "audit"},
    }
    for name, inputs in steps.items():
        step = _step(tmp_path, fake_github, repo, workspace, name, inputs)
        result = run_entrypoint(step, workspace)
        assert result.returncode == 0, (name, result.stdout + result.stderr)
        assert recorded(record) == [], (name, recorded(record))
    assert f"swiftpm-{NIGHTLY}" in repo.heads(), "the publish step pushed nothing"
    if repo.kind == "path":  # over http the clone holds no token: its fetch gets a 401
        # The check step read the template ref through the clone: fetched into it.
        assert git(workspace, "rev-parse", "refs/remotes/origin/swiftpm") == repo.origin.swiftpm
