"""Issue 35: which ruleset rules keep the published branches (core.audit.protection)."""

from __future__ import annotations

import itertools

import pytest

from swiftpm_guard.core.audit import (
    ASK_MAX,
    KEEPING_RULES,
    BranchRules,
    branches_to_ask,
    protection,
)


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
    (["swiftpm-1.0.0", "swiftpm-1.1.0", "swiftpm-2.0.0"],
     ("swiftpm-1.0.0", "swiftpm-1.1.0", "swiftpm-2.0.0")),
])
def test_every_published_branch_is_asked(branches, asked):
    assert branches_to_ask(branches) == asked


def test_past_the_bound_an_even_sample_with_both_ends():
    names = [f"swiftpm-1.0.{n}" for n in range(1000)]
    asked = branches_to_ask(names)
    assert len(asked) == ASK_MAX == 200 and len(set(asked)) == 200
    assert (asked[0], asked[-1]) == (names[0], names[-1])
    positions = [names.index(b) for b in asked]
    gaps = {b - a for a, b in itertools.pairwise(positions)}
    assert gaps == {5, 6}  # 999 / 199 ≈ 5.02: evenly spaced, in order
    assert branches_to_ask(names[:200]) == tuple(names[:200])  # at the bound: all of them
    assert branches_to_ask(names[:7], limit=3) == (names[0], names[3], names[6])


def test_the_branches_a_pattern_skips_are_named_and_a_sample_is_known():
    found = protection([
        rules("swiftpm-1.0.0", *((r, 3) for r in KEEPING_RULES)),
        rules("swiftpm-1.1.0", ("deletion", 4)),
        rules("swiftpm-2.0.0", *((r, 3) for r in KEEPING_RULES)),
    ], published=10)
    assert found.covered == ("deletion",) and found.uncovered == ("swiftpm-1.1.0",)
    assert (found.published, found.sampled) == (10, True)
    assert protection([rules("swiftpm-1.0.0")]).sampled is False
