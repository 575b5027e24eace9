"""What publish mode checks before it pushes (`sinks.files.prepare_output_dir`) and how a push
that happened is reported whatever fails later (`sinks.actions_io.report_push`).

A push cannot be taken back: the action pushed first and only then found `.swiftpm-guard` was
a symlink or a file, exiting 2 with no outputs. These are the functions the action calls before
the push and right after it (`action/publish.py`; end to end in
tests/e2e/entrypoint/test_publish_preconditions.py).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from support.actions_env import parse_outputs
from swiftpm_guard.errors import InputError
from swiftpm_guard.sinks.actions_io import report_push
from swiftpm_guard.sinks.files import prepare_output_dir

NAME = ".swiftpm-guard"


def _refused(workspace: Path, **kwargs) -> str:
    """prepare_output_dir fails at once (a thread guards against a blocking open)."""
    outcome: list[BaseException | Path] = []
    thread = threading.Thread(
        target=lambda: outcome.append(_call(workspace, **kwargs)), daemon=True
    )
    thread.start()
    thread.join(20)
    assert not thread.is_alive(), "prepare_output_dir blocked"
    assert isinstance(outcome[0], InputError), outcome
    return str(outcome[0])


def _call(workspace: Path, **kwargs) -> BaseException | Path:
    try:
        return prepare_output_dir(workspace, NAME, **kwargs)
    except BaseException as error:
        return error


def test_a_missing_folder_is_created_and_nothing_else_is_left(tmp_path: Path) -> None:
    summary = tmp_path / "summary"
    summary.write_text("before\n")
    folder = prepare_output_dir(tmp_path, NAME, append_to=[(summary, "job summary")])
    assert folder == tmp_path / NAME and folder.is_dir() and list(folder.iterdir()) == []
    assert summary.read_text() == "before\n"


@pytest.mark.parametrize("kind", ["symlink-to-folder", "symlink-dangling", "file", "fifo"])
def test_the_output_folder_must_be_a_plain_folder(tmp_path: Path, kind: str) -> None:
    path = tmp_path / NAME
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if kind == "symlink-to-folder":
        path.symlink_to(elsewhere, target_is_directory=True)
    elif kind == "symlink-dangling":
        path.symlink_to(tmp_path / "missing")
    elif kind == "file":
        path.write_text("x")
    else:
        os.mkfifo(path)
    message = _refused(tmp_path)
    assert message.startswith(f"{NAME}:") and "\n" not in message
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("kind", ["folder", "symlink"])
def test_a_report_path_that_cannot_be_replaced_is_refused(tmp_path: Path, kind: str) -> None:
    folder = tmp_path / NAME
    folder.mkdir()
    if kind == "folder":
        (folder / "report.json").mkdir()
    else:
        (folder / "report.json").symlink_to("/etc/passwd")
    assert f"{NAME}/report.json" in _refused(tmp_path)


@pytest.mark.parametrize("kind", ["fifo", "folder", "missing-parent", "device"])
def test_the_summary_and_outputs_files_must_take_an_append(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "runner" / "step_summary"
    target.parent.mkdir()
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "folder":
        target.mkdir()
    elif kind == "missing-parent":
        target = tmp_path / "nowhere" / "step_summary"
    else:
        target = Path("/dev/null")
    if kind == "device":
        message = _refused(tmp_path, append_to=[(target, "job summary")])
        assert "not a regular file" in message
        return
    message = _refused(tmp_path, append_to=[(target, "job summary")])
    assert str(target) in message and "job summary" in message


def test_a_push_is_reported_even_when_the_summary_cannot_be_written(tmp_path: Path) -> None:
    outputs = tmp_path / "output"
    outputs.touch()
    summary = tmp_path / "summary"
    summary.mkdir()  # appending fails
    lines = report_push(
        outputs, summary, branch="swiftpm-1.2.3", commit="a" * 40, remote="https://x/r.git",
        summary="Pushed `swiftpm-1.2.3`.\n",
    )
    assert parse_outputs(outputs.read_text()) == {"pushed": "true", "branch": "swiftpm-1.2.3"}
    assert lines[0] == (
        "::notice title=swiftpm-guard::pushed swiftpm-1.2.3 at " + "a" * 40 + " to https://x/r.git"
    )
    assert len(lines) == 2 and lines[1].startswith("::warning title=swiftpm-guard::")
