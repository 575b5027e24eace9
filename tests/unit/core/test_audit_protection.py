"""Issue 35: which ruleset rules keep the published branches (core.audit.protection)."""

from __future__ import annotations

import pytest

from swiftpm_guard.core.audit import KEEPING_RULES, BranchRules, branches_to_ask, protection


def rules(branch: str, *pairs: tuple[str, int | None]) -> BranchRules:
    return BranchRules(branch, tuple(pairs))


def test_all_three_on_every_branch_asked_is_covered_with_their_rulesets():
    found = protection([
        rules("swiftpm-1.0.0", ("deletion", 4), ("non_fast_forward", 4), ("creation", 9),
              ("required_linear_history", 12)),
        rules("swiftpm-2.0.0", ("creation", 9), ("non_fast_forward", 4), ("deletion", 4)),
    ])
    assert found.covered == KEEPING_RULES == ("deletion", "non_fast_forward", "creation")
    assert found.missing == () and found.unknown is None
    assert found.rulesets == (4, 9)  # not 12: its rule keeps nothing of ours
    assert found.asked == ("swiftpm-1.0.0", "swiftpm-2.0.0")


def test_a_rule_missing_on_one_branch_is_missing():
    found = protection([
        rules("swiftpm-1.0.0", ("deletion", 1), ("non_fast_forward", 1)),
        rules("swiftpm-2.0.0", ("deletion", 2)),
    ])
    assert found.covered == ("deletion",)
    assert found.missing == ("non_fast_forward", "creation")
    assert found.rulesets == (1, 2)


def test_no_rules_at_all_leaves_everything_open():
    found = protection([rules("swiftpm-1.0.0")])
    assert (found.covered, found.missing, found.rulesets) == ((), KEEPING_RULES, ())


def test_nothing_asked_cannot_tell():
    found = protection([])
    assert found.unknown == "no published branch to ask about" and found.missing == ()


@pytest.mark.parametrize(("branches", "asked"), [
    ([], ()),
    (["swiftpm-1.0.0"], ("swiftpm-1.0.0",)),
    (["swiftpm-1.0.0", "swiftpm-1.1.0", "swiftpm-2.0.0"], ("swiftpm-1.0.0", "swiftpm-2.0.0")),
])
def test_the_oldest_and_newest_are_asked(branches, asked):
    assert branches_to_ask(branches) == asked
