"""Roles, stub folders and counts from what SwiftPM evaluated, in place of the static guess (pure).

The evaluations are the real SwiftPM's (Swift 6.0.3) output for the computed-products layouts
of `support/computed.py`, recorded in `support/swiftpm_dumps/`; the swiftpm tier checks the
records are still what SwiftPM prints.
"""

from __future__ import annotations

import pytest

from support.computed import LAYOUTS, VERSION, Layout, load_record
from swiftpm_guard.core.checks import CheckOptions, check
from swiftpm_guard.core.model import (
    Artifact,
    Location,
    Rendered,
    Report,
    Stub,
    SwiftStatus,
    Template,
)
from swiftpm_guard.core.render import render
from swiftpm_guard.core.swiftpm_evaluation import (
    CommandResult,
    EvaluatedProduct,
    EvaluatedTarget,
    Evaluation,
    apply_evaluations,
    interpret,
)
from swiftpm_guard.core.swiftpm_roles import (
    stub_findings,
    stub_root,
    stub_users,
)

STATUS = SwiftStatus(used=True, reason="evaluated", seconds=1.0)
OPTIONS = CheckOptions(version=VERSION)
ROOT = ".Package.swift"


def template_of(layout: Layout, *, stubs: tuple[str, ...] | None = None, text: str | None = None,
                empty: frozenset[str] = frozenset()) -> Template:
    names = layout.stubs if stubs is None else stubs
    return Template(
        path=layout.file,
        text=layout.text if text is None else text,
        flavour="jinja" if layout.file.endswith(".j2") else "placeholder",
        stubs=tuple(Stub(n, Location(f"{ROOT}/{n}"), n not in empty) for n in names),
        stubs_dir=ROOT if names else None,
    )


def declared(layout: Layout) -> list[Artifact]:
    return [Artifact(n, None, Location("--frameworks"))
            for base in layout.frameworks for n in (base, f"{base}_debug")]


def recorded(layout: Layout, describe: CommandResult | None = None) -> Evaluation:
    record = load_record(layout)
    dump = CommandResult.from_dict(record["dump"])
    return interpret(dump, describe or CommandResult.from_dict(record["describe"]))


def static_and_swiftpm(layout: Layout, template: Template | None = None,
                       evaluation: Evaluation | None = None) -> tuple[Report, Report, Rendered]:
    template = template or template_of(layout)
    artifacts = declared(layout)
    item = render(template, VERSION, {a.name: a for a in artifacts})
    static = check([item], artifacts, OPTIONS)
    built = {a.name: a for a in artifacts}
    swiftpm = apply_evaluations(static, [(item, evaluation or recorded(layout))], built, OPTIONS,
                                STATUS, stub_roots={template.path: ROOT})
    return static, swiftpm, item


def codes(report: Report, code: str) -> list[str]:
    return sorted(f.subject for f in report.findings if f.code == code)


def test_the_records_are_evaluations_of_every_layout():
    for layout in LAYOUTS.values():
        evaluation = recorded(layout)
        assert evaluation.ok and evaluation.dumped, layout.name
        built = {n for base in layout.frameworks for n in (base, f"{base}_debug")}
        # stale-entry and jinja-filtered build what their manifests never use
        stale = {"delta", "delta_debug", "legacy", "legacy_debug"}
        assert {t.name for t in evaluation.binary_targets} == built - stale, layout.name


def test_stub_folders_follow_the_evaluated_paths():
    assert stub_users(recorded(LAYOUTS["wrapper-stubs"]), ROOT) == {
        f"{n}_wrapper": (f"{n}_wrapper",) for n in ("alpha", "alpha_debug", "beta", "beta_debug")}
    assert stub_users(recorded(LAYOUTS["direct-products"]), ROOT) == {}
    assert sorted(stub_users(recorded(LAYOUTS["one-product"]), ROOT)) == [
        "alpha", "alpha_debug", "beta", "beta_debug"]


