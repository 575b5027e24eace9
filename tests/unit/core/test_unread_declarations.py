"""Issue 24: a checksum only in a declaration nothing reads is not shown to reach the package.

`let retired = ["delta": "__SHA256_delta__"]` that no live code names: SwiftPM evaluates it and
drops the value, so it declares no binary target `delta`, while the static reading asked for
it. That is an `unread-checksum` error; where evaluating the declaration could do more than
make its value (a call, a closure), the text still does not show the checksum reaching the
package, so the static reading refuses there too. SwiftPM's answer replaces it where it runs.
"""

from __future__ import annotations

import pytest

from swiftpm_guard.core.checks import CheckOptions, check
from swiftpm_guard.core.liveness import live_code_findings
from swiftpm_guard.core.model import Artifact, Location, Rendered, Template
from swiftpm_guard.core.render import render

HEADER = "// swift-tools-version:5.9\nimport PackageDescription\n"
PACKAGE = 'let package = Package(name: "p", targets: {targets})\n'
TARGETS = ('[.binaryTarget(name: "alpha", url: "https://x.invalid/alpha-1.0.0.zip", '
           'checksum: "__SHA256_alpha__")]')
SUMS = {"alpha": "__SHA256_alpha__", "delta": "__SHA256_delta__"}
RETIRED = 'let retired: [String: String] = [\n  "delta": "__SHA256_delta__",\n]\n'


def rendered(text: str, path: str = "Package.swift.template") -> Rendered:
    return Rendered(template=Template(path=path, text=text, flavour="placeholder"),
                    text=text, placeholders=(), version_used=True)


def manifest(body: str, targets: str = TARGETS) -> str:
    return HEADER + body + PACKAGE.format(targets=targets)


def unread(text: str) -> list[tuple[str, int | None, str]]:
    """The unread-declaration findings (the other liveness rules are not what is tested)."""
    return [(f.subject, f.line, f.message) for f in live_code_findings(rendered(text), SUMS)
            if f.code == "unread-checksum"]


def test_a_checksum_only_in_an_unread_declaration_is_an_error_naming_file_line_and_subject():
    [finding] = live_code_findings(rendered(manifest(RETIRED)), SUMS)

    assert (finding.code, finding.severity.value) == ("unread-checksum", "error")
    assert (finding.file, finding.line, finding.subject) == ("Package.swift.template", 4, "delta")
    assert finding.message == (
        "'delta' sits only in 'retired' (line 3), which nothing in the manifest reads by name: "
        "the text does not show it reaching the package, and SwiftPM drops a value nothing "
        "reads; use 'retired' in the package or remove 'delta' from it, or check with the real "
        "SwiftPM")


@pytest.mark.parametrize("use", [
    pytest.param(None, id="by-the-package"),
    pytest.param('let all = [retired, ["alpha": "__SHA256_alpha__"]]\n', id="by-a-read-one"),
    pytest.param("func names() -> [String] { Array(retired.keys) }\n", id="by-a-function"),
    pytest.param('let s = "\\(retired)"\n', id="in-an-interpolation"),
    pytest.param("#if os(Linux)\n_ = retired\n#endif\n", id="in-an-undecided-branch"),
])
def test_a_declaration_read_anywhere_in_live_code_reaches_the_package(use):
    if use is None:
        text = manifest(RETIRED, targets="retired.keys.sorted().map { .binaryTarget(name: $0, "
                        'url: "https://x.invalid/\\($0)-1.0.0.zip", checksum: retired[$0]!) }')
    elif use.startswith("let all"):
        text = manifest(RETIRED + use, targets="all.flatMap { $0.keys }.map { .binaryTarget("
                        'name: $0, path: "x") }')
    else:
        text = manifest(RETIRED + use)
    assert unread(text) == []


@pytest.mark.parametrize("mention", [
    pytest.param("// retired is kept for the changelog\n", id="comment"),
    pytest.param("/* retired */\n", id="block-comment"),
    pytest.param('let note = "retired"\n', id="string"),
    pytest.param('let raw = #"retired"#\n', id="raw-string"),
    pytest.param("let older = [retired]\n", id="an-unread-declaration"),
    pytest.param("_ = retiredNames\n", id="a-longer-name"),
    pytest.param("_ = old_retired\n", id="a-longer-name-before"),
])
def test_a_name_that_is_no_reference_in_live_code_does_not_read_it(mention):
    assert [s for s, _line, _message in unread(manifest(RETIRED + mention))] == ["delta"]


