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
from pathlib import Path

from swiftpm_guard.errors import InputError
from swiftpm_guard.infra import bounded
from swiftpm_guard.infra.bounded import Ended, run_bounded, run_bounded_each


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
    assert run_bounded(_add, 2, 3, seconds=10) == Ended("ok", 5)


def _failure(function, **kwargs) -> str:
    return run_bounded(function, seconds=10, **kwargs).failure(10, kwargs.get("memory_bytes",
                                                                             1 << 30))


def test_each_way_of_failing_is_named():
    ended = run_bounded(_guard_error, seconds=10)
    assert (ended.kind, ended.detail, ended.line) == ("guard", "t.yml:7: bad thing", 7)
    # The error itself travels too, so a caller can raise it again exactly as it was.
    error = ended.error
    assert type(error) is InputError
    assert (str(error), error.file, error.line) == ("t.yml:7: bad thing", "t.yml", 7)
    assert _failure(_value_error) == "failed (ValueError: no)"
    assert _failure(_recurse) == "nested too deeply"
    assert _failure(_hog, memory_bytes=64 << 20) == "needed more than 64 MiB"
    assert _failure(_segfault) == "crashed (SIGSEGV)"
    assert _failure(_exit_quietly) == "died (exit status 3)"
    assert _failure(_unpicklable).startswith("failed (its result could not be sent back")


def test_a_stalled_child_is_killed_at_the_deadline():
    started = time.monotonic()
    ended = run_bounded(_sleep, seconds=0.3)
    assert ended == Ended("timeout") and ended.failure(0.3) == "did not finish within 0.3 s"
    assert time.monotonic() - started < 5  # killed at once, not waited for


def test_no_child_is_left_behind(forks):
    run_bounded(_add, 1, 2, seconds=10)
    run_bounded(_segfault, seconds=10)
    run_bounded(_sleep, seconds=0.3)
    assert len(forks.pids) == 3 and forks.all_reaped()


def test_an_oversized_reply_is_refused(monkeypatch):
    monkeypatch.setattr(bounded, "MAX_REPLY_BYTES", 1024)
    ended = run_bounded(bytes, 4096, seconds=10)
    assert ended.value is None
    assert ended.failure(10).startswith("failed (answered with more than")


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


def _nested() -> Ended[int]:
    return run_bounded(_add, 20, 22, seconds=10)


def test_a_child_may_bound_a_child_of_its_own():
    assert run_bounded(_nested, seconds=20) == Ended("ok", Ended("ok", 42))



# -- several children side by side ---------------------------------------------------------------


def _meet(folder: str, me: str, other: str) -> bool:
    """Leave a mark, then wait (at most 10 s) for the other child's: True only when both
    children ran at the same time."""
    Path(folder, me).touch()
    waited = time.monotonic() + 10
    while time.monotonic() < waited:
        if Path(folder, other).exists():
            return True
        time.sleep(0.01)
    return False


def test_children_run_side_by_side_and_each_end_comes_back_with_its_position(tmp_path):
    calls = [(_meet, (str(tmp_path), "a", "b")), (_segfault, ()), (_meet, (str(tmp_path), "b", "a")),
             (_add, (2, 3))]
    ended = dict(run_bounded_each(calls, seconds=20, workers=3))
    assert ended == {0: Ended("ok", True), 1: Ended("died", detail="crashed (SIGSEGV)"),
                     2: Ended("ok", True), 3: Ended("ok", 5)}


def test_one_worker_runs_one_child_at_a_time_and_reads_the_calls_as_it_goes(tmp_path):
    pulled: list[int] = []

    def calls():
        for number in range(3):
            pulled.append(number)
            yield _add, (number, 0)

    seen = []
    for number, ended in run_bounded_each(calls(), seconds=20, workers=1):
        seen.append((number, ended.value, list(pulled)))
    # The next child starts before an end is handed over; none starts before a slot is free.
    assert seen == [(0, 0, [0, 1]), (1, 1, [0, 1, 2]), (2, 2, [0, 1, 2])]


def test_a_stalled_child_times_out_alone_and_a_caller_stopping_early_leaves_none(forks):
    children = run_bounded_each([(_sleep, ()), (_add, (1, 2))], seconds=2, workers=2)
    assert next(children) == (1, Ended("ok", 3))
    assert next(children) == (0, Ended("timeout"))
    stopped = run_bounded_each([(_add, (1, 1)), (_sleep, ())], seconds=60, workers=2)
    first = next(stopped)
    assert first == (0, Ended("ok", 2))
    started = time.monotonic()
    stopped.close()  # the sleeping child is killed and reaped, not waited for
    assert time.monotonic() - started < 5
    assert len(forks.pids) == 4 and forks.all_reaped()
