"""The cyclic collector is paused for start-up, and for a whole check or render (short, capped
runs); every other command runs with it as it was, and it is always restored."""

from __future__ import annotations

import gc

import pytest

from swiftpm_guard.cli import check as cli_check
from swiftpm_guard.cli import main as cli_main


@pytest.fixture
def seen(monkeypatch):
    states: list[bool] = []
    monkeypatch.setattr(cli_check, "run", lambda args: states.append(gc.isenabled()) or 0)
    monkeypatch.setattr(cli_main, "_codes", lambda: states.append(gc.isenabled()) or 0)
    return states


def test_a_check_runs_paused_and_the_collector_comes_back(seen):
    assert gc.isenabled()
    assert cli_main.main(["check", "--template", "t", "--version", "1.0.0",
                          "--frameworks", "a"]) == 0
    assert seen == [False] and gc.isenabled()


def test_other_commands_run_with_the_collector_on(seen):
    assert cli_main.main(["codes"]) == 0
    assert seen == [True] and gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off(seen):
    gc.disable()
    try:
        assert cli_main.main(["codes"]) == 0
        assert seen == [False] and not gc.isenabled()
    finally:
        gc.enable()
