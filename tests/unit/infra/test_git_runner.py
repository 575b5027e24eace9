import os
import subprocess
from pathlib import Path

import pytest

from swiftpm_guard.errors import InfrastructureError, UsageError
from swiftpm_guard.infra.git import find_git, git_environment


def test_inherited_git_configuration_is_dropped_and_ours_comes_first():
    base = {
        "PATH": "/x",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "core.hooksPath",
        "GIT_CONFIG_VALUE_0": "/evil",
    }
    env = git_environment(
        base, safe_directories=["/github/workspace"], config=[("user.name", "Release Bot")]
    )
    entries = [(env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"])
               for i in range(int(env["GIT_CONFIG_COUNT"]))]
    assert entries[:2] == [("safe.directory", "/github/workspace"), ("user.name", "Release Bot")]
    assert ("core.hooksPath", "/evil") not in entries
    assert ("core.hooksPath", os.devnull) in entries
    assert env["GIT_TERMINAL_PROMPT"] == "0"
    assert base["GIT_CONFIG_COUNT"] == "1", "the caller's mapping is not changed"


def test_multi_line_values_are_refused():
    with pytest.raises(UsageError, match="one line"):
        git_environment({}, config=[("user.name", "a\n[core]\n\tsshCommand = evil")])


def test_git_reads_the_configuration_from_the_environment(tmp_path: Path):
    git = find_git(os.environ.get("PATH"))
    env = git_environment(
        {"PATH": "/nonsense", "HOME": str(tmp_path)}, config=[("user.email", "bot@example.invalid")]
    )
    shown = subprocess.run(
        [git, "config", "--get", "user.email"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert shown.stdout.strip() == "bot@example.invalid"


def test_git_is_found_by_absolute_path_when_the_job_path_is_useless():
    found = find_git("/nonsense")
    assert os.path.isabs(found) and os.access(found, os.X_OK)


def test_no_git_anywhere_is_an_infrastructure_error(monkeypatch):
    monkeypatch.setattr("swiftpm_guard.infra.git.SYSTEM_PATH", "/nonsense-too")
    with pytest.raises(InfrastructureError, match="git is not installed"):
        find_git("/nonsense")


#: What a runner's environment holds that no git (nor a hook it starts) may see.
SECRETS = {
    "GITHUB_TOKEN": "ghs_secret1",
    "INPUT_GITHUB-TOKEN": "ghs_secret2",
    "INPUT_PUSH-TOKEN": "ghp_secret3",
    "ACTIONS_RUNTIME_TOKEN": "secret4",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "secret5",
    "GIT_ASKPASS": "/bin/evil",
    "GIT_SSH_COMMAND": "evil",
    "LD_PRELOAD": "/evil.so",
    "GIT_TRACE_CURL": "/tmp/trace",
}


@pytest.mark.parametrize("user_config", [False, True])
def test_the_environment_is_an_allow_list(user_config):
    base = {"PATH": "/usr/bin", "HOME": "/h", "SSH_AUTH_SOCK": "/agent", **SECRETS}
    env = git_environment(base, user_config=user_config)
    assert not set(SECRETS) & set(env)
    assert not any("secret" in value for value in env.values())
    assert env["PATH"] == "/usr/bin" and env["SSH_AUTH_SOCK"] == "/agent"
    assert env["LC_ALL"] == "C"


def test_user_config_only_for_a_cli_run_without_a_token():
    plain = git_environment({"PATH": "/x"}, user_config=True)
    assert "GIT_CONFIG_GLOBAL" not in plain and "ssh" in plain["GIT_ALLOW_PROTOCOL"]
    for env in (
        git_environment({"PATH": "/x"}, user_config=False),
        git_environment({"PATH": "/x", "GITHUB_ACTIONS": "true"}, user_config=True),
        git_environment({"PATH": "/x"}, user_config=True,
                        config=[("http.https://h/.extraHeader", "Authorization: x")]),
    ):
        assert env["GIT_CONFIG_GLOBAL"] == os.devnull and env["GIT_CONFIG_NOSYSTEM"] == "1"
        assert env["GIT_ALLOW_PROTOCOL"] == "file:http:https"
        entries = [(env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"])
                   for i in range(int(env["GIT_CONFIG_COUNT"]))]
        assert ("credential.helper", "") in entries


def test_only_our_own_variables_may_be_added():
    env = git_environment({}, variables={"GIT_INDEX_FILE": "/tmp/i"})
    assert env["GIT_INDEX_FILE"] == "/tmp/i"
    with pytest.raises(ValueError, match="GIT_SSH_COMMAND"):
        git_environment({}, variables={"GIT_SSH_COMMAND": "evil"})


def test_the_repository_config_cannot_start_a_program(tmp_path: Path):
    """The workspace clone's own .git/config (which an earlier step may have written) loses
    to our command-line entries for every key git would start a program from."""
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True, capture_output=True)
    evil = {"core.hooksPath": "/evil", "core.fsmonitor": "/evil", "core.askPass": "/evil",
            "credential.helper": "!/evil", "commit.gpgSign": "true",
            "fetch.recurseSubmodules": "yes", "gc.auto": "1"}
    for key, value in evil.items():
        subprocess.run(["git", "-C", str(repo), "config", key, value], check=True)
    env = git_environment({"PATH": os.environ["PATH"], "HOME": str(tmp_path)})
    for key in evil:
        shown = subprocess.run([find_git(os.environ.get("PATH")), "-C", str(repo), "config",
                                "--get-all", key], env=env, capture_output=True, text=True,
                               check=False).stdout.splitlines()
        assert shown and "evil" not in shown[-1], (key, shown)
