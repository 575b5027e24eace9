"""infra.process: the one runner every program we start goes through (real processes)."""

import os
import time
from pathlib import Path

import pytest

from swiftpm_guard.errors import InfrastructureError, Overrun
from swiftpm_guard.infra.process import run

ENV = {"PATH": "/usr/bin:/bin"}


def test_output_exit_code_and_stdin_much_larger_than_a_pipe_come_through(tmp_path: Path):
    data = os.urandom(3 << 20)  # far past a pipe's 64 KiB: written while its echo is read
    done = run(["cat"], env=ENV, cwd=tmp_path, timeout=30, stdin=data)
    assert (done.returncode, done.stdout, done.stderr) == (0, data, b"")

    failed = run(["sh", "-c", "echo out; echo err >&2; exit 3"], env=ENV, cwd=tmp_path,
                 timeout=30)
    assert (failed.returncode, failed.stdout, failed.stderr) == (3, b"out\n", b"err\n")
    merged = run(["sh", "-c", "echo one; echo two >&2"], env=ENV, cwd=tmp_path, timeout=30,
                 merge_stderr=True)
    assert (merged.stdout, merged.stderr) == (b"one\ntwo\n", b"")


def test_only_the_environment_given_reaches_the_program(tmp_path: Path):
    done = run(["sh", "-c", "env"], env={**ENV, "ONLY": "this"}, cwd=tmp_path, timeout=30)
    seen = dict(line.split("=", 1) for line in done.stdout.decode().splitlines())
    assert seen.get("ONLY") == "this" and "HOME" not in seen


def _gone(pid: int) -> bool:
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def test_past_the_deadline_the_whole_group_is_killed(tmp_path: Path):
    script = f'sleep 60 & echo $! > {tmp_path}/child.pid; wait'
    started = time.monotonic()
    with pytest.raises(Overrun, match=r"sh did not finish within 0\.5 s; stopped it") as raised:
        run(["sh", "-c", script], env=ENV, cwd=tmp_path, timeout=0.5)
    assert raised.value.timeout and time.monotonic() - started < 10
    assert _gone(int((tmp_path / "child.pid").read_text()))  # the grandchild too


def test_a_grace_period_lets_the_program_clean_up_on_term(tmp_path: Path):
    script = f"trap 'echo cleaned > {tmp_path}/term; exit 1' TERM; sleep 60 & wait"
    with pytest.raises(Overrun):
        run(["sh", "-c", script], env=ENV, cwd=tmp_path, timeout=0.5, grace=5.0)
    assert (tmp_path / "term").read_text() == "cleaned\n"


def test_a_program_printing_past_the_cap_is_stopped(tmp_path: Path):
    started = time.monotonic()
    with pytest.raises(Overrun, match="printed more than 1 MiB") as raised:
        run(["sh", "-c", "while :; do echo xxxxxxxxxxxxxxxx; done"], env=ENV, cwd=tmp_path,
            timeout=60, max_output=1 << 20)
    assert not raised.value.timeout and time.monotonic() - started < 30


def test_a_program_that_cannot_start_is_an_infrastructure_error(tmp_path: Path):
    with pytest.raises(InfrastructureError, match="cannot run missing: No such file"):
        run([str(tmp_path / "missing")], env=ENV, cwd=tmp_path, timeout=5)
