"""git configuration through the environment: appended, never clobbering what is there."""

from __future__ import annotations

from swiftpm_guard.git_env import safe_directory, with_config


def test_pairs_are_appended_after_existing_entries():
    env = {
        "PATH": "/bin",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "user.name",
        "GIT_CONFIG_VALUE_0": "x",
    }
    got = with_config(env, [("safe.directory", "/w"), ("core.quotePath", "false")])
    assert got["GIT_CONFIG_COUNT"] == "3"
    assert (got["GIT_CONFIG_KEY_0"], got["GIT_CONFIG_VALUE_0"]) == ("user.name", "x")
    assert (got["GIT_CONFIG_KEY_1"], got["GIT_CONFIG_VALUE_1"]) == ("safe.directory", "/w")
    assert (got["GIT_CONFIG_KEY_2"], got["GIT_CONFIG_VALUE_2"]) == ("core.quotePath", "false")
    assert env["GIT_CONFIG_COUNT"] == "1"  # the caller's mapping is not changed


def test_a_bogus_count_starts_over_and_nothing_is_set_without_pairs():
    assert with_config({"GIT_CONFIG_COUNT": "x"}, [("a.b", "c")])["GIT_CONFIG_COUNT"] == "1"
    assert with_config({}, [])["GIT_CONFIG_COUNT"] == "0"


def test_safe_directory_is_the_resolved_path(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert safe_directory(tmp_path / "link") == ("safe.directory", str(tmp_path / "real"))
