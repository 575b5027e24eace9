"""Checks on what SwiftPM evaluated, against the built set (pure)."""

import pytest

from swiftpm_guard.core.checks import CheckOptions
from swiftpm_guard.core.model import (
    Artifact,
    Finding,
    Location,
    Placeholder,
    Rendered,
    Report,
    Severity,
    SwiftStatus,
    Template,
    TemplateSummary,
)
from swiftpm_guard.core.swiftpm_evaluation import (
    Diagnostic,
    EvaluatedProduct,
    EvaluatedTarget,
    Evaluation,
    apply_evaluations,
    diagnostic_findings,
    target_findings,
    two_way,
    url_problems,
)

SHA_A, SHA_B = "a" * 64, "b" * 64
STATUS = SwiftStatus(used=True, reason="evaluated", seconds=1.0)


def rendered(flavour: str = "placeholder", placeholders: tuple[str, ...] = ()) -> Rendered:
    template = Template(path="Package.swift.template", text="", flavour=flavour)
    return Rendered(
        template=template,
        text="",
        version_used=True,
        placeholders=tuple(Placeholder(n, Location(template.path, 7)) for n in placeholders),
    )


def artifact(name: str, sha: str | None) -> Artifact:
    return Artifact(name=name, sha256=sha, origin=Location("checksums.txt", 3))


def binary(name: str, checksum: str, url: str | None = None) -> EvaluatedTarget:
    return EvaluatedTarget(
        name=name,
        kind="binary",
        checksum=checksum,
        url=url if url is not None else f"https://x.invalid/{name}-1.2.3.zip",
    )


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("https://x.invalid/a-1.2.3.zip", None),
        ("https://x.invalid/1.2.3/a.zip", None),
        ("http://x.invalid/a-1.2.3.zip", "scheme is 'http'"),
        ("https://x.invalid/a-1.2.3.tar.gz", "does not end in .zip"),
        ("https://x.invalid/a.zip", "does not contain the version 1.2.3"),
        ("https://x.invalid/a-1.2.30.zip", "does not contain the version 1.2.3"),
        ("https://x.invalid/a-1.2.3.1.zip", "does not contain the version 1.2.3"),
        ("https://x.invalid/a_debug-1.2.3.zip", "does not name the target"),
        ("https://x.invalid/a/b-1.2.3.zip", "does not name the target"),
        # The sentry-cocoa 8.22.0 class: right file name, another release's folder.
        ("https://github.com/o/r/releases/download/1.2.2/a-1.2.3.zip",
         "release tag '1.2.2' is not the version 1.2.3"),
        ("https://github.com/o/r/releases/download/latest/a-1.2.3.zip", "release tag 'latest'"),
        ("https://github.com/o/r/releases/download/v1.2.3/a-1.2.3.zip", None),
        ("https://github.com/o/r/releases/download/swiftpm-1.2.3/a-1.2.3.zip", None),
        ("https://x.invalid/fw/1.2.2/a-1.2.3.zip", "path names version 1.2.2"),
        ("https://x.invalid/ios17.0/a-1.2.3.zip", None),
    ],
)
def test_url_problems(url, problem):
    problems = url_problems(binary("a", SHA_A, url), "1.2.3")
    if problem is None:
        assert problems == []
    else:
        assert any(problem in p for p in problems), problems


def test_placeholder_checksum_is_bad_unless_the_name_is_only_declared():
    evaluation = Evaluation((), (binary("a", "__SHA256_a__"), binary("b", "__SHA256_b__c")), ())
    built = {"a": artifact("a", None)}  # declared in a PR's list: no checksum yet

    findings = target_findings(rendered(placeholders=("b",)), evaluation, built, "1.2.3")

    assert [(f.code, f.subject, f.line) for f in findings] == [("bad-checksum", "b", 7)]


def test_a_name_nobody_built_is_one_finding_not_also_a_bad_checksum():
    """Issue 33: SwiftPM's path said one problem four times (each twin unfilled and with a
    bad checksum); the static path says it twice, folded to one problem in the reports."""
    evaluation = Evaluation((), (binary("a", SHA_A), binary("k", "__SHA256_k__"),
                                 binary("k_debug", "__SHA256_k_debug__")), ())
    built = {"a": artifact("a", SHA_A)}
    report = apply_evaluations(static_report(()), [(rendered(placeholders=("a", "k", "k_debug")),
                                                    evaluation)],
                               built, CheckOptions(version="1.2.3"), STATUS)
    assert sorted((f.code, f.subject) for f in report.findings) == [
        ("unfilled-placeholder", "k"), ("unfilled-placeholder", "k_debug")]
    # Downgraded by --warn, the placeholder checksum still blocks, on its line.
    warned = apply_evaluations(static_report(()), [(rendered(placeholders=("a", "k", "k_debug")),
                                                    evaluation)],
                               built, CheckOptions(version="1.2.3",
                                                   warn=frozenset({"unfilled-placeholder"})),
                               STATUS)
    assert sorted((f.code, f.subject, f.line) for f in warned.findings
                  if f.severity is Severity.ERROR) == [("bad-checksum", "k", 7),
                                                       ("bad-checksum", "k_debug", 7)]


