"""tree-sitter-bash runs in a bounded child: a crash or a stall of the grammar is one line of
bad input naming the workflow, never a crash of ours (issue 13).

The grammar has not crashed on any input we found, so the child is made to crash and to hang
for real (SIGSEGV, a sleep) in place of the parse.
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from swiftpm_guard.errors import InputError
from swiftpm_guard.sources import workflow

TEXT = "jobs:\n  build:\n    steps:\n      - run: FRAMEWORKS=( a b )\n"


def _segfault(_scripts, _var, _plain=frozenset()):
    os.kill(os.getpid(), signal.SIGSEGV)


def _hang(_scripts, _var, _plain=frozenset()):
    time.sleep(60)


def test_the_real_parse_runs_in_the_child():
    found = workflow.frameworks_in_workflow(TEXT, "build", "FRAMEWORKS", file="w.yml")
    assert [(d.name, d.origin.line) for d in found] == [("a", 4), ("b", 4)]


def test_a_crashing_grammar_is_one_line_of_bad_input(monkeypatch):
    monkeypatch.setattr(workflow, "read_arrays", _segfault)
    with pytest.raises(InputError) as caught:
        workflow.frameworks_in_workflow(TEXT, "build", "FRAMEWORKS", file="w.yml")
    assert str(caught.value) == ("w.yml: could not read the job's scripts as bash: "
                                 "tree-sitter-bash crashed (SIGSEGV)")


def test_a_hanging_grammar_is_stopped(monkeypatch):
    monkeypatch.setattr(workflow, "read_arrays", _hang)
    monkeypatch.setattr(workflow, "BASH_PARSE_SECONDS", 0.5)
    with pytest.raises(InputError, match=r"did not finish within 0\.5 s"):
        workflow.frameworks_in_workflow(TEXT, "build", "FRAMEWORKS", file="w.yml")
