"""Issue 24: where SwiftPM is absent, the static reader decides exactly or refuses.

Each case here was first run through the real Swift 6.0.3 SwiftPM (`swift package
dump-package`, tools version 5.9); the comment beside it says what SwiftPM answered. Every test
in this file fails on the reader before issue 24 (APIs that existed then: `render`,
`live_code_findings`, `lex(...).problems`) and passes now.
"""

from __future__ import annotations

import pytest

from swiftpm_guard.core.liveness import live_code_findings
from swiftpm_guard.core.model import Rendered, Template
from swiftpm_guard.core.render import render
from swiftpm_guard.core.swift_lexer import lex

HEADER = "// swift-tools-version:5.9\nimport PackageDescription\n"
TAIL = 'let package = Package(name: "p", targets: [])\n'


def template(body: str) -> Template:
    return Template(path="Package.swift.template", text=HEADER + body + TAIL,
                    flavour="placeholder")


def asked(body: str) -> list[str]:
    """The names the rendered template asks for, as the static reader reads them."""
    return sorted(p.name for p in render(template(body), "1.0.0", {}).placeholders)


def branches(condition: str, newline: str = "\n") -> str:
    return (f"var t: [String: String] = [:]{newline}#if {condition}{newline}"
            f't["a"] = "__SHA256_a__"{newline}#else{newline}'
            f't["b"] = "__SHA256_b__"{newline}#endif{newline}')


def rendered(text: str) -> Rendered:
    return Rendered(template=Template(path="Package.swift.template", text=text,
                                      flavour="placeholder"),
                    text=text, placeholders=(), version_used=True)


# -- bullet 1: conditions the text alone decides --------------------------------------------

# SwiftPM 6.0.3 compiles the #else branch (b) of each.
DECIDED_FALSE = ["!(true)", "false && x", "false || false", "false /* off */",
                 "canImport(Foundation) && false", "compiler(<1.0)", "swift(<1)"]


@pytest.mark.parametrize("condition", DECIDED_FALSE)
def test_a_condition_the_text_decides_compiles_its_branch_out(condition):
    assert asked(branches(condition)) == ["b"]


# -- bullet 2: lines and white space as Swift's lexer has them -------------------------------

# SwiftPM compiles the #else in all four: a lone CR ends a line, \f and \v are white space, and
# a directive may follow `;` (or any code) on its line.
LINE_FORMS = {
    "lone CR": ("false", "\r", "", ""),
    "form feed": ("false", "\n", "\f", ""),
    "vertical tab": ("false", "\n", "\v", ""),
    "after ;": ("false", "\n", "", "_ = 0; "),
}


@pytest.mark.parametrize("form", list(LINE_FORMS))
def test_a_directive_after_cr_ff_vt_or_a_semicolon_is_seen(form):
    condition, newline, blank, before = LINE_FORMS[form]
    body = branches(condition, newline).replace(f"{newline}#else", f"{newline}{before}{blank}#else")
    assert asked(body) == ["b"], repr(body)


# -- bullet 3: manifests the compiler rejects ------------------------------------------------

# SwiftPM rejects each of these; tree-sitter-swift 0.7.4 accepts them all.
REJECTED = {
    '""" on one line': 'let s = """abc"""\n',
    "content on the opening line": 'let s = """abc\n  """\n',
    "closing delimiter not on its own line": 'let s = """\n  abc\n  x"""\n',
    # SwiftPM: "escaped newline at the last line is not allowed", with every line ending (the
    # CRLF form was missed; benchmarks/swift_differential.py seed 1 found it).
    "escaped newline before the closing line": 'let s = """\n  a\\\n  """\n',
    "escaped newline before the closing line, CRLF": 'let s = """\r\n  a\\\r\n  """\r\n',
    "escaped newline before the closing line, CR": 'let s = """\r  a\\\r  """\r',
    "an unclosed live #if": "#if true\nlet x = 1\n",
    "a stray #else": "let x = 1\n#else\nlet y = 2\n",
}


@pytest.mark.parametrize("case", list(REJECTED))
def test_a_manifest_swift_rejects_is_a_problem(case):
    assert lex(HEADER + REJECTED[case] + TAIL).problems != []


def test_two_live_package_declarations_are_an_error():
    text = HEADER + TAIL + 'let package = Package(name: "q")\n'
    findings = live_code_findings(rendered(text), {})
    assert [f.subject for f in findings] == ["let package = Package("]
    assert "declared twice" in findings[0].message


def test_package_declarations_in_two_branches_of_one_if_are_one_each():
    text = HEADER + "#if os(Linux)\n" + TAIL + "#else\n" + TAIL + "#endif\n"
    assert live_code_findings(rendered(text), {}) == []


# -- never a union: an undecided #if whose branches ask for different names ------------------

CHECKSUMS = {"a": "__SHA256_a__", "b": "__SHA256_b__"}


@pytest.mark.parametrize(("condition", "why"), [
    ("os(macOS)", "depends on the machine"),
    ("canImport(UIKit) || arch(arm64)", "depends on the machine"),
    ("swift(>=5.10)", "cannot be decided"),  # 5.9 says no, 5.10 and 6.x say yes
    ("hasFeature(Embedded)", "cannot be decided"),
])
def test_an_undecided_condition_with_different_names_is_an_error(condition, why):
    text = HEADER + branches(condition) + TAIL
    findings = live_code_findings(rendered(text), CHECKSUMS)
    assert [f.code for f in findings] == ["undecidable-condition"]
    assert why in findings[0].message and "asks for a;" in findings[0].message
    assert findings[0].line == 4


def test_an_if_without_else_asks_for_nothing_on_the_other_hosts():
    text = HEADER + '#if os(iOS)\nlet x = ["a": "__SHA256_a__"]\n_ = x\n#endif\n' + TAIL
    findings = live_code_findings(rendered(text), {"a": "__SHA256_a__"})
    assert [f.code for f in findings] == ["undecidable-condition"]
    assert "no #else (line 6) asks for nothing" in findings[0].message


def test_undecided_branches_asking_for_the_same_names_pass():
    text = HEADER + branches("os(Linux)").replace('"b"] = "__SHA256_b__"', '"a"] = "__SHA256_a__"')
    assert live_code_findings(rendered(text + TAIL), {"a": "__SHA256_a__"}) == []