def test_only_source_targets_under_the_stub_root_use_a_stub_folder():
    evaluation = Evaluation(
        (EvaluatedProduct("P", ("outer",)),),
        (
            EvaluatedTarget("outer", "regular", path="./.Package.swift/outer"),
            EvaluatedTarget("inner", "regular", path="Sources/inner"),
            EvaluatedTarget("bin", "binary", url="https://x/bin-1.zip"),
            EvaluatedTarget("deep", "regular", path=".Package.swift/deep/Sources"),
        ),
        (),
    )
    assert stub_users(evaluation, ROOT) == {"outer": ("outer",), "deep": ("deep",)}


# -- the check with SwiftPM, on each layout --------------------------------------------------

def test_computed_products_with_wrapper_stubs_pass_with_swiftpm():
    static, swiftpm, _ = static_and_swiftpm(LAYOUTS["wrapper-stubs"])
    folders = ["alpha_debug_wrapper", "alpha_wrapper", "beta_debug_wrapper", "beta_wrapper"]

    # Without SwiftPM: the text names no role (no unknown-role guesses), and no placeholder
    # asks for a wrapper folder's name, so every folder is an orphan; it blocks.
    assert not static.consistent and static.products is None
    assert codes(static, "unknown-role") == []
    assert codes(static, "orphan-stub") == folders
    # With SwiftPM: its roles and folders decide.
    assert swiftpm.consistent and swiftpm.findings == ()
    assert (swiftpm.products, swiftpm.binary_targets, swiftpm.counts_source) == (4, 6, "swiftpm")


def test_products_over_binary_targets_need_no_stubs():
    static, swiftpm, _ = static_and_swiftpm(LAYOUTS["direct-products"])

    # `let products` makes no product without SwiftPM (issue 31): no missing-stub guessed
    # from a declaration's name.
    assert codes(static, "missing-stub") == [] and static.products is None
    assert swiftpm.consistent and swiftpm.findings == ()
    assert swiftpm.products == 4


def test_the_product_count_is_swiftpms():
    static, swiftpm, _ = static_and_swiftpm(LAYOUTS["one-product"])

    assert static.consistent and static.products is None
    assert swiftpm.consistent and (swiftpm.products, swiftpm.templates[0].products) == (1, 1)
    assert swiftpm.findings == ()


def test_a_placeholder_swiftpm_never_evaluates_is_unclaimed_with_swiftpm():
    static, swiftpm, _ = static_and_swiftpm(LAYOUTS["stale-entry"])

    # The text asks for 'delta' (a placeholder counts wherever it stands), not for its debug
    # twin: by exact name only 'delta_debug' is unclaimed without SwiftPM.
    assert not static.consistent and static.unclaimed == ("delta_debug",)
    # With SwiftPM its answer replaces the static one: 'delta' is unclaimed too.
    assert not swiftpm.consistent
    assert swiftpm.unclaimed == ("delta", "delta_debug")


def test_a_jinja_template_computing_products_gets_swiftpms_roles_and_counts():
    static, swiftpm, item = static_and_swiftpm(LAYOUTS["jinja"])

    assert codes(static, "unknown-role") == [] and static.products is None
    assert [p.name for p in item.placeholders] == ["alpha", "alpha_debug", "beta", "beta_debug"]
    assert swiftpm.consistent and swiftpm.findings == ()
    assert (swiftpm.products, swiftpm.binary_targets) == (4, 4)


def test_a_jinja_template_iterating_over_checksums_asks_for_every_name_swiftpm_decides():
    static, swiftpm, item = static_and_swiftpm(LAYOUTS["jinja-filtered"])

    # The loop reads every checksum, the skipped ones too: the text asks for 'legacy', and
    # only SwiftPM (or needs-swiftpm, jobs.swiftpm_proof) can say it never reaches the package.
    assert {p.name for p in item.placeholders} == {"alpha", "alpha_debug", "legacy",
                                                   "legacy_debug"}
    assert static.unclaimed == () and static.consistent
    assert not swiftpm.consistent and swiftpm.unclaimed == ("legacy", "legacy_debug")
    assert codes(swiftpm, "unknown-role") == []
    assert (swiftpm.products, swiftpm.binary_targets) == (2, 2)