def test_a_bad_checksum_from_a_source_is_said_once_on_the_sources_line():
    """The static check names the checksums line; SwiftPM evaluating the same value to the
    manifest adds nothing."""
    upper = "A" * 64
    evaluation = Evaluation((), (binary("a", upper),), ())
    assert target_findings(rendered(placeholders=("a",)), evaluation,
                           {"a": artifact("a", upper)}, "1.2.3") == []


def test_checksum_wired_to_another_artifact_is_a_mismatch():
    evaluation = Evaluation((), (binary("a", SHA_A), binary("a_debug", SHA_A)), ())
    built = {"a": artifact("a", SHA_A), "a_debug": artifact("a_debug", SHA_B)}

    [finding] = target_findings(rendered(), evaluation, built, "1.2.3")

    assert (finding.code, finding.subject) == ("checksum-mismatch", "a_debug")
    assert finding.message == (f"binary target 'a_debug': its URL names a_debug-1.2.3.zip, whose "
                               f"checksum is {SHA_B}, but SwiftPM evaluates {SHA_A}, the checksum "
                               "of a-1.2.3.zip; every consumer fails the checksum")


def test_the_checksum_is_the_one_of_the_zip_the_url_names_not_of_the_target_name():
    # Target 'b' downloads a's zip with a's checksum: what SwiftPM fetches is consistent.
    evaluation = Evaluation((), (binary("b", SHA_A, "https://x.invalid/a-1.2.3.zip"),), ())
    built = {"a": artifact("a", SHA_A), "b": artifact("b", SHA_B)}

    findings = target_findings(rendered(), evaluation, built, "1.2.3")

    assert [f.code for f in findings] == ["url"]  # only: the file does not name the target


@pytest.mark.parametrize(("url", "checksum", "says"), [
    ("https://x.invalid/a-1.2.3.zip", "e" * 64, f"evaluates {'e' * 64}, no built zip's"),
    ("https://x.invalid/1.2.3/a-1.2.2.zip", SHA_A,
     f"names a-1.2.2.zip, which nobody built (found {SHA_A}, the checksum of a-1.2.3.zip)"),
], ids=["hard-coded", "unbuilt-zip"])
def test_a_checksum_no_built_zip_of_that_url_has_is_a_mismatch(url, checksum, says):
    evaluation = Evaluation((), (binary("a", checksum, url),), ())
    built = {"a": artifact("a", SHA_A)}

    findings = target_findings(rendered(), evaluation, built, "1.2.3")

    assert [(f.code, f.subject) for f in findings if f.code != "url"] == [
        ("checksum-mismatch", "a")]
    assert says in findings[-1].message


def test_zips_are_found_by_their_own_file_name_else_by_name_and_version():
    zipped = Artifact("a", SHA_A, Location("zips/a-1.2.3.zip"), file_name="a-1.2.3.zip")
    listed = artifact("b", SHA_B)  # a `<name> <sha256>` line: no file name
    evaluation = Evaluation((), (binary("a", SHA_A), binary("b", SHA_B)), ())

    assert target_findings(rendered(), evaluation, {"a": zipped, "b": listed}, "1.2.3") == []
    # Names only (no version given): the zips of any version, as the manifest was rendered.
    old = Artifact("a", SHA_A, Location("zips/a-1.0.0.zip"), file_name="a-1.0.0.zip")
    assert target_findings(rendered(), Evaluation((), (binary("a", SHA_A),), ()), {"a": old},
                           "1.2.3", names_only=True) == []


def test_two_way_goes_by_exact_name():
    evaluation = Evaluation((), (binary("a_debug", SHA_A), binary("gone", SHA_A)), ())
    built = {n: artifact(n, SHA_A) for n in ("a", "a_debug", "extra_debug")}

    unfilled, unclaimed, findings = two_way(
        [(rendered(placeholders=("gone",)), evaluation)], built
    )

    assert unfilled == ["gone"]
    assert unclaimed == ["a", "extra_debug"]  # a `_debug` twin claims only itself
    by_code = {(f.code, f.subject): f for f in findings}
    assert by_code[("unfilled-placeholder", "gone")].line == 7  # where the text asked for it
    # No manifest has it: on the line that built or declared it, as the static check puts it.
    assert (by_code[("unclaimed-artifact", "a")].file,
            by_code[("unclaimed-artifact", "a")].line) == ("checksums.txt", 3)
    assert "was built (checksums.txt)" in by_code[("unclaimed-artifact", "a")].message


