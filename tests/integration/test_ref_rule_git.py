"""The one ref rule (`core.names.ref_problem`) is git's own within its characters: real
`git check-ref-format` is the oracle. Our rule refuses, beyond git, only a leading '-' (it
could pass for an option) and more than REF_MAX characters; a name it accepts, git accepts."""

from __future__ import annotations

import itertools
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swiftpm_guard.core.names import REF_MAX, ref_problem

#: Pieces that reach every clause of git's rule: '.', '/', '.lock', '..', '//', '-'.
PIECES = ["a", ".", "/", "-", "lock", ".lock", "refs/heads/"]


def git_accepts(name: str) -> bool:
    result = subprocess.run(["git", "check-ref-format", "--allow-onelevel", name],
                            capture_output=True, timeout=30, check=False)
    assert result.returncode in (0, 1), result.stderr  # 129: git took it for an option
    return result.returncode == 0


def agrees(name: str) -> None:
    ours = ref_problem(name) is None
    if name.startswith("-") or len(name) > REF_MAX:
        assert not ours, name
    else:
        assert ours == git_accepts(name), (name, ref_problem(name))


#: Every way of putting 1-3 pieces together, and the cases the two old rules disagreed on.
CASES = sorted({"".join(p) for n in (1, 2, 3) for p in itertools.product(PIECES, repeat=n)} | {
    "refs/heads/a.lock/b", "a.lock/b", "a/b.lock", "a./b", "a/.b", ".a", "a.", "a..b", "a+b_1",
    "x" * 200, "x" * 201, "x" * REF_MAX, "x" * (REF_MAX + 1),
})


def test_the_ref_rule_is_gits_within_its_characters():
    assert len(CASES) > 350
    for name in CASES:
        agrees(name)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="ab.-/+_lock", min_size=1, max_size=40))
def test_random_names_agree_with_git(name):
    agrees(name)


@pytest.mark.parametrize("name", ["a b", "a~b", "a^b", "a:b", "a?b", "a*b", "a[b", "a\\b",
                                  "a@{b", "@", "a\tb", "ä"])
def test_characters_outside_the_rule_are_refused(name):
    assert ref_problem(name) is not None
