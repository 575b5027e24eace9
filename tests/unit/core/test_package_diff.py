from dataclasses import replace

from support.published import BranchSpec
from support.release import all_names
from swiftpm_guard.core.package_diff import (
    Base,
    PackageNames,
    Relation,
    TemplateCommit,
    choose_base,
    compare,
    comparison_patterns,
    consumer_snippet,
    describe,
    diff,
    line_part,
    newest_in_line,
    newest_sibling,
    nothing_to_compare,
    read_package,
    release_part,
    sibling_patterns,
)

BRANCHES = [
    "refs/heads/swiftpm-1.2.3.20250101",
    "refs/heads/swiftpm-1.2.3.20250215",
    "refs/heads/swiftpm-1.2.3.20241231",
    "refs/heads/swiftpm-1.2.30",  # another version
    "refs/heads/swiftpm-1.2.3.2025021",  # not a date
    "refs/heads/swiftpm-1.2.3.x",
    "refs/heads/other-1.2.3",
]


def test_newest_nightly_of_the_same_release():
    assert (
        newest_sibling(BRANCHES, "swiftpm-", "1.2.3", exclude="refs/heads/swiftpm-1.2.3")
        == "refs/heads/swiftpm-1.2.3.20250215"
    )


def test_the_release_ranks_above_its_nightlies_and_the_target_is_excluded():
    refs = [*BRANCHES, "refs/heads/swiftpm-1.2.3"]
    assert (
        newest_sibling(
            refs, "swiftpm-", "1.2.3.20250301", exclude="refs/heads/swiftpm-1.2.3.20250301"
        )
        == "refs/heads/swiftpm-1.2.3"
    )
    assert (
        newest_sibling(refs, "swiftpm-", "1.2.3", exclude="refs/heads/swiftpm-1.2.3")
        == "refs/heads/swiftpm-1.2.3.20250215"
    )
    assert newest_sibling(refs, "swiftpm-", "2.0.0", exclude="refs/heads/swiftpm-2.0.0") is None


def test_release_part_and_patterns():
    assert release_part("1.2.3.20250101") == "1.2.3"
    assert release_part("nightly") == "nightly"
    assert sibling_patterns("swiftpm-", "1.2.3.20250101") == (
        "refs/heads/swiftpm-1.2.3",
        "refs/heads/swiftpm-1.2.3.*",
    )


def test_diff_and_description():
    old = PackageNames(("a", "b"), ("a", "b", "pool"))
    new = PackageNames(("a", "c"), ("a", "c", "pool"))
    result = diff("swiftpm-1.2.3.20250101", "f" * 40, old, new)
    assert describe(result) == [
        f"compared with swiftpm-1.2.3.20250101 ({'f' * 12}), the newest other branch of the "
        "same X.Y.Z:",
        "  products: +c, -b",
        "  binary targets: +c, -b",
    ]
    same = diff("x", "0" * 40, old, old)
    assert not same.changed and describe(same)[1] == "  same products and binary targets"


def test_consumer_snippet_quotes():
    assert (
        consumer_snippet("https://github.com/o/r.git", "swiftpm-1.2.3")
        == '.package(url: "https://github.com/o/r.git", branch: "swiftpm-1.2.3")'
    )
    assert consumer_snippet('a"b\\c', "x") == '.package(url: "a\\"b\\\\c", branch: "x")'


# -- issue 23: which branch a dry run compares with, and what changed in it ---------------------

LINE = {
    "refs/heads/swiftpm-1.4.0": "a" * 40,
    "refs/heads/swiftpm-1.4.0.20250801": "b" * 40,
    "refs/heads/swiftpm-1.4.0.20250815": "c" * 40,
    "refs/heads/swiftpm-1.4.10": "d" * 40,  # a later patch of the line
    "refs/heads/swiftpm-1.40.0": "e" * 40,  # another line that shares the prefix
    "refs/heads/swiftpm-1.3.1": "f" * 40,
}


def test_the_versions_own_branch_comes_first():
    refs = {**LINE, "refs/heads/swiftpm-1.4.1": "1" * 40}
    base = choose_base(refs, "swiftpm-", "1.4.1", "refs/heads/swiftpm-1.4.1")
    assert base == Base("refs/heads/swiftpm-1.4.1", "1" * 40, Relation.THIS_BRANCH)


def test_then_the_same_release_then_the_line_patches_up_to_this_one_first():
    nightly = {**LINE, "refs/heads/swiftpm-1.4.1.20250901": "2" * 40}
    assert choose_base(nightly, "swiftpm-", "1.4.1", "refs/heads/swiftpm-1.4.1") == Base(
        "refs/heads/swiftpm-1.4.1.20250901", "2" * 40, Relation.SAME_RELEASE)
    assert choose_base(LINE, "swiftpm-", "1.4.1", "refs/heads/swiftpm-1.4.1") == Base(
        "refs/heads/swiftpm-1.4.0", "a" * 40, Relation.SAME_LINE)
    # Only nightlies of the line: the newest by date.
    nightlies = {k: v for k, v in LINE.items() if k.count(".") == 3}
    assert newest_in_line(nightlies, "swiftpm-", "1.4.1", "x") == (
        "refs/heads/swiftpm-1.4.0.20250815")
    # Nothing at or below this patch: the newest above it.
    assert newest_in_line(LINE, "swiftpm-", "1.4.0", "refs/heads/swiftpm-1.4.0") == (
        "refs/heads/swiftpm-1.4.0.20250815")
    assert newest_in_line({"refs/heads/swiftpm-1.4.10": "d"}, "swiftpm-", "1.4.1", "x") == (
        "refs/heads/swiftpm-1.4.10")
    assert choose_base(LINE, "swiftpm-", "2.0.0", "refs/heads/swiftpm-2.0.0") is None
    assert choose_base(LINE, "swiftpm-", "nightly", "refs/heads/swiftpm-nightly") is None


