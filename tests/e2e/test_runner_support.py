"""The runner stand-in's own logic (no engine needed): file commands and the env it passes."""

import pytest

from support.container import HOSTILE_ENV, RunnerJob, parse_file_command


def test_file_commands_read_plain_and_heredoc_values():
    text = "consistent=true\nproducts<<ghadelim_1\nexecutorch\nbackend_coreml\nghadelim_1\nx=a=b\n"
    assert parse_file_command(text) == {
        "consistent": "true",
        "products": "executorch\nbackend_coreml",
        "x": "a=b",
    }


@pytest.mark.parametrize("text", ["name<<EOF\nvalue\n", "just words\n"])
def test_malformed_file_commands_are_refused(text):
    with pytest.raises(ValueError):
        parse_file_command(text)


def test_inputs_keep_hyphens_and_job_env_is_hostile(tmp_path):
    job = RunnerJob(tmp_path, inputs={"template-ref": "swiftpm", "github-token": "t"})
    env = job.environment()
    assert env["INPUT_TEMPLATE-REF"] == "swiftpm"
    assert env["INPUT_GITHUB-TOKEN"] == "t"
    assert env["PATH"] == HOSTILE_ENV["PATH"] == "/nonsense"
    assert env["GITHUB_OUTPUT"].startswith("/github/file_commands/set_output_")
    assert env["GITHUB_EVENT_PATH"] == "/github/workflow/event.json"
    assert set(job.volumes()) == {
        str(job.home),
        str(job.workflow),
        str(job.file_commands),
        str(job.workspace),
    }


def test_server_url_is_what_the_step_sees_as_github_server_url(tmp_path):
    assert RunnerJob(tmp_path / "a").environment()["GITHUB_SERVER_URL"] == "https://github.com"
    job = RunnerJob(tmp_path / "b", server_url="http://127.0.0.1:8123")
    assert job.environment()["GITHUB_SERVER_URL"] == "http://127.0.0.1:8123"
