"""One output door (issue 25): every line the CLI prints goes through `console`, which
neutralises workflow commands; only our own commands (`console.command`) and a stop-commands
block (`console.block`) reach the runner as commands.

The three leaks the second adversarial pass found, each through the CLI in-process with the
whole log run through the runner's parser model: the audit's tip line (a commit subject and
author someone pushed to a `swiftpm-*` branch), publish's "left out of the published tree"
line (a file name on the template branch), and the dry run's manifest (the template's text).
And the lint rule that keeps the door the only one.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from support.git_remote import commit_folder, git, make_template_remote
from support.published import BranchSpec, build_repo
from support.release import Release, write_template_branch
from support.runner_commands import commands_in
from swiftpm_guard import console
from swiftpm_guard.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
#: What an attacker's text would run: both syntaxes, and a CR the runner splits at.
HOSTILE = "x\r::add-mask::PWNED1 ##[add-mask]PWNED2 \u2028::set-output name=p::PWNED3"


def _assert_nothing_runs(out: str, err: str) -> None:
    for texts in ((out, err), (err, out)):
        runner = commands_in(*texts)
        leaked = [c for c in runner.executed if "PWNED" in f"{c.name} {c.data}"]
        assert leaked == [], leaked
        assert runner.stop_token is None, "command processing was left stopped"


@pytest.fixture
def no_event(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_EVENT_NAME", raising=False)
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_OutputDoorToken0123456789")


def test_the_audit_tip_line_runs_no_command(tmp_path: Path, capsys, no_event: None) -> None:
    bare = build_repo(tmp_path / "published.git", [BranchSpec("1.0.0")])
    tip = git("rev-parse", "refs/heads/swiftpm-1.0.0", cwd=bare).strip()
    tree = git("rev-parse", f"{tip}^{{tree}}", cwd=bare).strip()
    # Whoever may push to a published branch writes its tip's subject and author.
    edited = subprocess.run(
        ["git", "commit-tree", tree, "-p", tip, "-m", "Update ##[add-mask]PWNED1"],
        cwd=bare, capture_output=True, text=True, check=True, timeout=60,
        env={"PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path),
             "GIT_AUTHOR_NAME": "##[add-mask]PWNED4", "GIT_AUTHOR_EMAIL": "a@example.invalid",
             "GIT_COMMITTER_NAME": "c", "GIT_COMMITTER_EMAIL": "c@example.invalid"},
    ).stdout.strip()
    git("update-ref", "refs/heads/swiftpm-1.0.0", edited, cwd=bare)
    code = main(["audit", "--repo", str(bare)])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    assert "tip" in err and "PWNED1" in err, err  # shown, as text
    _assert_nothing_runs(out, err)


def _hostile_template_remote(root: Path, manifest_line: str = "") -> Path:
    bare = make_template_remote(root)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "swiftpm"
        write_template_branch(folder)
        (folder / ".github").mkdir()
        # A file name on the template branch: publish leaves `.github/` out and says so.
        (folder / ".github" / "##[add-mask]PWNED5").write_text("x\n")
        if manifest_line:
            template = folder / "Package.swift.template"
            template.write_text(template.read_text() + manifest_line)
        commit_folder(bare, "swiftpm", folder, "template with hostile names")
    return bare


def test_publish_left_out_line_runs_no_command(
    tmp_path: Path, release: Release, capsys, no_event: None
) -> None:
    bare = _hostile_template_remote(tmp_path / "remote")
    code = main(["publish", "--artifacts", str(release.artifacts), "--version", release.version,
                 "--repo", str(bare), "--dry-run", "--accept-static"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "left out of the published tree" in err and "PWNED5" in err, err
    _assert_nothing_runs(out, err)


def test_the_dry_run_manifest_is_shown_exactly_and_runs_nothing(
    tmp_path: Path, release: Release, capsys, no_event: None
) -> None:
    comment = "/*\n::add-mask::PWNED6\n##[add-mask]PWNED7\n*/\n"
    bare = _hostile_template_remote(tmp_path / "remote", comment)
    code = main(["publish", "--artifacts", str(release.artifacts), "--version", release.version,
                 "--repo", str(bare), "--dry-run", "--accept-static"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "\n::add-mask::PWNED6\n" in out, "the manifest is shown as it is"
    _assert_nothing_runs(out, err)
    runner = commands_in(out)
    stops = [c for c in runner.executed if c.name == "stop-commands"]
    assert len(stops) == 1 and len(stops[0].data) >= 32


def test_console_neutralises_every_line_and_prints_our_commands(capsys) -> None:
    console.say(f"a {HOSTILE}\n::error::PWNED8")
    console.tell(HOSTILE)
    console.log(HOSTILE)
    console.command("::notice title=swiftpm-guard::ours")
    with pytest.raises(ValueError, match="one workflow command"):
        console.command("not a command")
    with pytest.raises(ValueError, match="one workflow command"):
        console.command("::notice::a\n::add-mask::PWNED9")
    out, err = capsys.readouterr()
    _assert_nothing_runs(out, err)
    assert [c.name for c in commands_in(out).executed] == ["notice"]


@pytest.mark.parametrize("module", ["cli/zz_door.py", "infra/zz_door.py", "sinks/zz_door.py"])
@pytest.mark.parametrize(
    "source",
    ["print('x')\n", "import sys\nsys.stdout.write('x')\n", "import sys\nsys.stderr.write('x')\n",
     "import traceback\ntraceback.print_exc()\n", "from sys import stdout\nstdout.write('x')\n"],
    ids=["print", "stdout", "stderr", "traceback", "from-import"],
)
def test_the_lint_rule_refuses_another_door(module: str, source: str) -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed")
    shown = ROOT / "src" / "swiftpm_guard" / module
    done = subprocess.run([ruff, "check", "--no-cache", "--stdin-filename", str(shown), "-"],
                          input=source, capture_output=True, text=True, cwd=ROOT, timeout=60,
                          check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "T201" in done.stdout or "TID251" in done.stdout, done.stdout


def test_a_reader_that_leaves_gets_no_traceback():
    """`swiftpm-guard codes | head -1`: the pipe closes early; exit 141, nothing on stderr."""
    import subprocess
    import sys

    done = subprocess.Popen([sys.executable, "-m", "swiftpm_guard", "codes"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert done.stdout is not None and done.stderr is not None
    done.stdout.close()
    with done.stderr:
        err = done.stderr.read()
    assert done.wait(timeout=60) == 141 and b"Traceback" not in err and err == b""
