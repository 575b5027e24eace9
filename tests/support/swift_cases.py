"""Seeded manifests for the differential tier: the static reader against the real SwiftPM.

Each `Case` is a small binary-package template whose `#if` branches ask for different binary
targets (`__SHA256_<name>__` placeholders in `targets["<name>"] = …` lines). What varies, from
a seeded `random.Random`:

- conditions from a grammar of literals, flags, `!`, `&&`, `||`, parentheses (with line breaks
  inside), comments, `os`/`arch`/`canImport`/… and `compiler`/`swift` version checks, with some
  forms Swift rejects (a spaced `!`, `&&` bound on one side, unknown functions, `==`);
- line endings (LF, CR, CRLF) and what stands before a directive (`\\f`, `\\v`, `;`, code,
  comments) or after it;
- string literals placed before or inside a branch: one-line, multi-line (some holding `#else`
  or `#endif` lines), raw, with escapes, well formed or not;
- whole-manifest shapes: two `let package`, an unclosed `#if`, a stray `#else`, tools 6.0.

A fragment case can share one manifest with others (each names its targets `c<N>_…`), so one
`dump-package` answers for several; a whole case runs alone.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

VERSIONS = ["1", "5", "5.9", "5.9.2", "5.10", "5.10.1", "5.11", "6", "6.0", "6.0.3", "6.0.4",
            "6.1", "7", "99"]
DECISIVE = ["1", "4.2", "5", "5.9", "7", "99"]
HOST = ["os(Linux)", "os(macOS)", "os(iOS)", "arch(x86_64)", "arch(arm64)",
        "canImport(Foundation)", "canImport(UIKit)", "targetEnvironment(simulator)",
        "_endian(little)", "_pointerBitWidth(_64)", "os (Linux)", "canImport(Foundation.NSObject)"]
FLAGS = ["DEBUG", "SWIFT_PACKAGE", "NEVER", "`true`"]
FEATURES = ["hasFeature(StrictConcurrency)", "$Macros", "hasAttribute(retroactive)"]
BROKEN = ["foo(bar)", "! true", "swift(>5)", "swift(>= 5.9)", "1", "a.b", "os()", "nil",
          "true == false", "compiler(>=5.x)"]

VALID_STRINGS = ['"plain"', '"esc \\t \\" \\u{41} \\0"', '#"raw \\q "quoted" "#',
                 '##"a"#"##', '"""\n  a\n\n  b\n  """', '"""\n\ta\n\t"""',
                 '"""\n  #else\n  """', '"""\n#endif\n"""', '#"""\n  x\\#(1)\n  """#',
                 '"""\n  a\\\n  b\n  """', '"x\\(String("#else"))y"', '#"""abc"""#',
                 '"a /* not a comment"', '"// not a comment"', '"""\r\n  a\r\n  """']
INVALID_STRINGS = ['"""abc"""', '"""abc\n  """', '"""\n  abc\n  x"""', '"\\q"', '"\\u{D800}"',
                   '#"a"##', '"""\n\ta\n  """', '"""\n  a\n \n  """', '"a\fb"', '"\\u0041"',
                   '"""   \n  a\n  """', '"""\n  a\\\n  """', '"open\n', '"""\n  #endif\n']

# Before `#else`, `#elseif`, `#endif`: anything, code included, on the same line.
DIRECTIVE_BEFORE = ["", "", "", "  ", "\t", "\f", "\v", "; ", "_ = 0; ", "/* c */ ", "\f\v ",
                    "_ = 0 ", "\x00"]
# Before `#if`: the start of its line (spaces, tabs, NUL) or a `;`; Swift rejects the others.
IF_BEFORE = ["", "", "", "  ", "\t", "; ", "_ = 0; ", "\x00", ";\f"]
IF_BEFORE_BROKEN = ["\f", "\v", "/* c */ ", "_ = 0 ", "\u00a0"]
DIRECTIVE_AFTER = ["", "", "", " // note", " /* c */", "\t"]
BROKEN_AFTER = [" _ = 0", " x"]
NEWLINES = ["\n", "\n", "\r", "\r\n"]


@dataclass(frozen=True)
class Case:
    """One manifest body. `fragment` goes between the shared header and footer; a whole case
    (`whole=True`) is the entire template."""

    ident: str
    tools: str
    fragment: str
    names: tuple[str, ...]  # every name any branch asks for
    whole: bool = False
    note: str = ""


HEADER = ("// swift-tools-version:{tools}\nimport PackageDescription\n"
          'let version = "__VERSION__"\nvar targets: [String: String] = [:]\n')
