"""The configuration file on the command line: `.github/swiftpm-guard.yml` in the current
folder (or `--config FILE`), each option given on the command line winning over it."""

from __future__ import annotations

import json

import pytest

from swiftpm_guard.cli.main import main

CONFIG = ".github/swiftpm-guard.yml"


@pytest.fixture
def here(release, tmp_path, monkeypatch):
    """The release's folder as the current folder, its workflow named in the file."""
    root = release.root
    monkeypatch.chdir(root)
    (root / ".github").mkdir()
    (root / CONFIG).write_text("frameworks-from: workflow/apple.yml:build-frameworks:FRAMEWORKS\n"
                               "accept-static: true\ndebug-suffix: _dbg\n"
                               "check-name: action only\n")
    return root


def _report(path):
    return json.loads(path.read_text())


def test_the_file_here_gives_the_options_not_given(release, here, tmp_path, capsys):
    out = tmp_path / "r.json"
    code = main(["check", "--template", str(release.template), "--debug-suffix", "_debug",
                 "--json", str(out)])
    assert code == 0, capsys.readouterr()
    report = _report(out)
    # frameworks-from and accept-static from the file; --debug-suffix from the command line.
    assert report["declared"] and report["proof"] == "static"
    assert f"settings from {here / CONFIG}" in capsys.readouterr().err


def test_the_command_line_wins_over_the_file(release, here, tmp_path, capsys):
    (here / CONFIG).write_text("frameworks-from: workflow/nothing.yml:build:FRAMEWORKS\n"
                               "accept-static: true\n")
    out = tmp_path / "r.json"
    code = main(["check", "--template", str(release.template), "--json", str(out),
                 "--frameworks-from", "workflow/apple.yml:build-frameworks:FRAMEWORKS"])
    assert code == 0, capsys.readouterr()
    assert _report(out)["declared"]


def test_config_none_and_a_named_file(release, here, tmp_path, capsys):
    code = main(["check", "--template", str(release.template), "--config", "none"])
    assert code == 2  # no source at all without the file's frameworks-from
    assert "give at least one source" in capsys.readouterr().err
    named = tmp_path / "guard.yml"
    named.write_text("accept-static: true\n")
    code = main(["check", "--template", str(release.template), "--config", str(named),
                 "--artifacts", str(release.artifacts), "--version", release.version])
    assert code == 0, capsys.readouterr()


@pytest.mark.parametrize(("text", "says"), [
    ("accept-static: yes\n", ":1: accept-static must be true or false, got 'yes'"),
    ("\nfrmeworks-from: x\n", ":2: unknown setting 'frmeworks-from'"),
    ("github-token: x\n", ":1: setting 'github-token' cannot be in the configuration file"),
])
def test_a_bad_file_is_one_line_and_exit_2(release, here, capsys, text, says):
    (here / CONFIG).write_text(text)
    code = main(["check", "--template", str(release.template), "--artifacts",
                 str(release.artifacts), "--version", release.version])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"swiftpm-guard: error: {here / CONFIG}{says}" + err[0].split(says, 1)[1]]


def test_a_named_file_that_is_not_there(release, tmp_path, capsys):
    code = main(["check", "--template", str(release.template), "--config",
                 str(tmp_path / "absent.yml")])
    assert code == 2
    assert "absent.yml" in capsys.readouterr().err