def test_a_missing_stub_folder_is_named_by_its_target_when_describe_fails():
    layout = LAYOUTS["wrapper-stubs"]
    describe = CommandResult(1, "", "error: invalid custom path '.Package.swift/alpha_wrapper' "
                                    "for target 'alpha_wrapper'\n")
    template = template_of(layout, stubs=tuple(s for s in layout.stubs if s != "alpha_wrapper"))
    _, swiftpm, _ = static_and_swiftpm(layout, template, recorded(layout, describe))

    assert swiftpm.counts_source == "swiftpm" and swiftpm.products == 4
    [missing] = [f for f in swiftpm.findings if f.code == "missing-stub"]
    assert (missing.subject, missing.line) == ("alpha_wrapper", 13)  # the line of 'alpha'
    assert "SwiftPM evaluates target 'alpha_wrapper' at .Package.swift/alpha_wrapper" in \
           missing.message
    assert [f.subject for f in swiftpm.findings if f.code == "swift-error"] == ["alpha_wrapper"]
    assert codes(swiftpm, "unknown-role") == codes(swiftpm, "orphan-stub") == []


def test_an_empty_stub_folder_swiftpm_uses_is_empty_and_one_it_does_not_is_an_orphan():
    layout = LAYOUTS["one-product"]
    template = template_of(layout, stubs=(*layout.stubs, "old"), empty=frozenset({"alpha"}))
    item = render(template, VERSION, {})

    found = {(f.code, f.subject) for f in stub_findings(item, recorded(layout), ROOT)}

    assert found == {("empty-stub", "alpha"), ("orphan-stub", "old")}


def test_the_release_shape_agrees_so_swiftpm_changes_nothing_but_the_counts_source():
    static, swiftpm, _ = static_and_swiftpm(LAYOUTS["release-shape"])

    assert static.findings == swiftpm.findings == ()
    assert static.products is None and static.binary_targets == swiftpm.binary_targets
    assert (swiftpm.products, swiftpm.counts_source) == (4, "swiftpm")


def test_names_the_text_gives_no_role_pass_with_swiftpm():
    # The shape with the dictionary named `frameworks`: nothing guessed either way.
    layout = LAYOUTS["direct-products"]
    text = layout.text.replace("let products:", "let frameworks:").replace(
        "products.keys", "frameworks.keys").replace("products[name]", "frameworks[name]")
    static, swiftpm, _ = static_and_swiftpm(layout, template_of(layout, text=text))

    assert static.consistent and codes(static, "unknown-role") == []
    assert swiftpm.findings == () and swiftpm.products == 4


def test_a_rejected_manifest_keeps_the_static_roles():
    layout = LAYOUTS["wrapper-stubs"]
    rejected = interpret(CommandResult(1, "", "error: 'package': duplicate target named 'x'\n"),
                         CommandResult(0, "{}", ""))
    static, swiftpm, _ = static_and_swiftpm(layout, evaluation=rejected)

    assert not rejected.dumped and swiftpm.counts_source == "static"
    assert codes(swiftpm, "unknown-role") == codes(static, "unknown-role")


@pytest.mark.parametrize(
    ("path", "stubs_dir", "root"),
    [
        ("Package.swift.template", None, ".Package.swift"),
        ("Package.swift.template", ".Package.swift", ".Package.swift"),
        ("swiftpm/Package.swift.template", "swiftpm/.swift", ".swift"),
        ("swiftpm/Package.swift.template", "swiftpm/stubs/x", "stubs/x"),
        ("/w/swiftpm/Package.swift.template", "/w/elsewhere/stubs", "stubs"),
        ("Package.swift.template", "../stubs", "stubs"),
    ],
)
def test_stub_root_is_where_package_files_puts_the_stubs(path, stubs_dir, root):
    assert stub_root(Template(path=path, text="", flavour="placeholder",
                              stubs_dir=stubs_dir)) == root