FOOTER = ("let packageTargets: [Target] = targets.keys.sorted().map { name in\n"
          "  .binaryTarget(name: name, url: \"https://example.invalid/\\(name)-\\(version).zip\",\n"
          "                checksum: targets[name]!)\n}\n"
          'let package = Package(name: "differential", targets: packageTargets)\n')


def template_text(cases: list[Case]) -> str:
    """The template for these cases together (all fragments of one tools version), or one
    whole case alone."""
    if len(cases) == 1 and cases[0].whole:
        return cases[0].fragment
    return HEADER.format(tools=cases[0].tools) + "".join(c.fragment for c in cases) + FOOTER


class _Maker:
    def __init__(self, rng: random.Random, index: int) -> None:
        self.rng = rng
        self.prefix = f"c{index}_"
        self.names: list[str] = []
        self.newline = rng.choice(NEWLINES)
        self.broken = rng.random() < 0.12  # this case may hold forms Swift rejects

    def asks(self, suffix: str) -> str:
        name = self.prefix + suffix
        self.names.append(name)
        return f'targets["{name}"] = "__SHA256_{name}__"'

    # -- conditions ---------------------------------------------------------------------------

    def condition(self, depth: int = 0) -> str:
        rng = self.rng
        roll = rng.random()
        if depth >= 3 or roll < 0.35:
            return self.leaf()
        if roll < 0.5:
            inner = self.condition(depth + 1)
            if rng.random() < 0.5 or " " in inner or inner.startswith("!"):
                return "!(" + self.spaced(inner) + ")"
            return "!" + inner
        if roll < 0.62:
            return "(" + self.spaced(self.condition(depth + 1)) + ")"
        operator = rng.choice(["&&", "||"])
        left, right = self.condition(depth + 1), self.condition(depth + 1)
        if ("||" in left and operator == "&&") or rng.random() < 0.2:
            left = f"({left})"
        return left + self.glue(operator, right) + right

    def leaf(self) -> str:
        rng = self.rng
        roll = rng.random()
        if self.broken and roll < 0.08:
            return rng.choice(BROKEN)
        if roll < 0.45:
            return rng.choice(["true", "false", "true", "false", *FLAGS])
        if roll < 0.6:
            return rng.choice(HOST)
        if roll < 0.95:
            function = rng.choice(["compiler", "swift"])
            space = " " if rng.random() < 0.1 else ""
            # Half of them with a version every supported compiler agrees on.
            versions = DECISIVE if rng.random() < 0.5 else VERSIONS
            return f"{function}({space}{rng.choice(['>=', '<'])}{rng.choice(versions)}{space})"
        return rng.choice(FEATURES)

    def spaced(self, text: str) -> str:
        rng = self.rng
        # A line break inside parentheses is white space.
        pad = rng.choice(["", "", " ", "\n", " /* p */ "])
        return pad + text + pad

    def glue(self, operator: str, right: str) -> str:
        rng = self.rng
        if self.broken and rng.random() < 0.15:
            return rng.choice([f" {operator}", f"{operator} ", f" {operator}\n"])
        choices = [f" {operator} ", f" {operator} ", f" /* c */ {operator} ",
                   f" {operator} /* d */ "]
        if not right.startswith("!"):
            choices.append(operator)
        return rng.choice(choices)

    # -- directives and branches --------------------------------------------------------------

    def directive(self, word: str, condition: str | None = None) -> str:
        rng = self.rng
        before = rng.choice(IF_BEFORE if word == "#if" else DIRECTIVE_BEFORE)
        if self.broken and word == "#if" and rng.random() < 0.3:
            before = rng.choice(IF_BEFORE_BROKEN)
        after = rng.choice(DIRECTIVE_AFTER)
        if self.broken and rng.random() < 0.1:
            after = rng.choice(BROKEN_AFTER)
        text = word if condition is None else f"{word} {condition}"
        return before + text + after + self.newline

    def string_line(self) -> str:
        rng = self.rng
        pool = INVALID_STRINGS if self.broken and rng.random() < 0.5 else VALID_STRINGS
        literal = rng.choice(pool)
        if self.newline != "\n":
            literal = literal.replace("\r\n", "\n").replace("\n", self.newline)
        return f"_ = {literal}{self.newline}"

    def chain(self, depth: int = 0) -> str:
        rng = self.rng
        nl = self.newline
        parts = [self.directive("#if", self.condition())]
        parts.append(self.body(depth, "a" + str(depth)))
        if rng.random() < 0.3:
            parts.append(self.directive("#elseif", self.condition()))
            parts.append(self.body(depth, "b" + str(depth)))
        if rng.random() < 0.75:
            parts.append(self.directive("#else"))
            parts.append(self.body(depth, "e" + str(depth)))
        parts.append(self.directive("#endif"))
        return "".join(parts) + ("" if parts[-1].endswith(nl) else nl)

    def body(self, depth: int, suffix: str) -> str:
        rng = self.rng
        lines = []
        if rng.random() < 0.2:
            lines.append(self.string_line())
        lines.append(self.asks(suffix) + self.newline)
        if depth < 1 and rng.random() < 0.2:
            lines.append(self.chain(depth + 1))
        return "".join(lines)

    def fragment(self) -> str:
        nl = self.newline
        text = self.asks("base") + nl
        if self.rng.random() < 0.25:
            text += self.string_line()
        return text + self.chain() + "\n"


