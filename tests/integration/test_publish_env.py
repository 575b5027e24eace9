"""A runner's git environment must not steer the publish: GIT_* variables, a global config that
rewrites URLs or sets hooks, trace files that would log headers — all ignored."""

from __future__ import annotations

import json
import subprocess
import sys

from support.git_remote import refs

BRANCH = "refs/heads/swiftpm-1.2.3"


def test_inherited_git_environment_and_global_config_are_ignored(remote, release, tmp_path):
    home = tmp_path / "home"
    hooks = home / "hooks"
    hooks.mkdir(parents=True)
    marker = tmp_path / "hook-ran"
    for name in ("pre-push", "pre-receive", "reference-transaction"):
        (hooks / name).write_text(f"#!/bin/sh\ntouch {marker}\n")
        (hooks / name).chmod(0o755)
    # A global config that would send the push elsewhere, run hooks and name another author.
    (home / ".gitconfig").write_text(
        f'[url "{tmp_path}/elsewhere.git"]\n\tinsteadOf = {remote.url}\n'
        f"[core]\n\thooksPath = {hooks}\n"
        "[user]\n\tname = Global User\n\temail = global@example.invalid\n"
        "[http]\n\textraHeader = X-Leak: from-global-config\n"
    )
    trace = tmp_path / "trace.log"
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home),
        "GITHUB_TOKEN": remote.token or "unused",
        "GIT_DIR": str(tmp_path / "not-a-repo"),
        "GIT_WORK_TREE": str(tmp_path / "not-a-tree"),
        "GIT_INDEX_FILE": str(tmp_path / "nowhere" / "index"),
        "GIT_OBJECT_DIRECTORY": str(tmp_path / "nowhere" / "objects"),
        "GIT_CONFIG": str(home / ".gitconfig"),
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "GIT_CONFIG_PARAMETERS": f"'url.{tmp_path}/elsewhere.git.insteadof'='{remote.url}'",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "core.hooksPath",
        "GIT_CONFIG_VALUE_0": str(hooks),
        "GIT_TRACE": str(trace),
        "GIT_TRACE_CURL": str(trace),
        "GIT_TRACE_PACKET": str(trace),
        "GIT_AUTHOR_NAME": "Env Author",
        "GIT_COMMITTER_NAME": "Env Committer",
        "GIT_ASKPASS": "/bin/false",
        "GIT_SSH_COMMAND": f"touch {marker}",
    }
    report = tmp_path / "report.json"
    result = subprocess.run(
        [
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
            "--author",
            "Release Bot <bot@example.invalid>",
            "--accept-static",  # no swift here
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    commit = json.loads(report.read_text())["publish"]["commit"]
    assert refs(remote.bare)[BRANCH] == commit
    assert not (tmp_path / "elsewhere.git").exists()
    assert not marker.exists() and not trace.exists()
    shown = subprocess.run(
        ["git", "log", "-1", "--format=%an|%cn", commit],
        cwd=remote.bare,
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
        env={"PATH": env["PATH"], "GIT_CONFIG_NOSYSTEM": "1"},
    ).stdout
    assert shown.strip() == "Release Bot|Release Bot"
    if remote.server is not None:
        assert remote.server.authorizations and all(
            a == remote.server.expected_authorization() for a in remote.server.authorizations
        )


def test_the_git_environment_keeps_only_our_git_settings():
    from swiftpm_guard.infra.git import SYSTEM_PATH, git_environment

    env = git_environment(
        {"PATH": "/bin", "GIT_DIR": "x", "GIT_SSH_COMMAND": "y", "SSH_ASKPASS": "z", "HOME": "/h"},
        config=[("a.b", "c")],
    )
    assert env["PATH"] == SYSTEM_PATH and env["HOME"] == "/h"
    assert "GIT_DIR" not in env and "GIT_SSH_COMMAND" not in env and "SSH_ASKPASS" not in env
    assert (env["GIT_CONFIG_KEY_0"], env["GIT_CONFIG_VALUE_0"]) == ("a.b", "c")
    assert env["GIT_CONFIG_NOSYSTEM"] == "1" and env["GIT_TERMINAL_PROMPT"] == "0"
    assert env["GIT_ALLOW_PROTOCOL"] == "file:http:https"
