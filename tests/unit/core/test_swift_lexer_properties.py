"""Properties of the Swift lexer and the `#if` evaluator (hypothesis).

The lexer's spans cover any text exactly, in order, and it never raises; the evaluator agrees
with a brute-force reference that tries every host assignment and a concrete compiler from each
range the formula's versions tell apart, on formulas rendered into Swift text with random
spacing, comments and parentheses.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from swiftpm_guard.core.swift_lexer import (
    Compilers,
    Problem,
    Verdict,
    condition_verdict,
    kleene,
    lex,
    parse_condition,
)

PIECES = st.sampled_from([
    "a", " ", "\n", "\r", "\r\n", "\t", "\f", "\v", "#", "##", '"', '"""', "\\", "\\(", ")", "(",
    "/", "/*", "*/", "//", "#if ", "#if false", "#elseif os(Linux)", "#else", "#endif", ";",
    "{", "}", "u{41}", "\\u{", "#/", "/#", "&&", "||", "!", "swift(>=5.9)", "`", "$x", "\x00",
    "\u2028", "é",
])
TEXTS = st.lists(PIECES, max_size=40).map("".join)


@settings(max_examples=600, deadline=None)
@given(text=TEXTS)
def test_spans_cover_the_text_in_order_and_problems_point_into_it(text):
    lexed = lex(text)
    position = 0
    for span in lexed.spans:
        assert span.start == position < span.end, (span, position)
        position = span.end
    assert position == len(text)
    assert all(0 <= p.start <= len(text) for p in lexed.problems)
    for chain in lexed.inactive.chains:
        assert chain.start <= chain.end <= len(text)
        for branch in chain.branches:
            assert branch.directive <= branch.body_start <= branch.body_end <= len(text)


@settings(max_examples=300, deadline=None)
@given(text=TEXTS)
def test_dead_code_is_never_claimed_without_a_false_branch(text):
    inactive = lex(text).inactive
    dead = [o for o in range(len(text)) if inactive.dead_at(o)]
    branches = [b for c in inactive.chains for b in c.branches if b.verdict is Verdict.FALSE]
    assert all(any(b.directive <= o < b.body_end for b in branches) for o in dead)


# -- the evaluator against brute force ------------------------------------------------------


@dataclass(frozen=True)
class Leaf:
    text: str
    kind: str  # "bool", "flag", "host", "feature", "compiler", "swift"
    value: object = None  # the bool, or (at_least, version)


@dataclass(frozen=True)
class Node:
    op: str  # "!", "&&", "||"
    operands: tuple[object, ...]


VERSIONS = ["1", "5.9", "5.10", "5.11", "6", "6.0.3", "6.1", "7", "8"]
# A concrete compiler from every range the versions above tell apart (5.9 up to 5.11, 6 to 7).
COMPILERS = [(5, 9), (5, 9, 5), (5, 10), (5, 10, 5), (6,), (6, 0, 3), (6, 0, 5), (6, 1), (6, 5)]


def parse_version(text: str) -> tuple[int, ...]:
    parts = [int(p) for p in text.split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


LEAVES = st.one_of(
    st.sampled_from([Leaf("true", "bool", True), Leaf("false", "bool", False),
                     Leaf("DEBUG", "flag"), Leaf("never", "flag")]),
    st.sampled_from(["os(Linux)", "os(macOS)", "arch(arm64)", "canImport(UIKit)"])
    .map(lambda t: Leaf(t, "host")),
    st.sampled_from(["hasFeature(Embedded)", "$Macros"]).map(lambda t: Leaf(t, "feature")),
    st.tuples(st.sampled_from(["compiler", "swift"]), st.booleans(), st.sampled_from(VERSIONS))
    .map(lambda t: Leaf(f"{t[0]}({'>=' if t[1] else '<'}{t[2]})", t[0],
                        (t[1], parse_version(t[2])))),
)
FORMULAS = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        inner.map(lambda f: Node("!", (f,))),
        st.tuples(st.sampled_from(["&&", "||"]), st.lists(inner, min_size=2, max_size=3))
        .map(lambda t: Node(t[0], tuple(t[1]))),
    ),
    max_leaves=8,
)


