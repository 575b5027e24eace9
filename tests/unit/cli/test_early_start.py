"""`check` starts reading its `--frameworks-from` workflows before it builds its parser (start-up
time): the words are only scanned, so the early read is used only when argparse agrees, and
an early child is never left behind, whatever the command line turns out to be."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from swiftpm_guard.cli import check as cli_check
from swiftpm_guard.cli import check_early
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



def _named(words):
    return check_early._values_of("--frameworks-from", words, WorkflowSpec.parse)


def test_the_scan_finds_both_spellings_in_order():
    words = ["--frameworks-from", "a.yml:j:V", "--x", "--frameworks-from=b.yml:k:W"]
    assert _named(words) == (WorkflowSpec("a.yml", "j", "V"), WorkflowSpec("b.yml", "k", "W"))
    assert _named(["--frameworks-from"]) == ()  # argparse will complain
    assert _named(["--frameworks-from", "no-colons"]) == ()


def test_the_grammar_child_is_started_only_when_tree_sitter_will_check(monkeypatch, tmp_path,
                                                                       forks):
    monkeypatch.setenv("PATH", str(tmp_path))  # no swift on PATH
    for words, wanted in ((["-q"], True), (["--swift", "off"], True), (["--swift=auto"], True),
                          (["--swift", "/opt/swift/bin/swift"], False)):
        with check_early.Early(words) as early:
            assert (early.syntax is not None) is wanted, words
    swift = tmp_path / "swift"
    swift.write_text("#!/bin/sh\n")
    swift.chmod(0o755)
    with check_early.Early(["-q"]) as early:
        assert early.syntax is None  # SwiftPM will run: no tree-sitter child
    assert forks.all_reaped()


@pytest.mark.parametrize("spelling", [["--frameworks-from", SPEC], [f"--frameworks-from={SPEC}"],
                                      ["--frameworks-f", SPEC]])  # abbreviated: read late
def test_every_spelling_gives_the_same_verdict(release, capsys, spelling, forks):
    assert main(["check", *ARGS, *spelling]) == 0
    assert "20 asked, 20 built" in capsys.readouterr().out
    assert forks.all_reaped()


def test_the_early_read_is_what_the_check_uses(release, capsys, monkeypatch, forks):
    started = []

    class Spy(check_early.Early):
        def __init__(self, words):
            super().__init__(words)
            started.append(self)

    monkeypatch.setattr(check_early, "Early", Spy)
    used = []
    real_run = cli_check._run
    monkeypatch.setattr(cli_check, "_run", lambda args, ahead, syntax: used.append(
        (ahead, syntax)) or real_run(args, ahead, syntax))
    assert main(["check", *ARGS, "--swift", "off", "--frameworks-from", SPEC]) == 0
    assert len(started) == 1
    assert used == [(started[0].workflows, started[0].syntax)]
    assert started[0].syntax is not None
    assert forks.all_reaped()


def test_an_early_child_is_stopped_when_the_command_line_is_bad(release, capsys, forks):
    assert main(["check", *ARGS, "--frameworks-from", SPEC, "--no-such-option"]) == 2
    assert "unrecognized arguments: --no-such-option" in capsys.readouterr().err
    assert forks.all_reaped()


def test_a_bad_workflow_is_the_same_one_line_error_early_or_late(release, capsys, forks):
    (release / "workflow" / "apple.yml").write_text("jobs: [\n")
    assert main(["check", *ARGS, "--frameworks-from", SPEC]) == 2
    early = capsys.readouterr().err
    assert main(["check", *ARGS, "--frameworks-f", SPEC]) == 2
    late = capsys.readouterr().err
    assert early == late and early.startswith("swiftpm-guard: error: workflow/apple.yml")
    assert early.count("\n") == 1
    assert forks.all_reaped()