def _whole_cases(rng: random.Random, start: int) -> list[Case]:
    """Manifest shapes that only make sense alone: each is the whole template."""
    one = 'targets["{p}a"] = "__SHA256_{p}a__"\n'
    package = 'let package = Package(name: "differential", targets: packageTargets)\n'
    footer_without = FOOTER.replace(package, "")
    shapes = {
        "two live packages": one + footer_without + package + package.replace("differential",
                                                                             "again"),
        "two packages, one under #if false": one + footer_without + package +
        "#if false\n" + package + "#endif\n",
        "two packages, one per host": one + footer_without + "#if os(Linux)\n" + package +
        "#else\n" + package + "#endif\n",
        "unclosed #if true": "#if true\n" + one + FOOTER,
        "unclosed #if false": one + "#if false\n" + FOOTER,
        "stray #else": one + "#else\n" + FOOTER,
        "stray #endif": one + "#endif\n" + FOOTER,
        "#endif only in a string": one + "#if os(Linux)\n" + 'let s = "#endif"\n' + FOOTER,
    }
    cases = []
    for offset, (note, body) in enumerate(shapes.items()):
        prefix = f"c{start + offset}_"
        text = HEADER.format(tools=rng.choice(["5.9", "6.0"])) + body.replace("{p}", prefix)
        cases.append(Case(f"whole-{start + offset}", "", text, (prefix + "a",), whole=True,
                          note=note))
    return cases


def generate(seed: int, count: int) -> list[Case]:
    """`count` cases (the whole-manifest shapes among them), the same for the same seed."""
    rng = random.Random(seed)
    cases = _whole_cases(rng, 0)
    index = len(cases)
    while len(cases) < count:
        maker = _Maker(rng, index)
        tools = rng.choice(["5.9", "5.9", "5.10", "6.0"])
        text = maker.fragment()
        cases.append(Case(f"case-{index}", tools, text, tuple(maker.names),
                          note="broken" if maker.broken else ""))
        index += 1
    return cases[:count]


def issue_24_cases() -> dict[str, Case]:
    """The seven conditions, four line and white-space forms and six rejected manifests of
    issue 24, each a case whose `#if` branch asks for `<prefix>a` and `#else` for `<prefix>b`."""
    def chain(index: int, condition: str, newline: str = "\n", before_else: str = "") -> Case:
        p = f"c{900 + index}_"
        text = (f'targets["{p}base"] = "__SHA256_{p}base__"{newline}#if {condition}{newline}'
                f'targets["{p}a"] = "__SHA256_{p}a__"{newline}{before_else}#else{newline}'
                f'targets["{p}b"] = "__SHA256_{p}b__"{newline}#endif{newline}\n')
        return Case(f"issue-{index}", "5.9", text, (p + "base", p + "a", p + "b"))

    def whole(index: int, body: str, footer: str = FOOTER) -> Case:
        p = f"c{900 + index}_"
        text = (HEADER.format(tools="5.9") + f'targets["{p}a"] = "__SHA256_{p}a__"\n' + body +
                footer)
        return Case(f"issue-{index}", "5.9", text, (p + "a",), whole=True)

    package = 'let package = Package(name: "differential", targets: packageTargets)\n'
    conditions = ["!(true)", "false && x", "false || false", "false /* off */",
                  "canImport(Foundation) && false", "compiler(<1.0)", "swift(<1)"]
    cases = {f"#if {c}": chain(i, c) for i, c in enumerate(conditions)}
    cases.update({
        "lone CR": chain(7, "false", "\r"),
        "form feed before #else": chain(8, "false", "\n", "\f"),
        "vertical tab before #else": chain(9, "false", "\n", "\v"),
        "#else after ;": chain(10, "false", "\n", "_ = 0; "),
        '""" on one line': whole(11, 'let s = """abc"""\n'),
        "content on the opening line": whole(12, 'let s = """abc\n  """\n'),
        "closing delimiter not on its own line": whole(13, 'let s = """\n  abc\n  x"""\n'),
        "unclosed live #if": whole(14, "#if true\n"),
        "stray #else": whole(15, "#else\n"),
        "two let package": whole(16, "", FOOTER + package.replace("differential", "again")),
    })
    return cases
