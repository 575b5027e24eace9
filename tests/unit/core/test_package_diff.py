from support.release import template_text
from swiftpm_guard.core.model import Location, Stub, Template
from swiftpm_guard.core.package_diff import (
    PackageNames,
    consumer_snippet,
    describe,
    diff,
    newest_sibling,
    package_names,
    release_part,
    sibling_patterns,
)
from swiftpm_guard.core.render import render

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
        f"compared with swiftpm-1.2.3.20250101 ({'f' * 12}):",
        "  products: +c, -b",
        "  binary targets: +c, -b",
    ]
    same = diff("x", "0" * 40, old, old)
    assert not same.changed and describe(same)[1] == "  same products and binary targets"


def test_names_from_a_real_shaped_template():
    template = Template(
        path="Package.swift.template",
        flavour="placeholder",
        text=template_text(["executorch", "backend_mps"], ["threadpool"]),
    )
    names = package_names([render(template, "1.2.3", {})])
    assert names.products == ("backend_mps", "backend_mps_debug", "executorch", "executorch_debug")
    assert names.binary_targets == (*names.products, "threadpool", "threadpool_debug")


def test_unknown_role_counts_as_product_only_with_a_stub_folder():
    text = 'let a = "__SHA256_x__"\nlet b = "__SHA256_y__"\n'
    stub = Stub("x", Location(".Package.swift/x"), has_sources=True)
    template = Template(path="T.template", text=text, flavour="placeholder", stubs=(stub,))
    assert package_names([render(template, "1", {})]) == PackageNames(("x",), ("x", "y"))


def test_consumer_snippet_quotes():
    assert (
        consumer_snippet("https://github.com/o/r.git", "swiftpm-1.2.3")
        == '.package(url: "https://github.com/o/r.git", branch: "swiftpm-1.2.3")'
    )
    assert consumer_snippet('a"b\\c', "x") == '.package(url: "a\\"b\\\\c", branch: "x")'
