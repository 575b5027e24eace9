"""Workflow-command injection: hostile names reach the log, the runner must run none of them.

`support/runner_commands.py` models the runner's parser (both syntaxes, escaping, stop-commands,
line splitting at CR too, culture-sensitive matching that skips weightless characters). Here:
1. the model itself, on the runner's documented cases;
2. our own commands round-trip through it exactly (what we send is what runs);
3. every line built from outside text (finding lines, error messages, log lines) yields no
   command, for generated hostile text;
4. the CLI and the action in-process, with hostile stub folder names, zip file names and zip
   member names: the whole log (stdout and stderr, in either order) runs exactly the commands
   the action wrote itself, and never stops command processing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.actions_env import (
    REPOSITORY,
    clone,
    commit_all,
    git,
    make_origin,
    push_payload,
)
from support.fake_fixture import fake_github_fixture
from support.fake_github import FakeGitHub
from support.release import BINARY_ONLY_KEYS, PRODUCT_KEYS, Release, all_names, write_zip
from support.runner_commands import (
    REGISTERED,
    Runner,
    commands_in,
    parse_legacy,
    parse_v2,
    split_lines,
)
from support.runner_job import Job
from swiftpm_guard.core.model import Finding, Severity
from swiftpm_guard.errors import InputError
from swiftpm_guard.report.check import console_line
from swiftpm_guard.sinks import actions_io
from swiftpm_guard.workflow_commands import neutralise

TOKEN = "ghs_workflowCommandsToken0123"
ALL_KEYS = [*PRODUCT_KEYS, *BINARY_ONLY_KEYS]

#: Payloads an attacker would try, each with the marker PWNED somewhere in what it would set.
PAYLOADS = [
    "::set-output name=pwned::PWNED",
    "##[add-mask]PWNED",
    "::stop-commands::PWNEDSTOPTOKEN",
    " \t::error title=PWNED::x",
    "\u200b::warning::PWNED",
    "\u3000::notice::PWNED",
    "#\u00ad#[add-mask]PWNED",
    ":\u200d:add-mask:\u2060:PWNED",
    "::ADD-MASK::PWNED",
    "x\r::set-output name=pwned::PWNED",
    "x\n##[error]PWNED",
    "##[set-output name=pwned;]PWNED",
    "%0A::add-mask::PWNED",
    "::add-path::/tmp/PWNED",
    "::echo::on",
]

# -- 1. the model ------------------------------------------------------------------------------


def test_model_reads_both_syntaxes_as_the_runner_does() -> None:
    v2 = parse_v2("  ::set-output name=a%2Cb,x=1::d%0Aata%3A", REGISTERED)
    assert v2 is not None and v2.name == "set-output"
    assert v2.properties == {"name": "a,b", "x": "1"} and v2.data == "d\nata%3A"
    legacy = parse_legacy("text before ##[do-something k1=v1;]msg", {"do-something"})
    assert legacy is not None and legacy.properties == {"k1": "v1"} and legacy.data == "msg"
    assert parse_legacy("see ##[add-mask]x%5Dy", REGISTERED).data == "x]y"  # type: ignore[union-attr]
    assert parse_v2("x ::add-mask::y", REGISTERED) is None  # V2 only at the line's start
    assert parse_v2("::unknown::y", REGISTERED) is None
    assert parse_v2("::Add-Mask::y", REGISTERED).name == "add-mask"  # type: ignore[union-attr]
    assert split_lines("a\rb\r\nc\nd") == ["a", "b", "c", "d"]


def test_model_stops_and_resumes_like_the_runner() -> None:
    runner = commands_in(
        "::stop-commands::Resume1234\n::add-mask::hidden\n##[error]no\n::resume1234::\n"
        "::warning::yes\n"
    )
    assert [c.name for c in runner.executed] == ["stop-commands", "warning"]
    assert [c.name for c in runner.ignored_while_stopped] == ["add-mask", "error"]


def test_model_skips_weightless_characters_like_a_culture_sensitive_match() -> None:
    assert parse_legacy("#\u00ad#[add-mask]x", REGISTERED) is not None
    assert parse_v2("\u200b::add-mask::x", REGISTERED) is not None
    assert parse_v2(":\u200d:add-mask:\u2060:x", REGISTERED) is not None


# -- 2. our own commands run exactly as written -------------------------------------------------

TEXT = st.text(max_size=60)


@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(["error", "warning", "notice"]),
    message=TEXT,
    # A value starting with `=` is split differently by .NET versions; never one of ours.
    file=TEXT.filter(lambda t: not t.strip().startswith("=")),
    title=TEXT.filter(lambda t: not t.strip().startswith("=")),
    line=st.integers(1, 10_000),
)
def test_our_commands_round_trip_through_the_runner(
    name: str, message: str, file: str, title: str, line: int
) -> None:
    text = actions_io.command(name, message, {"file": file, "line": line, "title": title})
    runner = commands_in(text + "\n")
    assert len(runner.executed) == 1, text
    command = runner.executed[0]
    assert command.syntax == "v2" and command.name == name
    assert command.data == message
    expected = {"file": file.strip(), "line": str(line), "title": title.strip()}
    # The runner trims the property list and drops a property whose value is empty
    # (`StringSplitOptions.RemoveEmptyEntries`): command() sends them so.
    assert command.properties == {k: v for k, v in expected.items() if v}


# -- 3. lines built from outside text run nothing -----------------------------------------------

HOSTILE = st.one_of(
    st.sampled_from(PAYLOADS),
    st.builds(lambda a, p, b: a + p + b, TEXT, st.sampled_from(PAYLOADS), TEXT),
    st.text(alphabet=":#[] \t\r\n\u200b\u00ad\u2028\x85%0ADSaddmsk-", max_size=40),
)


def _runs_nothing(*lines: str) -> None:
    runner = commands_in("\n".join(lines) + "\n")
    assert runner.executed == [] and runner.ignored_while_stopped == [], lines


@settings(max_examples=400, deadline=None)
@given(file=HOSTILE, subject=HOSTILE, message=HOSTILE, line=st.none() | st.integers(1, 99))
def test_finding_lines_run_nothing(file: str, subject: str, message: str, line: int | None) -> None:
    finding = Finding(
        code="zip-layout",
        severity=Severity.ERROR,
        subject=subject,
        message=message,
        file=file or None,
        line=line,
    )
    _runs_nothing(console_line(finding))
    _runs_nothing(*(neutralise(t) for t in [console_line(finding), message, file]))


@settings(max_examples=300, deadline=None)
@given(message=HOSTILE, file=HOSTILE)
def test_error_lines_run_nothing(message: str, file: str) -> None:
    error = InputError(message, file=file or None)
    _runs_nothing(f"swiftpm-guard: error: {error}")
    _runs_nothing(neutralise(f"swiftpm-guard: {message}"))


# -- 4. the whole log of the CLI and of the action ----------------------------------------------

#: File-system-safe hostile names (no `/`, no NUL).
NAMES = [p for p in PAYLOADS if "/" not in p]


def _hostile_release(root: Path, names: list[str], version: str = "1.2.3") -> tuple[Path, Path]:
    """A template branch folder with hostile stub folders and a zip folder with hostile zips."""
    from support.release import write_template_branch

    template_dir = root / "swiftpm"
    write_template_branch(template_dir)
    for name in names:
        stub = template_dir / ".Package.swift" / name
        stub.mkdir(parents=True, exist_ok=True)
        (stub / "dummy.swift").write_text("// stub\n")
    out = root / "out"
    out.mkdir(parents=True)
    for name in all_names(ALL_KEYS):
        write_zip(out / f"{name}-{version}.zip", name)
    for index, name in enumerate(names):
        (out / f"{name}-{version}.zip").write_bytes(b"PK\x05\x06" + bytes(18))
        # A real framework's zip whose members carry the payload instead of <name>.xcframework/.
        target = all_names(ALL_KEYS)[index % len(ALL_KEYS)]
        with zipfile.ZipFile(out / f"{target}-{version}.zip", "w") as archive:
            archive.writestr(f"{name}/Info.plist", b"x")
            archive.writestr(f"../{name}", b"x")
    return template_dir, out


def _own_command_lines(text: str) -> set[int]:
    """Lines the action wrote as its own commands: `::name ` or `::name::` at column 0."""
    own = set()
    for index, line in enumerate(split_lines(text)):
        for name in ("add-mask", "error", "warning", "notice", "group", "endgroup"):
            if line.startswith((f"::{name} ", f"::{name}::")):
                own.add(index)
    return own


def _assert_only_our_commands(out: str, err: str, token: str | None) -> None:
    for first, second in ((out, err), (err, out)):
        runner = Runner()
        runner.feed(first)
        offset = runner.lines
        runner.feed(second)
        expected = _own_command_lines(first) | {offset + i for i in _own_command_lines(second)}
        executed = {c.line for c in runner.executed}
        assert runner.ignored_while_stopped == [] and runner.stop_token is None
        assert executed == expected, [c for c in runner.executed if c.line not in expected]
        for command in runner.executed:
            assert command.syntax == "v2"
            if command.name == "add-mask":
                assert command.data == token


def run_cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "swiftpm_guard", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_cli_log_runs_no_command(tmp_path: Path) -> None:
    template_dir, out = _hostile_release(tmp_path, NAMES)
    done = run_cli(
        tmp_path,
        "check",
        "--template",
        str(template_dir / "Package.swift.template"),
        "--version",
        "1.2.3",
        "--artifacts",
        str(out),
    )
    assert done.returncode == 1, done.stderr
    assert "PWNED" in done.stderr  # the names are shown, only neutralised
    _assert_only_our_commands(done.stdout, done.stderr, None)
    assert commands_in(done.stdout, done.stderr).executed == []


def test_a_jinja_error_quoting_template_text_runs_no_command(
    tmp_path: Path, release: Release
) -> None:
    template = tmp_path / "Package.swift.j2"
    template.write_text('{{ {"a": 1}["##[add-mask]PWNED ::set-output name=x::PWNED"] }}\n')
    done = run_cli(
        tmp_path,
        "check",
        "--template",
        str(template),
        "--version",
        "1.2.3",
        "--checksums",
        str(release.checksums),
    )
    assert done.returncode == 2 and "PWNED" in done.stderr, done.stderr
    assert commands_in(done.stdout, done.stderr).executed == []


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    yield from fake_github_fixture()


def _action_step(tmp_path: Path, fake: FakeGitHub, names: list[str]):
    origin = make_origin(tmp_path / "remote")
    fake.add_repo(REPOSITORY, git_dir=origin.bare)
    fake.add_token(TOKEN)
    template_dir, out = _hostile_release(tmp_path / "hostile", names)
    # The template branch gains the hostile stub folders; main gains the hostile zips.
    branch = clone(origin, "swiftpm", tmp_path / "template-clone")
    for stub in (template_dir / ".Package.swift").iterdir():
        target = branch / ".Package.swift" / stub.name
        target.mkdir(parents=True, exist_ok=True)
        (target / "dummy.swift").write_text("// stub\n")
    commit_all(branch, "hostile stubs")
    git(branch, "push", "-q", "origin", "swiftpm")
    workspace = clone(origin, "main", tmp_path / "workspace")
    os.rename(out, workspace / "out")
    after = commit_all(workspace, "zips")
    return Job(tmp_path / "step", fake.url).step(
        workspace, "push", push_payload(ref="refs/heads/main", before=origin.main, after=after),
        sha=after, inputs={"version": "1.2.3", "artifacts": "out", "github-token": TOKEN})


@pytest.mark.parametrize("check_run", ["healthy", "refused"])
def test_the_action_log_runs_only_its_own_commands(
    tmp_path: Path,
    fake_github: FakeGitHub,
    capsys: pytest.CaptureFixture[str],
    check_run: str,
) -> None:
    from swiftpm_guard.action import main as action
    from swiftpm_guard.infra.github import RetryPolicy

    (tmp_path / "step").mkdir()
    step = _action_step(tmp_path, fake_github, NAMES)
    if check_run == "refused":  # every finding then goes out as a workflow command
        fake_github.inject("checks/create", "422", times=1)
    code = action.main(step.env, policy=RetryPolicy(attempts=1, request_timeout=5, seconds_between_writes=None))
    out, err = capsys.readouterr()
    assert code == 1, out + err
    assert "PWNED" in out + err
    _assert_only_our_commands(out, err, TOKEN)
    outputs = step.outputs()
    assert "pwned" not in outputs and outputs["consistent"] == "false"


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    names=st.lists(
        st.builds(
            lambda a, p: (a + p)[:120],
            st.text(
                alphabet=st.characters(blacklist_characters="/\0", blacklist_categories=("Cs",)),
                max_size=8,
            ),
            st.sampled_from(NAMES),
        ),
        min_size=1,
        max_size=3,
        unique=True,
    )
)
def test_the_action_log_runs_only_its_own_commands_for_generated_names(
    tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str], names
) -> None:
    from swiftpm_guard.action import main as action
    from swiftpm_guard.infra.github import RetryPolicy

    names = [n for n in names if n not in (".", "..") and n.strip(".")]
    if not names:
        return
    for fake in fake_github_fixture():
        tmp_path = tmp_path_factory.mktemp("generated")
        (tmp_path / "step").mkdir()
        step = _action_step(tmp_path, fake, names)
        fake.inject("checks/create", "422", times=1)
        code = action.main(step.env, policy=RetryPolicy(attempts=1, request_timeout=5, seconds_between_writes=None))
        out, err = capsys.readouterr()
        assert code in (1, 2), out + err
        _assert_only_our_commands(out, err, TOKEN)


@settings(max_examples=200, deadline=None)
@given(body=st.lists(HOSTILE, max_size=6).map("\n".join))
def test_a_block_between_stop_commands_markers_runs_nothing_of_its_own(body: str) -> None:
    from swiftpm_guard.workflow_commands import stop_commands_block

    token = "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6"
    lines = stop_commands_block(body, token)
    runner = commands_in("\n".join(lines) + "\n::warning::after\n")
    # Whatever the block holds is ignored; the token resumes; our next command runs.
    assert [c.name for c in runner.executed] == ["stop-commands", "warning"]
    assert runner.stop_token is None

