"""The forked child that bounds parsers and templates: every way a child can end is a value.

Real forks, real signals, real deadlines; the functions the child runs are module-level so the
test reads as what the child does.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from swiftpm_guard.errors import InputError
from swiftpm_guard.infra import bounded
from swiftpm_guard.infra.bounded import Bounded, call_in_child, run_bounded
from swiftpm_guard.infra.child_reply import Ended


def _add(a: int, b: int) -> int:
    return a + b


def _guard_error() -> None:
    raise InputError("bad thing", file="t.yml", line=7)


def _value_error() -> None:
    raise ValueError("no")


def _recurse(n: int = 0) -> int:
    return _recurse(n + 1)


def _hog() -> bytes:
    return b"x" * (2 << 30)


def _segfault() -> None:
    os.kill(os.getpid(), signal.SIGSEGV)


def _exit_quietly() -> None:
    os._exit(3)


def _sleep() -> None:
    time.sleep(60)


def _unpicklable() -> object:
    return lambda: None


def test_a_result_comes_back():
    assert run_bounded(_add, 2, 3, seconds=10) == Bounded(5, None)


def test_each_way_of_failing_is_named():
    message, file, line, error = call_in_child(_guard_error, (), seconds=10).payload
    assert (message, file, line) == ("t.yml:7: bad thing", "t.yml", 7)
    # The error itself travels too, so a caller can raise it again exactly as it was.
    assert type(error) is InputError
    assert (str(error), error.file, error.line) == (message, file, line)
    assert run_bounded(_value_error, seconds=10).failure == "failed (ValueError: no)"
    assert run_bounded(_recurse, seconds=10).failure == "nested too deeply"
    assert run_bounded(_hog, seconds=10, memory_bytes=64 << 20).failure == \
        "needed more than 64 MiB"
    assert run_bounded(_segfault, seconds=10).failure == "crashed (SIGSEGV)"
    assert run_bounded(_exit_quietly, seconds=10).failure == "died (exit status 3)"
    assert run_bounded(_unpicklable, seconds=10).failure.startswith(
        "failed (its result could not be sent back")


def test_a_stalled_child_is_killed_at_the_deadline_not_after_the_grace():
    started = time.monotonic()
    outcome = run_bounded(_sleep, seconds=0.3)
    elapsed = time.monotonic() - started
    assert outcome == Bounded(None, "did not finish within 0.3 s")
    # Killed at once: the grace for exiting children (5 s) is not waited out.
    assert elapsed < bounded.EXIT_GRACE_SECONDS


def test_no_child_is_left_behind(forks):
    run_bounded(_add, 1, 2, seconds=10)
    run_bounded(_segfault, seconds=10)
    run_bounded(_sleep, seconds=0.3)
    assert len(forks.pids) == 3 and forks.all_reaped()


def test_an_oversized_reply_is_refused(monkeypatch):
    monkeypatch.setattr(bounded, "MAX_REPLY_BYTES", 1024)
    outcome = run_bounded(bytes, 4096, seconds=10)
    assert outcome.value is None
    assert outcome.failure is not None and outcome.failure.startswith(
        "failed (answered with more than")


CHILD_OUTPUT = """
import sys
from swiftpm_guard.infra.bounded import run_bounded
sys.stdout.write("parent-buffered ")   # not yet flushed when the child is forked
print(run_bounded(len, "abc", seconds=10).value)
"""


def test_the_child_never_flushes_or_exits_through_the_parents_code():
    """multiprocessing's children flush inherited buffers; a bare `_exit` child must not."""
    done = subprocess.run([sys.executable, "-c", CHILD_OUTPUT], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout == "parent-buffered 3\n"
    assert done.stderr == ""


def _nested() -> Bounded[int]:
    return run_bounded(_add, 20, 22, seconds=10)


def test_a_child_may_bound_a_child_of_its_own():
    """The workflow reader's child runs the bash parse in a grandchild, under the cap it got."""
    assert run_bounded(_nested, seconds=20) == Bounded(Bounded(42, None), None)


def test_a_started_child_works_beside_the_parent_and_counts_its_deadline_from_the_start():
    child = bounded.start_in_child(time.sleep, (0.5,), seconds=0.3)
    time.sleep(0.4)  # the parent's own work: the child's deadline passes meanwhile
    assert child.wait().kind == "timeout"
    started = bounded.start_in_child(_add, (1, 2), seconds=10)
    assert started.wait() == started.wait() == Ended("ok", 3)


def test_a_cancelled_child_is_killed_and_reaped(forks):
    child = bounded.start_in_child(_sleep, (), seconds=60)
    child.cancel()
    child.cancel()  # twice is harmless
    assert len(forks.pids) == 1 and forks.all_reaped()


def test_where_there_is_no_fork_the_child_is_spawned(monkeypatch):
    """Windows runners (the composite action) have no fork: the same answers, from a spawned
    interpreter (forced here by hiding os.fork)."""
    monkeypatch.delattr(os, "fork")
    assert run_bounded(_add, 2, 3, seconds=60) == Bounded(5, None)
    assert run_bounded(_value_error, seconds=60).failure == "failed (ValueError: no)"
    assert run_bounded(_exit_quietly, seconds=60).failure == "died (exit status 3)"
    started = time.monotonic()
    assert run_bounded(_sleep, seconds=3).failure == "did not finish within 3 s"
    assert time.monotonic() - started < bounded.EXIT_GRACE_SECONDS + 3


def test_without_pidfds_an_answered_child_is_still_reaped_and_a_wedged_one_killed(monkeypatch,
                                                                                 forks):
    """Exits are awaited with a pidfd where Linux has them, else by polling (macOS)."""
    monkeypatch.delattr(os, "pidfd_open", raising=False)
    assert run_bounded(_add, 2, 3, seconds=10) == Bounded(5, None)
    assert not bounded._exits_within(_started_sleeper(), 0.2)
    assert forks.all_reaped() is False  # the sleeper: alive until killed below
    for pid in forks.pids[1:]:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    assert forks.all_reaped()


def _started_sleeper() -> int:
    pid = os.fork()
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    return pid


def test_an_answered_child_is_left_to_exit_until_cancel_reaps_it(forks):
    child = bounded.start_in_child(_add, (1, 1), seconds=10)
    assert child.wait() == Ended("ok", 2)
    child.cancel()
    assert len(forks.pids) == 1 and forks.all_reaped()