@st.composite
def rendered(draw, formula):
    """The formula as Swift text: parentheses where precedence needs them (and sometimes where
    it does not), spaces or none around binary operators, comments between tokens."""
    if isinstance(formula, Leaf):
        return formula.text
    if formula.op == "!":
        return "!(" + draw(rendered(formula.operands[0])) + ")"
    parts = []
    for operand in formula.operands:
        text = draw(rendered(operand))
        needs = isinstance(operand, Node) and operand.op in ("&&", "||")
        if needs or draw(st.booleans()):
            text = "(" + draw(st.sampled_from(["", " "])) + text + ")"
        parts.append(text)
    glue = draw(st.sampled_from([f" {formula.op} ", f" /* c */ {formula.op} ",
                                 f" {formula.op} /* d */ ", formula.op]))
    if glue == formula.op and any(p.startswith("!") for p in parts):
        glue = f" {formula.op} "  # `a&&!b` is one operator `&&!`: Swift rejects it
    return glue.join(parts)


def value(formula, compiler, tools_mode, free) -> bool:
    if isinstance(formula, Node):
        values = [value(f, compiler, tools_mode, free) for f in formula.operands]
        return {"!": lambda: not values[0], "&&": lambda: all(values),
                "||": lambda: any(values)}[formula.op]()
    if formula.kind == "bool":
        return bool(formula.value)
    if formula.kind == "flag":
        return False
    if formula.kind in ("host", "feature"):
        return free[formula.text]
    at_least, version = formula.value
    compared = compiler
    if formula.kind == "swift" and tools_mode == 5 and compiler >= (6,):
        compared = (5, 10)
    return (compared >= version) == at_least


def leaves(formula):
    if isinstance(formula, Leaf):
        yield formula
    else:
        for operand in formula.operands:
            yield from leaves(operand)


def reference(formula, tools) -> Verdict:
    mode = 6 if tools >= (6,) else 5
    compilers = [c for c in COMPILERS if c >= tools]
    hosts = sorted({leaf.text for leaf in leaves(formula) if leaf.kind == "host"})
    features = sorted({leaf.text for leaf in leaves(formula) if leaf.kind == "feature"})
    seen = set()
    host_only = True
    for host in itertools.product((False, True), repeat=len(hosts)):
        values = {value(formula, compiler, mode, dict(zip(hosts + features, host + rest, strict=True)))
                  for compiler in compilers
                  for rest in itertools.product((False, True), repeat=len(features))}
        host_only = host_only and len(values) == 1
        seen |= values
    if len(seen) == 1:
        return Verdict.TRUE if seen.pop() else Verdict.FALSE
    return Verdict.HOST if host_only else Verdict.UNDECIDABLE


@settings(max_examples=800, deadline=None)
@given(data=st.data(), formula=FORMULAS, tools=st.sampled_from([(5, 9), (6,)]))
def test_the_evaluator_agrees_with_brute_force(data, formula, tools):
    text = data.draw(rendered(formula))
    verdict = condition_verdict(text, tools)
    assert not isinstance(verdict, Problem), (text, verdict)
    assert verdict is reference(formula, tools), text


@settings(max_examples=400, deadline=None)
@given(data=st.data(), formula=FORMULAS, tools=st.sampled_from([(5, 9), (6,)]))
def test_three_valued_logic_never_decides_what_brute_force_does_not(data, formula, tools):
    text = data.draw(rendered(formula))
    parsed = parse_condition(lex(text), 0)
    assert not isinstance(parsed, Problem), text
    quick = kleene(parsed[0], Compilers.for_tools(tools))
    exact = reference(formula, tools)
    assert not quick.decided or quick is exact, text
