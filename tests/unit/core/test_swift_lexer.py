"""The Swift lexer and `#if` evaluator, case by case against what Swift 6.0.3 answered.

Every row was run through the real `swift package dump-package` (tools version 5.9 unless
said) before it was written down: "A" means SwiftPM compiled the `#if` branch, "B" the `#else`,
"rejects" that it refused the manifest. Where the reader refuses a manifest SwiftPM accepts,
the row says so: refusing is allowed, a wrong "consistent" is not.
"""

from __future__ import annotations

import pytest

from swiftpm_guard.core.swift_lexer import (
    Kind,
    Problem,
    Verdict,
    condition_verdict,
    lex,
    tools_version,
)

T, F, HOST, UNDECIDABLE = Verdict.TRUE, Verdict.FALSE, Verdict.HOST, Verdict.UNDECIDABLE

CONDITIONS = [
    # (condition, the reader's verdict, what SwiftPM 6.0.3 answered)
    ("!(true)", F, "B"), ("false && x", F, "B"), ("false || false", F, "B"),
    ("false /* off */", F, "B"), ("canImport(Foundation) && false", F, "B"),
    ("compiler(<1.0)", F, "B"), ("swift(<1)", F, "B"), ("SWIFT_PACKAGE", F, "B"),
    ("DEBUG", F, "B"), ("`true`", F, "B"), ("false&&true", F, "B"),
    ("false/**/&& true", F, "B"), ("( !true )", F, "B"), ("swift(>=5.11)", F, "B"),
    ("swift(>=6)", F, "B"), ("swift(>=5.10.1)", UNDECIDABLE, "B"),
    ("true || false && false", T, "A"), ("true&&true", T, "A"), ("!(!true)", T, "A"),
    ("true &&/**/true", T, "A"), ("(\ntrue\n)", T, "A"), ("((true))", T, "A"),
    ("!false && !false", T, "A"), ("swift( >=5.9 )", T, "A"), ("swift(>=05.9)", T, "A"),
    ("swift(>=5.9)", T, "A"), ("compiler(>=5.9.0.0.0)", T, "A"),
    ("swift(>=1.2.3.4.5.6)", T, "A"), ("compiler(>=1.2.3.4.5.6.7)", T, "A"),
    ("true//c", T, "A"), ("true/*c*/", T, "A"), ("(true) || os(Linux)", T, "A"),
    ("os(Linux) || !os(Linux)", T, "A"),
    ("os(Linux)", HOST, "A"), ("os (Linux)", HOST, "A"), ("os(\nLinux\n)", HOST, "A"),
    ("arch(x86_64)", HOST, "A"), ("arch(arm64)", HOST, "B"), ("os(Foo)", HOST, "B"),
    ("canImport(Foundation)", HOST, "A"), ("canImport(Foundation.NSObject)", HOST, "B"),
    ('canImport(Foundation, _version: "1.2")', HOST, "A"),
    ("canImport(Foundation, _underlyingVersion: 1.2)", HOST, "B"),
    ("targetEnvironment(simulator)", HOST, "B"), ("_endian(little)", HOST, "A"),
    ("_pointerBitWidth(_64)", HOST, "A"), ("_runtime(_ObjC)", HOST, "B"),
    ("_ptrauth(_arm64e)", HOST, "B"), ("_hasAtomicBitWidth(_64)", HOST, "A"),
    ("os(Linux) || os(macOS)", HOST, "A"),
    ("swift(>=5.10)", UNDECIDABLE, "A"), ("swift(>=5.10.0)", UNDECIDABLE, "A"),
    ("swift(<5.10.0.1)", UNDECIDABLE, "A"), ("compiler(>=6.0.3)", UNDECIDABLE, "A"),
    ("compiler(>=6.0.4)", UNDECIDABLE, "B"), ("compiler(>=6.0.2.99999)", UNDECIDABLE, "A"),
    ("$Macros", UNDECIDABLE, "A"), ("hasFeature(Foo)", UNDECIDABLE, "B"),
    ("hasAttribute(foo)", UNDECIDABLE, "B"), ('_compiler_version("5.9.0.0.0")', UNDECIDABLE, "A"),
]

REJECTED_CONDITIONS = [
    # SwiftPM rejects every one of these; so does the reader (a Problem).
    "false && foo(bar)", "foo(bar)", "true || foo(bar)", "! true", "false == true",
    "swift(==5)", "swift(>5)", "swift(>= 5.9)", "true &&true", "true&& true", "!!true",
    "!/**/true", "swift(>=5.9.)", "swift(<5_9)", "swift(>=5.x)",
    "canImport(Foundation, version: 1)", "os(name: macOS)", "os(macOS, iOS)", "os()", "nil",
    "let", "_", "_pointerBitWidth(64)", 'os("Linux")', "os(Linux) &&\n(true)", "1", "a.b",
    "false ||\ntrue", "false\n|| true", "false /* a\nb */ || true", "",
]