def test_line_patterns_and_the_note_without_a_base():
    assert line_part("1.4.1.20250101") == "1.4" and line_part("1.4") is None
    assert comparison_patterns("swiftpm-", "1.4.1") == (
        "refs/heads/swiftpm-1.4.1", "refs/heads/swiftpm-1.4.1.*", "refs/heads/swiftpm-1.4.*")
    assert comparison_patterns("swiftpm-", "nightly") == (
        "refs/heads/swiftpm-nightly", "refs/heads/swiftpm-nightly.*")
    assert nothing_to_compare("1.4.1") == (
        "no published branch of 1.4.1 or of the 1.4 line on the remote to compare with")
    assert nothing_to_compare("nightly") == (
        "no published branch of nightly on the remote to compare with")


PRODUCTS = ("executorch", "backend_mps")


def test_read_package_gives_names_and_checksums_of_a_published_manifest():
    spec = BranchSpec("1.4.1", products=PRODUCTS, binary_only=("threadpool",))
    package = read_package([spec.manifest()], all_names(PRODUCTS))
    assert package.names.products == (
        "backend_mps", "backend_mps_debug", "executorch", "executorch_debug")
    assert package.names.binary_targets == (
        *package.names.products, "threadpool", "threadpool_debug")
    assert dict(package.checksums) == spec.checksum_of()


def test_a_republish_with_new_checksums_lists_every_changed_name():
    published = BranchSpec("1.4.1", products=PRODUCTS)
    again = BranchSpec("1.4.1", products=PRODUCTS,
                       checksums={"executorch": "0" * 64, "executorch_debug": "1" * 64})
    stubs = all_names(PRODUCTS)
    result = compare(
        Base("refs/heads/swiftpm-1.4.1", "9" * 40, Relation.THIS_BRANCH),
        read_package([published.manifest()], stubs), read_package([again.manifest()], stubs),
        template_now=TemplateCommit("a" * 40, "Add torchao to swiftpm (#13401)"),
        template_base=TemplateCommit("b" * 40, "Update Package.swift.template"))
    assert result.changed and result.changed_checksums == ("executorch", "executorch_debug")
    assert len(result.unchanged_checksums) == 4
    assert describe(result) == [
        f"compared with swiftpm-1.4.1 ({'9' * 12}), this version's own branch:",
        "  same products and binary targets",
        "  2 checksums change: executorch, executorch_debug (4 unchanged)",
        f'  template now: {"a" * 12} "Add torchao to swiftpm (#13401)"',
        f'  swiftpm-1.4.1 was built from: {"b" * 12} "Update Package.swift.template"',
    ]
    document = result.as_dict()
    assert document["relation"] == "this-branch"
    assert document["checksums"] == {"changed": ["executorch", "executorch_debug"],
                                     "unchanged": list(result.unchanged_checksums)}
    assert document["template_commits"] == {
        "now": {"commit": "a" * 40, "subject": "Add torchao to swiftpm (#13401)"},
        "base": {"commit": "b" * 40, "subject": "Update Package.swift.template"},
        "base_note": None,
    }


def test_same_checksums_same_template_and_an_unknown_origin_are_said_so():
    spec = BranchSpec("1.4.1", products=PRODUCTS)
    package = read_package([spec.manifest()], all_names(PRODUCTS))
    base = Base("refs/heads/swiftpm-1.4.0", "9" * 40, Relation.SAME_LINE)
    now = TemplateCommit("a" * 40, None)
    same = compare(base, package, package, template_now=now, template_base=now)
    assert not same.changed
    assert describe(same)[1:] == [
        "  same products and binary targets",
        "  no checksum changes (6 compared)",
        f"  template now: {'a' * 12}",
        "  swiftpm-1.4.0 was built from the same template commit",
    ]
    unknown = compare(base, package, package, template_now=now, template_base=None,
                      template_base_note="no publish commit (subject 1.4.0) in its last 16 "
                                         "commits")
    assert describe(unknown)[-1] == (
        "  swiftpm-1.4.0 was built from: not known (no publish commit (subject 1.4.0) in its "
        "last 16 commits)")
    assert "the newest branch of the same X.Y line" in describe(unknown)[0]


def test_debug_twins_are_named_once_in_the_checksum_line():
    base = Base("refs/heads/swiftpm-1.4.1", "9" * 40, Relation.THIS_BRANCH)

    def line(changed: tuple[str, ...], suffix: str = "_debug") -> str:
        result = compare(base, read_package([], ()), read_package([], ()), template_now=None,
                         template_base=None)
        return describe(replace(result, changed_checksums=changed), suffix)[-1]

    assert line(("a", "a_debug", "b", "b_debug")) == (
        "  4 checksums change (each with its _debug twin): a, b")
    assert line(("a", "a_debug", "c")) == "  3 checksums change: a (+_debug), c"
    assert line(("a", "a_debug"), "") == "  2 checksums change: a, a_debug"
    assert line(("x_debug",)) == "  1 checksum changes: x_debug"
