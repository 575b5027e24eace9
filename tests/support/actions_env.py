"""A repository as a GitHub runner sees it: a bare `origin` with a `main` branch (the release
workflow) and a `swiftpm` branch (template and stubs), a workspace cloned from it the way
actions/checkout does (one branch, no other remote refs), event payloads in GitHub's shape,
and the environment the runner gives a Docker action.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, workflow_text, write_template_branch

REPOSITORY = "example/executorch"
WORKFLOW = ".github/workflows/apple.yml"
FRAMEWORKS_FROM = f"{WORKFLOW}:build-frameworks:FRAMEWORKS"
ROOT = Path(__file__).resolve().parents[2]
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **_GIT_ENV, "HOME": str(cwd)}
    done = subprocess.run(
        ["git", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout.strip()


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@dataclass
class Origin:
    bare: Path
    main: str
    swiftpm: str


def make_origin(
    root: Path, frameworks: Sequence[str] | None = None, products: Sequence[str] = PRODUCT_KEYS
) -> Origin:
    """`origin.git` with `main` (README + workflow) and `swiftpm` (template + stubs)."""
    seed = root / "seed"
    seed.mkdir(parents=True)
    git(seed, "init", "-q")
    (seed / "README.md").write_text("# executorch\n")
    workflow = seed / WORKFLOW
    workflow.parent.mkdir(parents=True)
    keys = list(frameworks) if frameworks is not None else [*PRODUCT_KEYS, *BINARY_ONLY_KEYS]
    workflow.write_text(workflow_text(keys))
    main = commit_all(seed, "main")
    git(seed, "checkout", "-q", "--orphan", "swiftpm")
    git(seed, "rm", "-rqf", ".")
    write_template_branch(seed, products)
    swiftpm = commit_all(seed, "template")
    bare = root / "origin.git"
    git(root, "clone", "-q", "--bare", str(seed), str(bare))
    return Origin(bare, main, swiftpm)


def clone(origin: Origin, branch: str, dest: Path) -> Path:
    """Like actions/checkout: only `branch` is fetched, so other branches are absent."""
    git(
        dest.parent,
        "clone",
        "-q",
        "--single-branch",
        "--branch",
        branch,
        str(origin.bare),
        str(dest),
    )
    return dest


def line_of(path: Path, needle: str) -> int:
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


# -- event payloads in GitHub's shape ---------------------------------------------------------


def _repo(full_name: str, default_branch: str = "main", fork: bool = False) -> dict[str, Any]:
    owner, name = full_name.split("/")
    return {
        "id": 1,
        "name": name,
        "full_name": full_name,
        "private": False,
        "fork": fork,
        "owner": {"login": owner, "type": "Organization"},
        "html_url": f"https://github.com/{full_name}",
        "default_branch": default_branch,
    }


def pull_request_payload(
    *,
    number: int,
    head_sha: str,
    head_ref: str,
    base_ref: str,
    base_sha: str,
    head_repo: str = REPOSITORY,
) -> dict[str, Any]:
    base = _repo(REPOSITORY)
    head = _repo(head_repo, fork=head_repo != REPOSITORY)
    return {
        "action": "synchronize",
        "number": number,
        "pull_request": {
            "number": number,
            "state": "open",
            "title": "Change the release",
            "head": {
                "ref": head_ref,
                "sha": head_sha,
                "label": f"{head_repo}:{head_ref}",
                "repo": head,
            },
            "base": {
                "ref": base_ref,
                "sha": base_sha,
                "label": f"example:{base_ref}",
                "repo": base,
            },
            "user": {"login": "contributor"},
        },
        "repository": base,
        "sender": {"login": "contributor"},
    }


def push_payload(*, ref: str, before: str, after: str) -> dict[str, Any]:
    return {
        "ref": ref,
        "before": before,
        "after": after,
        "created": False,
        "deleted": False,
        "forced": False,
        "repository": _repo(REPOSITORY),
        "pusher": {"name": "dev"},
        "sender": {"login": "dev"},
        "head_commit": {"id": after, "message": "change"},
    }


def schedule_payload() -> dict[str, Any]:
    return {"schedule": "0 10 * * *"}


def dispatch_payload(inputs: dict[str, str], ref: str = "refs/heads/main") -> dict[str, Any]:
    return {
        "inputs": inputs,
        "ref": ref,
        "repository": _repo(REPOSITORY),
        "sender": {"login": "dev"},
        "workflow": WORKFLOW,
    }


# -- the runner's environment for a Docker action ---------------------------------------------


@dataclass
class Step:
    env: dict[str, str]
    output_file: Path
    summary_file: Path

    def outputs(self) -> dict[str, str]:
        return parse_outputs(self.output_file.read_text())

    def summary(self) -> str:
        return self.summary_file.read_text()


def runner_env(
    tmp: Path,
    *,
    api_url: str,
    workspace: Path,
    event_name: str,
    payload: dict[str, Any],
    sha: str,
    ref: str,
    inputs: dict[str, str],
) -> Step:
    """Exactly what the runner sets: GITHUB_* and `INPUT_<NAME>` with hyphens kept."""
    files = tmp / "runner"
    files.mkdir(exist_ok=True)
    event_path = files / "event.json"
    event_path.write_text(json.dumps(payload))
    output_file, summary_file = files / "output", files / "step_summary"
    output_file.touch()
    summary_file.touch()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(files),
        "LANG": "C.UTF-8",
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_REPOSITORY": REPOSITORY,
        "GITHUB_REPOSITORY_OWNER": REPOSITORY.split("/")[0],
        "GITHUB_SHA": sha,
        "GITHUB_REF": ref,
        "GITHUB_API_URL": api_url,
        # The fake serves git at `/<owner>/<name>.git` too: the action's repository URL,
        # `{GITHUB_SERVER_URL}/{GITHUB_REPOSITORY}.git`, is the fake's bare repository.
        "GITHUB_SERVER_URL": api_url,
        "GITHUB_GRAPHQL_URL": f"{api_url}/graphql",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_OUTPUT": str(output_file),
        "GITHUB_STEP_SUMMARY": str(summary_file),
        "GITHUB_RUN_ID": "777",
        "GITHUB_RUN_ATTEMPT": "1",
        "GITHUB_ACTOR": "dev",
        "GITHUB_WORKFLOW": "apple",
        "RUNNER_TEMP": str(files),
    }
    if ref.startswith("refs/heads/"):
        env["GITHUB_REF_NAME"] = ref.removeprefix("refs/heads/")
    if event_name.startswith("pull_request"):
        pull = payload["pull_request"]
        env["GITHUB_HEAD_REF"] = pull["head"]["ref"]
        env["GITHUB_BASE_REF"] = pull["base"]["ref"]
    # These machines have no swift: the action's tests accept a static reading unless they
    # say otherwise (the gate itself: tests/unit/core/test_static_gate.py).
    inputs = {"accept-static": "true", **inputs}
    for name, value in inputs.items():
        env[f"INPUT_{name.upper()}"] = value  # the runner keeps hyphens: INPUT_TEMPLATE-REF
    return Step(env, output_file, summary_file)


def run_entrypoint(step: Step, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`entrypoint.py` in a fresh process, as the container's ENTRYPOINT would start it."""
    return subprocess.run(
        [sys.executable, str(ROOT / "entrypoint.py")],
        cwd=cwd,
        env=step.env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def parse_outputs(text: str) -> dict[str, str]:
    """Read GITHUB_OUTPUT the way the runner does: `name=value` and `name<<DELIM` heredocs."""
    values: dict[str, str] = {}
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line:
            continue
        heredoc = re.fullmatch(r"([^=<]+)<<(.+)", line)
        if heredoc:
            name, marker = heredoc.groups()
            body: list[str] = []
            while lines[index] != marker:
                body.append(lines[index])
                index += 1
            index += 1
            values[name] = "\n".join(body)
            continue
        name, sep, value = line.partition("=")
        assert sep, f"malformed output line {line!r}"
        values[name] = value
    return values