REFUSED_CONDITIONS = [
    # SwiftPM accepts these (all false); the reader refuses them rather than guess.
    "self", "Self", "swift(>=99999999999)", "false\f",
]


@pytest.mark.parametrize(("condition", "verdict", "swiftpm"), CONDITIONS)
def test_condition_verdicts(condition, verdict, swiftpm):
    assert condition_verdict(condition, (5, 9)) is verdict
    if verdict.decided:  # a decided verdict must be SwiftPM's own answer
        assert (verdict is T) == (swiftpm == "A")


@pytest.mark.parametrize("condition", REJECTED_CONDITIONS + REFUSED_CONDITIONS)
def test_conditions_swift_rejects_or_the_reader_cannot_read_are_problems(condition):
    assert isinstance(condition_verdict(condition, (5, 9)), Problem)


@pytest.mark.parametrize(("condition", "tools", "verdict", "swiftpm"), [
    ("swift(>=6)", (6,), T, "A"), ("swift(>=6.0.3)", (6,), UNDECIDABLE, "A"),
    ("swift(>=6.0.4)", (6,), UNDECIDABLE, "B"), ("swift(>=5.10)", (6,), T, "A"),
    ("compiler(>=6)", (6,), T, "A"), ("compiler(>=6)", (5, 9), UNDECIDABLE, "A"),
    ("swift(>=5.10)", (5, 10), T, "A"), ("swift(>=6)", None, UNDECIDABLE, "-"),
    ("compiler(>=5.9)", None, T, "-"), ("compiler(>=7)", (5, 9), F, "B"),
])
def test_version_checks_hold_for_every_supported_compiler_or_are_undecidable(
        condition, tools, verdict, swiftpm):
    assert condition_verdict(condition, tools) is verdict


@pytest.mark.parametrize(("first_line", "version"), [
    ("// swift-tools-version:5.9", (5, 9)), ("// swift-tools-version: 5.9.0", (5, 9)),
    ("//swift-tools-version:6.0", (6,)), ("// Swift-Tools-Version:5.10.1", (5, 10, 1)),
    ("// swift-tools-version:", None), ("import PackageDescription", None),
])
def test_tools_version_is_read_from_the_first_line(first_line, version):
    assert tools_version(first_line + "\nlet x = 1\n") == version


# -- manifests: string literals -------------------------------------------------------------

HEADER = "// swift-tools-version:5.9\nimport PackageDescription\n"
PACKAGE = 'let package = Package(name: "p")\n'

ACCEPTED_STRINGS = {  # SwiftPM accepts each as `let s = <literal>`
    "empty line": '"""\n  a\n\n  """', "tabs both": '"""\n\ta\n\t"""',
    "escaped line break, blanks": '"""\n  a\\   \n  b\n  """',
    "escaped line break": '"""\n  a\\\n  b\n  """', "8 hex digits": '"\\u{0000041}"',
    "raw backslash": '#"a\\q"#', "code after the closer": '"""\n  a\n  """ + "b"',
    "raw #\"\"\" on one line": '#"""abc"""#', "CR lines": '"""\r  a\r  """',
    "CRLF lines": '"""\r\n  a\r\n  """', "escaped quotes": '"""\n  \\"""\n  """',
    "two quotes inside": '"""\n  ""a""\n  """', "NUL": '"a\x00b"', "raw \"# inside ##": '##"a"#"##',
    "escaped quote": "\"\\'\"", "NUL escape": '"\\0"',
    "##\"\"\" holding \"\"\"#": '##"""\n  a"""#\n  """##', "interpolation": '"x\\(f("y"))z"',
}

