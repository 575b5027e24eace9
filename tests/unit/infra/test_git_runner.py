import os
import subprocess
from pathlib import Path

import pytest

from swiftpm_guard.errors import InfrastructureError, UsageError
from swiftpm_guard.infra.git import SYSTEM_PATH, Git, find_git, git_environment, parse_ls_remote


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
    git = find_git()
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
    found = find_git({"PATH": "/nonsense"})
    assert os.path.isabs(found) and os.access(found, os.X_OK)


def test_a_git_first_on_the_jobs_path_is_never_chosen(tmp_path: Path):
    planted = tmp_path / "git"
    planted.write_text("#!/bin/sh\nexit 0\n")
    planted.chmod(0o755)
    assert find_git({"PATH": str(tmp_path), "GITHUB_ACTIONS": "true"}) != str(planted)
    # A developer's own PATH outside Actions is theirs.
    assert find_git({"PATH": str(tmp_path)}) == str(planted)


def test_no_git_anywhere_is_an_infrastructure_error(monkeypatch):
    monkeypatch.setattr("swiftpm_guard.infra.git.SYSTEM_PATH", "/nonsense-too")
    with pytest.raises(InfrastructureError, match="git is not installed"):
        find_git({"PATH": "/nonsense", "GITHUB_ACTIONS": "true"})


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


#: What an earlier step may have set for the job: never git's to follow.
JOB_CHOICES = {"http_proxy": "http://p", "HTTPS_PROXY": "http://p", "ALL_PROXY": "socks5://p",
               "no_proxy": "*", "TMPDIR": "/github/workspace/tmp"}


@pytest.mark.parametrize("user_config", [False, True])
def test_the_environment_is_an_allow_list(user_config):
    base = {"PATH": "/planted:/usr/bin", "HOME": "/h", "SSH_AUTH_SOCK": "/agent",
            "GITHUB_ACTIONS": "true", **SECRETS, **JOB_CHOICES}
    env = git_environment(base, user_config=user_config)
    assert not (set(SECRETS) | set(JOB_CHOICES)) & set(env)
    assert not any("secret" in value for value in env.values())
    assert env["PATH"] == SYSTEM_PATH and env["SSH_AUTH_SOCK"] == "/agent"
    assert env["LC_ALL"] == "C"


def test_a_proxy_is_an_explicit_setting_only():
    env = Git(environ={"https_proxy": "http://planted"}, proxy="http://chosen:3128").environment()
    entries = [(env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"])
               for i in range(int(env["GIT_CONFIG_COUNT"]))]
    assert ("http.proxy", "http://chosen:3128") in entries
    assert "planted" not in "".join(env.values())


def test_a_header_never_goes_into_the_environment(tmp_path: Path):
    key, value = "http.https://h.example/.extraHeader", "Authorization: Basic c2VjcmV0"
    with pytest.raises(ValueError, match="credentials file"):
        git_environment({}, config=[(key, value)])
    env = git_environment({}, config=[(key, value)], credentials_file="/run/x/config")
    assert env["GIT_CONFIG_GLOBAL"] == "/run/x/config"
    assert not any("c2VjcmV0" in v for v in env.values())
    git = Git(environ={"HOME": str(tmp_path)}, config=((key, value),))
    shown = git.run(["config", "--show-origin", "--get-all", key], timeout=30)
    origin, _tab, got = shown.stdout.decode().strip().partition("\t")
    assert got == value and origin.startswith("file:") and origin.endswith("/config")
    assert not os.path.exists(origin.removeprefix("file:")), "the file outlived the process"
    # Quoting survives: a value git would otherwise read as a comment or an escape.
    odd = "Authorization: x;y #z \\ \"q\""
    shown = Git(config=(("http.https://h.example/.extraHeader", odd),)).run(
        ["config", "--get", key], timeout=30)
    assert shown.stdout.decode().rstrip("\n") == odd


def test_user_config_only_for_a_cli_run_without_a_token():
    plain = git_environment({"PATH": "/x"}, user_config=True)
    assert "GIT_CONFIG_GLOBAL" not in plain and "ssh" in plain["GIT_ALLOW_PROTOCOL"]
    for env in (
        git_environment({"PATH": "/x"}, user_config=False),
        git_environment({"PATH": "/x", "GITHUB_ACTIONS": "true"}, user_config=True),
        git_environment({"PATH": "/x"}, user_config=True, credentials_file=os.devnull,
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
        shown = subprocess.run([find_git(), "-C", str(repo), "config",
                                "--get-all", key], env=env, capture_output=True, text=True,
                               check=False).stdout.splitlines()
        assert shown and "evil" not in shown[-1], (key, shown)


def test_one_ls_remote_parser():
    listing = (b"1111111111111111111111111111111111111111\trefs/heads/main\n"
               b"2222222222222222222222222222222222222222\trefs/tags/v1\n"
               b"3333333333333333333333333333333333333333\trefs/tags/v1^{}\n"
               b"not-a-sha\trefs/heads/x\n")
    assert parse_ls_remote(listing) == {"refs/heads/main": "1" * 40, "refs/tags/v1": "2" * 40}
