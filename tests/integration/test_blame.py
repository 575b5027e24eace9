"""Which commit brought a template line: said only when the clone's history says for sure."""

from __future__ import annotations

from pathlib import Path

from support.actions_env import commit_all, git
from swiftpm_guard.infra.git import Git
from swiftpm_guard.sources.refs import Checkout


def _history(root: Path) -> tuple[Path, str, str]:
    seed = root / "seed"
    seed.mkdir(parents=True)
    git(seed, "init", "-q")
    (seed / "T").write_text("one\n")
    first = commit_all(seed, "Swift package template (#4242)")
    (seed / "T").write_text("one\ntwo\n")
    second = commit_all(seed, "Add two")
    return seed, first, second


def test_a_full_history_names_the_commit_and_its_subject(tmp_path):
    seed, first, second = _history(tmp_path)
    checkout = Checkout(seed, git=Git())
    found = checkout.blame(None, "T", 1)
    assert found is not None and found.commit == first
    assert found.subject == "Swift package template (#4242)"
    assert checkout.blame(None, "T", 2).commit == second
    assert checkout.blame(None, "T", 9) is None  # no such line: no guess


def test_a_shallow_clone_says_nothing_rather_than_name_its_cut(tmp_path):
    seed, _first, _second = _history(tmp_path)
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth=1", f"file://{seed}", str(shallow))
    checkout = Checkout(shallow, git=Git())
    assert checkout.blame(None, "T", 1) is None  # git would name the cut commit
    assert checkout.blame(None, "T", 2) is None  # and cannot tell this one either


def test_no_clone_no_blame(tmp_path):
    assert Checkout(tmp_path, git=Git()).blame(None, "T", 1) is None


def test_the_commit_that_removed_a_line_is_named_once_it_is_gone(tmp_path):
    seed, _first, second = _history(tmp_path)
    checkout = Checkout(seed, git=Git())
    assert checkout.removal(None, "T", "two") is None  # still there: nothing removed it
    (seed / "T").write_text("one\n")
    third = commit_all(seed, "Remove two (#9002)")
    (seed / "T").write_text("one\nthree\n")
    commit_all(seed, "Add three")
    checkout = Checkout(seed, git=Git())  # a run reads the clone once: a new run sees the new commits
    found = checkout.removal(None, "T", "two")
    assert found is not None and (found.commit, found.subject) == (third, "Remove two (#9002)")
    assert checkout.removal(second, "T", "two") is None  # at that commit it was still there
    assert checkout.removal(None, "T", "never") is None


def test_a_shallow_clone_names_no_removal_it_cannot_see(tmp_path):
    seed, _first, _second = _history(tmp_path)
    (seed / "T").write_text("one\n")
    commit_all(seed, "Remove two")
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth=1", f"file://{seed}", str(shallow))
    assert Checkout(shallow, git=Git()).removal(None, "T", "two") is None
