"""Each setting: the step's input, else the configuration file's, else the input's default."""

from __future__ import annotations

import pytest

from swiftpm_guard.action.settings import ActionSettings
from swiftpm_guard.errors import UsageError

SHA = "1" * 40


def _env(tmp_path, **inputs):
    env = {"GITHUB_EVENT_NAME": "push", "GITHUB_REPOSITORY": "o/r", "GITHUB_SHA": SHA,
           "GITHUB_REF": "refs/heads/main", "GITHUB_WORKSPACE": str(tmp_path)}
    env.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
    return env


FILE = {"template-ref": "release-template", "frameworks-from": "a.yml:build:FRAMEWORKS",
        "accept-static": "true", "exclude-paths": ".github/\nci/", "branch-prefix": "spm-"}


def test_input_over_file_over_default(tmp_path):
    # As the runner passes them: inputs the step does not give are empty (action.yml's
    # default for every setting the file may hold).
    env = _env(tmp_path, **{"template-ref": "", "branch-prefix": "pkg-", "accept-static": "",
                            "check-name": ""})
    settings = ActionSettings.from_env(env, FILE)
    assert settings.template_ref == "release-template"  # the file
    assert settings.branch_prefix == "pkg-"  # the input
    assert settings.accept_static is True and settings.exclude_paths == (".github/", "ci/")
    assert settings.check_name == "SwiftPM manifest"  # neither: the default
    assert settings.frameworks_from[0].path == "a.yml"
    without = ActionSettings.from_env(_env(tmp_path, frameworks="x"))
    assert without.template_ref == "swiftpm" and without.branch_prefix == "swiftpm-"


def test_an_input_given_as_false_wins_over_the_file_s_true(tmp_path):
    settings = ActionSettings.from_env(_env(tmp_path, **{"accept-static": "false"}), FILE)
    assert settings.accept_static is False


def test_pr_comment_from_the_file_and_an_input_of_false_over_it(tmp_path):
    on = {**FILE, "pr-comment": "true"}
    assert ActionSettings.from_env(_env(tmp_path, **{"pr-comment": ""}), on).pr_comment is True
    given = _env(tmp_path, **{"pr-comment": "false"})
    assert ActionSettings.from_env(given, on).pr_comment is False
    assert ActionSettings.from_env(_env(tmp_path, frameworks="x")).pr_comment is False


def test_sources_from_the_file_satisfy_the_check(tmp_path):
    with pytest.raises(UsageError, match="give at least one source input"):
        ActionSettings.from_env(_env(tmp_path))
    assert ActionSettings.from_env(_env(tmp_path), FILE).frameworks_from
