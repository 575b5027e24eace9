import os
import subprocess
from pathlib import Path

import pytest

from swiftpm_guard.errors import InfrastructureError, UsageError
from swiftpm_guard.infra.git import find_git, git_environment


def test_safe_directory_and_identity_are_numbered_after_existing_entries():
    base = {
        "PATH": "/x",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "core.autocrlf",
        "GIT_CONFIG_VALUE_0": "false",
    }
    env = git_environment(
        base, safe_directories=["/github/workspace"], config=[("user.name", "Release Bot")]
    )
    assert env["GIT_CONFIG_COUNT"] == "3"
    assert (env["GIT_CONFIG_KEY_0"], env["GIT_CONFIG_VALUE_0"]) == ("core.autocrlf", "false")
    assert (env["GIT_CONFIG_KEY_1"], env["GIT_CONFIG_VALUE_1"]) == (
        "safe.directory",
        "/github/workspace",
    )
    assert (env["GIT_CONFIG_KEY_2"], env["GIT_CONFIG_VALUE_2"]) == ("user.name", "Release Bot")
    assert env["GIT_TERMINAL_PROMPT"] == "0"
    assert base["GIT_CONFIG_COUNT"] == "1", "the caller's mapping is not changed"


@pytest.mark.parametrize("count", ["x", "-1", "1e3"])
def test_a_malformed_count_is_refused(count):
    with pytest.raises(UsageError, match="GIT_CONFIG_COUNT"):
        git_environment({"GIT_CONFIG_COUNT": count}, safe_directories=["/w"])


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
