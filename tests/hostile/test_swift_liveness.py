"""The manifest must be live code, and the tree-sitter check must be bounded (issue 13).

The lexer is checked against hand-classified Swift and by properties (spans cover the text
exactly, in order; comments and strings that are closed leave the code around them intact); the
syntax check is run on the inputs that crashed or stalled tree-sitter-swift, and on real child
processes that crash or hang.
"""

from __future__ import annotations

import os
import signal
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from swiftpm_guard.core.liveness import live_code_findings
from swiftpm_guard.core.model import Rendered, Template
from swiftpm_guard.core.swift_lexer import Kind, lex
from swiftpm_guard.infra import swift_syntax as syntax

PACKAGE = 'let package = Package(name: "p", targets: [.binaryTarget(name: "a", url: "https://x/a.zip", checksum: "CHECKSUM")])\n'


def rendered(text: str, flavour: str = "placeholder") -> Rendered:
    return Rendered(template=Template(path="Package.swift.template", text=text, flavour=flavour),
                    text=text, placeholders=(), version_used=True)


def kinds(text: str) -> list[tuple[str, str]]:
    return [(s.kind.value, text[s.start:s.end]) for s in lex(text).spans]


def test_lexer_classifies_comments_strings_and_interpolation():
    text = 'a = "x\\(f("y") /* c */)z" // end\n/* 1 /* 2 */ 3 */ b #"r\\"q"# ##"s"#"## #/re"/# c'
    assert kinds(text) == [
        ("code", "a = "), ("string", '"x\\('), ("code", "f("), ("string", '"y"'),
        ("code", ") "), ("comment", "/* c */"),
        # the interpolation's `)` closes back into the string
        ("string", ')z"'), ("code", " "), ("comment", "// end"), ("code", "\n"),
        ("comment", "/* 1 /* 2 */ 3 */"), ("code", " b "), ("string", '#"r\\"q"#'),
        ("code", " "), ("string", '##"s"#"##'), ("code", " "), ("regex", '#/re"/#'),
        ("code", " c"),
    ]
    assert lex(text).problems == []


def test_multiline_string_holds_quotes_and_comment_openers():
    text = 'let s = """\n  "quoted" /* not a comment\n  """\nlet package = Package(\n'
    lexed = lex(text)
    assert lexed.problems == []
    assert lexed.kind_at(text.index("/*")) is Kind.STRING
    assert lexed.kind_at(text.index("let package")) is Kind.CODE


def test_unterminated_regions_are_problems_and_swallow_the_rest():
    for opener, what in (("/* /* */", "comment"), ('"""', "string"), ('#"""', "string"),
                         ('"\\(f(', "string"), ("#/x", "regex")):
        text = f"let a = 1\nlet s = {opener}\n{PACKAGE}"
        lexed = lex(text)
        assert [p.what for p in lexed.problems] == [what], opener
        # An open interpolation is code, unclosed; a one-line `#/` regex ends at its line's
        # end (Swift: "unterminated regex literal" there).
        if what == "comment" or (what == "string" and "(" not in opener):
            assert lexed.kind_at(text.index("let package")) is not Kind.CODE, opener


def test_unterminated_single_line_string_ends_at_the_newline():
    lexed = lex('let s = "open\nlet b = 1\n')
    assert [p.what for p in lexed.problems] == ["string"]
    assert lexed.kind_at(lexed.text.index("let b")) is Kind.CODE


SWIFTISH = st.text(alphabet='ab /*"#\\()\n`', max_size=60)


@settings(max_examples=400, deadline=None)
@given(text=SWIFTISH)
def test_spans_cover_the_text_in_order(text):
    lexed = lex(text)
    position = 0
    for span in lexed.spans:
        assert span.start == position and span.end > span.start
        position = span.end
    assert position == len(text)
    assert len(lexed.code_view()) <= len(text)