REJECTED_STRINGS = {  # SwiftPM rejects each
    "blanks after the opener": '"""   \n  a\n  """', "six quotes": '""""""',
    "blank line too short": '"""\n  a\n \n  """', "tab for spaces": '"""\n\ta\n  """',
    "space for tab": '"""\n \ta\n\t """', "invalid escape": '"\\q"',
    "surrogate": '"\\u{D800}"', "empty \\u{}": '"\\u{}"', "9 hex digits": '"\\u{123456789}"',
    "past U+10FFFF": '"\\u{110000}"', "\\u without braces": '"\\u0041"',
    "too many #": '#"a"##', "raw invalid escape": '#"a\\#q"#',
    "closer after text": '"""\n  a\n  x"""', "content on the opening line": '"""a\n  """',
    "one line": '"""abc"""', "comment after the opener": '"""  // c\n  a\n  """',
    "four quotes close": '"""\n  a\n  """"', "form feed": '"a\fb"', "vertical tab": '"a\vb"',
    "form feed indent": '"""\n\fa\n\f"""', "interpolation line short": '"""\n  \\(1 +\n 2)\n  """',
    "one-line interpolation breaks": '"\\(1 +\n 2)"',
    "interpolation at column 0": '"""\n  a\\(\n"x")\n  """',
    "escaped last line break": '"""\n  a\\\n  """', "DEL": '"a\x7fb"', "CR inside": '"a\rb"',
}


@pytest.mark.parametrize("case", list(ACCEPTED_STRINGS))
def test_string_literals_swift_accepts_lex_clean(case):
    text = f"{HEADER}let s = {ACCEPTED_STRINGS[case]}\n{PACKAGE}"
    lexed = lex(text)
    assert lexed.problems == []
    assert lexed.kind_at(text.index("let package")) is Kind.CODE


@pytest.mark.parametrize("case", list(REJECTED_STRINGS))
def test_string_literals_swift_rejects_are_problems(case):
    assert lex(f"{HEADER}let s = {REJECTED_STRINGS[case]}\n{PACKAGE}").problems != []


def test_raw_one_line_string_that_looks_multiline_keeps_its_quotes():
    text = 'let s = #"""abc"""#\n'
    assert [(s.kind, text[s.start:s.end]) for s in lex(text).spans][1] == \
        (Kind.STRING, '#"""abc"""#')


# -- manifests: directives ------------------------------------------------------------------

A, B = 't.append("a")', 't.append("b")'

ACCEPTED_DIRECTIVES = {  # SwiftPM accepts each; the #else branch is the one compiled
    "CR": f"#if false\r{A}\r#else\r{B}\r#endif", "CRLF": f"#if false\r\n{A}\r\n#else\r\n{B}\r\n#endif",
    "form feed": f"#if false\n{A}\n\f#else\n{B}\n#endif",
    "vertical tab": f"#if false\n{A}\n\v#else\n{B}\n#endif",
    "after ;": f"#if false\n{A}; #else\n{B}\n#endif", "; first": f"#if false\n{A}\n;#else\n{B}\n#endif",
    "after code": f"#if false\n{A} #else\n{B}\n#endif",
    "after a comment": f"#if false\n{A}\n/* c */ #else\n{B}\n#endif",
    "after a two-line comment": f"#if false\n{A}\n/* c\n */ #else\n{B}\n#endif",
    "after a form feed on the line": f"#if false\n{A}\f#else\n{B}\n#endif",
    "after NUL": f"#if false\n{A}\n\x00#else\n{B}\n#endif",
    "after a no-break space": f"#if false\n{A}\n\u00a0#else\n{B}\n#endif",
    "comments after": f"#if false\n{A}\n#else // c\n{B}\n#endif // d",
    "comment then CR": f"#if false // c\r{A}\r#else\r{B}\r#endif",
    "CR ends a line comment": f"#if false\n{A}\n// c\r#else\n{B}\n#endif",
    "#if(": f"#if(false)\n{A}\n#else\n{B}\n#endif", "empty body": f"#if true\n#endif\n{B}",
    "#if after ;": f"{B}; #if false\n{A}\n#endif",
    "#if after {": f"let f = {{ #if false\n{A}\n#endif\n}}\nf()",
    "two-line comment after #else": f"#if false\n{A}\n#else /* c\n */ {B}\n#endif",
    "#endif in a multi-line string": f'#if false\nlet s = """\n#endif\n"""\n{A}\n#else\n{B}\n#endif',
    "parentheses over lines": f"#if (false\n|| true)\n{B}\n#endif",
    "NUL before #if": f"{B}\n\x00#if false\n{A}\n#endif",
    "; and a form feed before #if": f"{B}\n;\f#if false\n{A}\n#endif",
    "form feed before #endif": f"#if false\n{A}\n\f#endif",
}

