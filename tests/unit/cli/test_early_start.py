"""`check` starts reading its `--frameworks-from` workflows before it builds its parser (start-up
time): the words are only scanned, so the early read is used only when argparse agrees, and
an early child is never left behind, whatever the command line turns out to be."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from swiftpm_guard.cli import check as cli_check
from swiftpm_guard.cli.main import main
from swiftpm_guard.sources.workflow_spec import WorkflowSpec

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "release"
SPEC = "workflow/apple.yml:build-frameworks:FRAMEWORKS"
ARGS = ["--template", "swiftpm/Package.swift.template", "--version", "1.0.0",
        "--checksums", "checksums.txt", "-q"]


@pytest.fixture
def release(tmp_path, monkeypatch) -> Path:
    copy = tmp_path / "release"
    shutil.copytree(EXAMPLE, copy)
    monkeypatch.chdir(copy)
    return copy


def _no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_the_scan_finds_both_spellings_in_order():
    words = ["--frameworks-from", "a.yml:j:V", "--x", "--frameworks-from=b.yml:k:W"]
    assert cli_check._workflows_named(words) == (WorkflowSpec("a.yml", "j", "V"),
                                                 WorkflowSpec("b.yml", "k", "W"))
    assert cli_check._workflows_named(["--frameworks-from"]) == ()  # argparse will complain
    assert cli_check._workflows_named(["--frameworks-from", "no-colons"]) == ()


@pytest.mark.parametrize("spelling", [["--frameworks-from", SPEC], [f"--frameworks-from={SPEC}"],
                                      ["--frameworks-f", SPEC]])  # abbreviated: read late
def test_every_spelling_gives_the_same_verdict(release, capsys, spelling):
    assert main(["check", *ARGS, *spelling]) == 0
    assert "20 asked, 20 built" in capsys.readouterr().out
    assert _no_children_left()


def test_the_early_read_is_what_the_check_uses(release, capsys, monkeypatch):
    started = []
    real = cli_check.start_early

    def spy(words):
        ahead = real(words)
        started.append(ahead)
        return ahead

    monkeypatch.setattr(cli_check, "start_early", spy)
    used = []
    real_run = cli_check._run
    monkeypatch.setattr(cli_check, "_run", lambda args, ahead: used.append(ahead) or
                        real_run(args, ahead))
    assert main(["check", *ARGS, "--frameworks-from", SPEC]) == 0
    assert len(started) == 1 and used == started


def test_an_early_child_is_stopped_when_the_command_line_is_bad(release, capsys):
    assert main(["check", *ARGS, "--frameworks-from", SPEC, "--no-such-option"]) == 2
    assert "unrecognized arguments: --no-such-option" in capsys.readouterr().err
    assert _no_children_left()


def test_a_bad_workflow_is_the_same_one_line_error_early_or_late(release, capsys):
    (release / "workflow" / "apple.yml").write_text("jobs: [\n")
    assert main(["check", *ARGS, "--frameworks-from", SPEC]) == 2
    early = capsys.readouterr().err
    assert main(["check", *ARGS, "--frameworks-f", SPEC]) == 2
    late = capsys.readouterr().err
    assert early == late and early.startswith("swiftpm-guard: error: workflow/apple.yml")
    assert early.count("\n") == 1
    assert _no_children_left()