@settings(max_examples=300, deadline=None)
@given(before=SWIFTISH, inner=st.text(alphabet='ab "#\n', max_size=20))
def test_a_closed_block_comment_hides_only_itself(before, inner):
    """Whatever precedes it, if the code before is clean, a closed comment leaves code after."""
    if lex(before).problems or lex(before + "\n").problems:
        return
    text = f"{before}\n/*{inner}*/ let live = 1"
    lexed = lex(text)
    if lexed.kind_at(len(before)) is Kind.CODE:  # not inside an open interpolation
        assert lexed.kind_at(text.index("let live")) is Kind.CODE


def test_live_package_and_checksum_pass():
    assert live_code_findings(rendered(PACKAGE), {"a": "CHECKSUM"}) == []


def test_checksum_only_in_a_comment_is_not_live():
    text = PACKAGE.replace('"CHECKSUM"', '""') + "// CHECKSUM\n"
    codes = [f.code for f in live_code_findings(rendered(text), {"a": "CHECKSUM"})]
    assert codes == ["not-live-code"]


def test_package_in_a_string_is_not_live():
    text = 'let s = """\n' + PACKAGE + '"""\n'
    findings = live_code_findings(rendered(text), {"a": "CHECKSUM"})
    assert {f.subject for f in findings} == {"let package = Package(", "binaryTarget", "a"}
    assert all(f.code == "not-live-code" for f in findings)


def test_thirty_thousand_openers_are_a_finding_not_a_stall():
    findings = syntax.syntax_findings(rendered("let v = 1\n" + "/*\n" * 30000))
    assert [f.code for f in findings] == ["swift-syntax"]
    assert "never closed" in findings[0].message


def test_hundred_thousand_comment_lines_get_a_verdict():
    text = PACKAGE + "// a comment line\n" * 100000
    findings = syntax.syntax_findings(rendered(text))
    assert [f.code for f in findings] == ["swift-syntax"]
    assert "could not be checked" in findings[0].message


def test_the_parse_runs_in_the_child_within_the_cap():
    text = PACKAGE + "// a comment line\n" * 50000  # under the byte cap: really parsed
    assert syntax.syntax_findings(rendered(text)) == []
    broken = PACKAGE.replace("targets: [", "targets: [[")
    assert [f.code for f in syntax.syntax_findings(rendered(broken))] == ["swift-syntax"]


def _segfault(_data: bytes) -> list[tuple[int, int, str]]:
    os.kill(os.getpid(), signal.SIGSEGV)
    return []


def _hang(_data: bytes) -> list[tuple[int, int, str]]:
    time.sleep(60)
    return []


def test_a_crashing_parser_is_could_not_be_checked():
    findings = syntax.syntax_findings(rendered(PACKAGE), parse=_segfault)
    assert [f.code for f in findings] == ["swift-syntax"]
    assert "could not be checked: tree-sitter-swift crashed (SIGSEGV)" in findings[0].message


def test_a_hanging_parser_is_stopped():
    findings = syntax.syntax_findings(rendered(PACKAGE), parse=_hang, seconds=0.5)
    assert [f.code for f in findings] == ["swift-syntax"]
    assert "did not finish within 0.5 s" in findings[0].message


def test_if_false_and_undefined_conditions_compile_out():
    from swiftpm_guard.core.swift_lexer import Inactive

    text = ("#if false\nA\n#elseif os(macOS)\nB\n#else\nC\n#endif\n"
            "#if FLAG\nD\n#if true\nE\n#endif\n#else\nF\n#endif\n"
            "#if true\nG\n#else\nH\n#endif\n// #if false\nI\n\"#if false\"\nJ\n")
    inactive = Inactive(lex(text))
    dead = {c for c in "ABCDEFGHIJ" if inactive.dead_at(text.index(f"\n{c}\n") + 1)}
    assert dead == {"A", "D", "E", "H"}  # B and C depend on the platform: live


def test_package_under_if_false_is_not_live():
    text = "#if false\n" + PACKAGE + "#endif\n"
    findings = live_code_findings(rendered(text), {"a": "CHECKSUM"})
    assert {f.subject for f in findings} == {"let package = Package(", "binaryTarget", "a"}
    assert any("#if compiles out" in f.message for f in findings)