REJECTED_DIRECTIVES = {  # SwiftPM rejects each
    "condition goes on after ||": f"#if false ||\ntrue\n{A}\n#endif",
    "next line starts with ||": f"#if false\n|| true\n{A}\n#endif",
    "comment breaks the line": f"#if false /* a\nb */ || true\n{A}\n#endif",
    "code after the condition": f"#if false {A}\n#endif", "code after #else": f"#if false\n#else {B}\n#endif",
    "code after #endif": f"#if false\n#endif {B}", "code after a comment after #endif":
    f"#if false\n#endif /* c */ {B}",
    "#elseif after #else": "#if false\n#else\n#elseif true\n#endif",
    "#else twice": "#if false\n#else\n#else\n#endif", "no condition": f"#if\n{A}\n#endif",
    "#elseif without condition": f"#if false\n#elseif\n{A}\n#endif",
    "#if!": f"#if!true\n{A}\n#endif", "unclosed #if true": f"#if true\n{A}",
    "unclosed #if false": f"#if false\n{A}", "stray #else": f"{A}\n#else\n{B}",
    "stray #endif": f"{A}\n#endif", "stray #elseif": f"{A}\n#elseif true",
    "bad condition in a dead branch": "#if false\n#if foo(bar)\n#endif\n#endif",
    "bad #elseif after a taken branch": f"#if true\n{A}\n#elseif foo(bar)\n#endif",
    "!! in a dead branch": "#if false\n#if !!true\n#endif\n#endif",
    "#if #endif on one line": f"#if true #endif\n{A}", "#if after code": f"{A} #if false\n#endif",
    "#ifdef": f"#ifdef\n{A}\n#endif", "#if in an interpolation": 'let s = "\\(1 #if)"',
    "U+2028": f"#if false\n{A}\u2028#else\n{B}\n#endif",
    "form feed before #if": f"{A}\n\f#if false\n{B}\n#endif",
    "vertical tab before #if": f"{A}\n\v#if false\n{B}\n#endif",
    "space, form feed before #if": f"{A}\n \f#if false\n{B}\n#endif",
    "no-break space before #if": f"{A}\n\u00a0#if false\n{B}\n#endif",
    "comment before #if": f"{A}\n/* c */ #if false\n{B}\n#endif",
    "&&!": f"#if true&&!false\n{A}\n#endif",
}

REFUSED_DIRECTIVES = {  # SwiftPM accepts each (an inactive `swift(<…)` branch is not parsed)
    "bad condition under swift(<1)": "#if swift(<1)\n#if foo(bar)\n#endif\n#endif",
    "one-line \"\"\" under swift(<1)": '#if swift(<1)\nlet s = """abc"""\n#endif',
    "unterminated string under swift(<1)": '#if swift(<1)\nlet s = "abc\n#endif',
}


def manifest(body: str) -> str:
    return f"{HEADER}var t: [String] = []\n{body}\n{PACKAGE}"


@pytest.mark.parametrize("case", list(ACCEPTED_DIRECTIVES))
def test_directives_swift_accepts_parse_clean_and_compile_the_else(case):
    text = manifest(ACCEPTED_DIRECTIVES[case])
    lexed = lex(text)
    assert lexed.problems == []
    if '"a"' in text:
        assert lexed.inactive.dead_at(text.index('"a"'))
    if '"b"' in text:
        assert not lexed.inactive.dead_at(text.index('"b"'))


@pytest.mark.parametrize("case", list(REJECTED_DIRECTIVES) + list(REFUSED_DIRECTIVES))
def test_directives_swift_rejects_or_the_reader_refuses_are_problems(case):
    body = {**REJECTED_DIRECTIVES, **REFUSED_DIRECTIVES}[case]
    assert lex(manifest(body)).problems != []


def test_chains_record_each_branch_and_the_implicit_else():
    text = manifest(f"#if os(Linux)\n{A}\n#elseif false\n{B}\n#endif")
    [chain] = lex(text).inactive.chains
    assert [(b.condition, b.verdict, b.implicit) for b in chain.branches] == [
        ("#if os(Linux)", HOST, False), ("#elseif false", F, False), (None, HOST, True)]


def test_nested_branches_are_judged_with_their_enclosing_conditions():
    text = manifest(f"#if os(Linux)\n#if !os(Linux)\n{A}\n#else\n{B}\n#endif\n#endif")
    inactive = lex(text).inactive
    assert inactive.dead_at(text.index('"a"'))  # never: the outer needs Linux, the inner not
    assert not inactive.dead_at(text.index('"b"'))
    assert [b.verdict for b in inactive.chains[1].branches] == [F, HOST]


def test_a_long_elseif_chain_stays_sound_past_the_exact_budget():
    body = "#if os(Linux)\n" + "".join(f"#elseif os(A{i})\n" for i in range(300)) + \
        f"#elseif true\n{A}\n#else\n{B}\n#endif"
    text = manifest(body)
    inactive = lex(text).inactive
    assert inactive.dead_at(text.index('"b"'))  # `true` before it: never compiled
    assert not inactive.dead_at(text.index('"a"'))
