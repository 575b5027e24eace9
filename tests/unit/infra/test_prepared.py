"""A child forked in advance: it prepares beside the parent, then serves exactly one call with
that call's own deadline; an unused one is stopped and reaped."""

from __future__ import annotations

import os
import signal
import time

from swiftpm_guard.infra.child_reply import Ended
from swiftpm_guard.infra.prepared import prepare_child

LOADED: list[str] = []


def _load() -> None:
    LOADED.append("grammar")  # in the child only: the parent's list stays empty
    time.sleep(0.3)


def _fail_to_load() -> None:
    raise ImportError("no grammar")


def _loaded() -> list[str]:
    return LOADED


def _segfault() -> None:
    os.kill(os.getpid(), signal.SIGSEGV)



def test_the_call_runs_in_the_child_that_prepared(forks):
    child = prepare_child(_load)
    assert child.call(_loaded, (), seconds=10) == Ended("ok", ["grammar"])
    assert LOADED == []
    # Answered, it is left to exit by itself; its owner reaps it when done with it.
    child.cancel()
    assert forks.all_reaped()


def test_the_deadline_counts_from_the_call_not_from_the_preparation(forks):
    child = prepare_child(_load)  # 0.3 s of preparing, inside the call's 0.2 s only in part
    time.sleep(0.4)
    assert child.call(_loaded, (), seconds=0.2).kind == "ok"
    child.cancel()
    slow = prepare_child(lambda: time.sleep(5))
    started = time.monotonic()
    assert slow.call(_loaded, (), seconds=0.3).kind == "timeout"  # killed and reaped at once
    assert time.monotonic() - started < 2 and forks.all_reaped()


def test_a_failed_preparation_or_a_crash_is_the_calls_answer():
    assert prepare_child(_fail_to_load).call(_loaded, (), seconds=10).kind == "ok"
    crashed = prepare_child(_load).call(_segfault, (), seconds=10)
    assert crashed == Ended("died", "crashed (SIGSEGV)")


def test_an_unused_child_is_stopped_and_reaped(forks):
    child = prepare_child(_load)
    child.cancel()
    child.cancel()
    assert forks.all_reaped()


def test_a_big_request_does_not_block_on_a_child_still_preparing():
    child = prepare_child(_load)
    assert child.call(len, (b"x" * (4 << 20),), seconds=10) == Ended("ok", 4 << 20)


def test_without_fork_the_call_starts_its_own_child(monkeypatch):
    monkeypatch.delattr(os, "fork")
    child = prepare_child(_load)
    assert child.call(len, ("abc",), seconds=60) == Ended("ok", 3)