def test_each_manifest_stands_on_its_own():
    full = Evaluation((), (binary("a", SHA_A), binary("c", SHA_A)), ())
    short = Evaluation((), (binary("a", SHA_A), binary("x", SHA_A)), ())
    variant = Rendered(template=Template(path="Package@swift-6.0.swift.template", text="",
                                         flavour="placeholder"),
                       text="", placeholders=(), version_used=True)
    built = {n: artifact(n, SHA_A) for n in ("a", "c")}

    unfilled, unclaimed, findings = two_way([(rendered(), full), (variant, short)], built)

    assert (unfilled, unclaimed) == (["x"], ["c"])
    assert {(f.code, f.subject, f.file) for f in findings} == {
        ("unfilled-placeholder", "x", "Package@swift-6.0.swift.template"),
        ("unclaimed-artifact", "c", "Package@swift-6.0.swift.template")}


def static_report(findings: tuple[Finding, ...]) -> Report:
    return Report(
        version="1.2.3",
        templates=(TemplateSummary("Package.swift.template", (), 1, 1),),
        placeholders=("a",),
        built=("a",),
        unfilled=("z",),
        unclaimed=(),
        products=1,
        binary_targets=1,
        counts_source="static",
        findings=findings,
    )


def test_a_full_evaluation_replaces_static_counts_and_two_way():
    stale = Finding("unfilled-placeholder", Severity.ERROR, "z", "text saw z")
    kept = Finding("missing-version", Severity.WARNING, "__VERSION__", "no version")
    evaluation = Evaluation(
        (EvaluatedProduct("a", ("a_w",)), EvaluatedProduct("a_debug", ("a_debug_w",))),
        (binary("a", SHA_A), binary("a_debug", SHA_B), EvaluatedTarget("a_w", "regular")),
        (),
    )
    built = {"a": artifact("a", SHA_A), "a_debug": artifact("a_debug", SHA_B)}

    report = apply_evaluations(
        static_report((stale, kept)),
        [(rendered(placeholders=("a", "a_debug")), evaluation)],
        built,
        CheckOptions(version="1.2.3"),
        STATUS,
    )

    assert (report.products, report.binary_targets, report.counts_source) == (2, 2, "swiftpm")
    assert report.templates[0].products == 2
    assert report.unfilled == () and report.findings == (kept,)
    assert report.swiftpm == STATUS and report.consistent


def test_a_name_asked_but_evaluated_as_no_binary_target_stays_unfilled():
    # Its placeholder is still in the text that would be published.
    asked = Finding("unfilled-placeholder", Severity.ERROR, "z", "text saw z",
                    file="Package.swift.template", line=7)
    evaluation = Evaluation((), (binary("a", SHA_A),), ())

    report = apply_evaluations(static_report((asked,)),
                               [(rendered(placeholders=("a", "z")), evaluation)],
                               {"a": artifact("a", SHA_A)}, CheckOptions(version="1.2.3"), STATUS)

    assert report.findings == (asked,) and report.unfilled == ("z",)


def test_a_rejected_manifest_keeps_static_counts_and_adds_swift_errors():
    evaluation = Evaluation(
        (), (), (Diagnostic("unterminated string literal", "Package.swift", 105, 9),),
        dumped=False,
    )
    report = apply_evaluations(
        static_report(()), [(rendered(), evaluation)], {}, CheckOptions(version="1.2.3"), STATUS
    )

    assert report.counts_source == "static" and report.unfilled == ("z",)
    [finding] = report.findings
    assert (finding.code, finding.line) == ("swift-error", 105)
    assert "105:9: unterminated string literal" in finding.message


def test_warn_downgrades_swift_findings():
    evaluation = Evaluation((), (binary("a", "nope"),), ())
    report = apply_evaluations(
        static_report(()),
        [(rendered(placeholders=("a",)), evaluation)],
        {"a": artifact("a", SHA_A)},
        CheckOptions(version="1.2.3", warn=frozenset({"bad-checksum"})),
        STATUS,
    )
    assert [(f.code, f.severity) for f in report.findings] == [("bad-checksum", Severity.WARNING)]


def test_url_refusals_become_url_findings_and_jinja_lines_become_notes():
    diagnostics = [
        Diagnostic("invalid URL scheme for binary target 'a'; valid schemes are: 'https'", "a"),
        Diagnostic("expected ',' separator", "Package.swift", 12, 3),
    ]

    url, syntax = diagnostic_findings(rendered("jinja"), diagnostics)

    assert (url.code, url.subject) == ("url", "a")
    assert syntax.code == "swift-error" and syntax.line is None
    assert "(line 12 of the rendered manifest)" in syntax.message


def test_a_url_the_url_rule_refuses_is_not_also_a_zip_nobody_built():
    evaluation = Evaluation((), (binary("a", SHA_A, "https://x.invalid/a.zip"),), ())

    findings = target_findings(rendered(), evaluation, {"a": artifact("a", SHA_A)}, "1.2.3")

    assert [f.code for f in findings] == ["url"]