def test_a_name_in_a_branch_if_compiles_out_does_not_read_it():
    # Before the declaration: an `#if` right after it might continue it (a postfix `#if`).
    text = manifest("#if false\n_ = retired\n#endif\n" + RETIRED)
    assert [(s, line) for s, line, _message in unread(text)] == [("delta", 7)]


def test_a_shorter_name_is_not_read_by_a_longer_one():
    text = manifest('let ret = ["delta": "__SHA256_delta__"]\nlet retired = 1\n_ = retired\n')
    assert [(s, line) for s, line, _message in unread(text)] == [("delta", 3)]


def test_a_name_also_asked_for_by_read_code_is_not_flagged():
    text = manifest(RETIRED, targets=TARGETS.replace('"alpha"', '"delta"').replace(
        "alpha-", "delta-").replace("__SHA256_alpha__", "__SHA256_delta__"))
    assert unread(text) == []


@pytest.mark.parametrize("body", [
    pytest.param('let old: [Target] = [\n  .binaryTarget(name: "delta", url: "https://x.invalid/'
                 'delta-1.0.0.zip", checksum: "__SHA256_delta__"),\n]\n', id="member-calls"),
    pytest.param('let retired = "__SHA256_delta__"\n', id="a-string"),
    pytest.param('let retired: String = "__SHA256_delta__";\n', id="a-typed-string"),
    pytest.param('let retired = ["__SHA256_delta__"]; _ = 0\n', id="before-a-semicolon"),
    pytest.param("#if os(Linux)\n" + RETIRED + "#else\n" + RETIRED + "#endif\n",
                 id="in-both-branches"),
    # Evaluating these could do more than make a value, but nothing shows the checksum
    # reaching the package: refused too (SwiftPM, where it runs, says what it evaluates).
    pytest.param('let retired = ["delta": "__SHA256_delta__"].map { all.append($0) }\n',
                 id="a-chained-closure"),
    pytest.param('let retired = [record("__SHA256_delta__")]\n', id="a-call"),
    pytest.param('struct S: ExpressibleByArrayLiteral { init(arrayLiteral: String...) {} }\n'
                 'let retired: S = ["__SHA256_delta__"]\n', id="a-type-of-its-own"),
])
def test_every_unread_declaration_is_refused(body):
    text = manifest("var all: [String] = []\n_ = all\n" + body)
    assert [s for s, _line, _message in unread(text)] == ["delta"]


def test_a_string_inside_a_read_declaration_is_read():
    text = manifest('let kept = [\n  "__SHA256_delta__",\n]\n_ = kept\n')
    assert unread(text) == []


def test_a_jinja_template_is_judged_on_its_rendered_text():
    text = (HEADER + "let retired = [\n{%- for name, sum in checksums|dictsort %}\n"
            '  "{{ name }}": "{{ sum }}",\n{%- endfor %}\n]\n'
            + PACKAGE.format(targets="[]"))
    template = Template(path="Package.swift.j2", text=text, flavour="jinja")
    built = [Artifact("delta", "0" * 64, Location("--frameworks"))]
    item = render(template, "1.0.0", {a.name: a for a in built})
    report = check([item], built, CheckOptions(version="1.0.0"))

    [finding] = [f for f in report.findings if f.code == "unread-checksum"]
    assert (finding.subject, finding.line, finding.file) == ("delta", None, "Package.swift.j2")
    assert finding.message.endswith("SwiftPM (line of the rendered manifest)")
    assert not report.consistent


def test_many_declarations_stay_linear():
    # Each declaration reads the one before; only the last is unread, so all are (transitively).
    body = "".join(f"let d{i} = [d{i - 1}]\n" for i in range(1, 3000))
    text = manifest('let d0 = ["delta": "__SHA256_delta__"]\n' + body)
    [(subject, line, message)] = unread(text)
    assert (subject, line) == ("delta", 3) and "'d0'" in message


def test_a_text_without_a_live_package_is_left_to_the_other_rules():
    # A fragment (no `let package`, or only a compiled-out one) reads nothing at all: the
    # package rules and SwiftPM say what is wrong with it, this one does not.
    assert unread(HEADER + RETIRED) == []
    assert unread(HEADER + RETIRED + "#if false\n" + PACKAGE.format(targets="[]") + "#endif\n") \
        == []
