"""The declaration scanner finds what its old pattern found, without rescanning lines.

`core/manifest_shape.py` used `let name: Type =` as one pattern, `(?::[^=\\n]*)?=`, which read
the rest of the line again from every `let`: one line of 4,000 `let a: ` took 3.8 s. The
reference below is that pattern and that loop, kept here to compare on generated texts.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from swiftpm_guard.core.manifest_shape import Declaration, _balanced_end, declarations

OLD_DECLARATION = re.compile(r"\b(?:let|var)\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?::[^=\n]*)?=")


def reference(text: str) -> list[Declaration]:
    found: list[Declaration] = []
    for match in OLD_DECLARATION.finditer(text):
        if found and match.start() < found[-1].end:
            continue
        line_end = text.find("\n", match.end())
        line_end = len(text) if line_end < 0 else line_end
        opener = min((pos for pos in (text.find(c, match.end(), line_end) for c in "([{")
                      if pos >= 0), default=-1)
        if opener < 0:
            continue
        found.append(Declaration(match.group(1), match.start(), _balanced_end(text, opener)))
    return found


def test_typed_and_untyped_declarations():
    text = ('let products: [String: [String: Any]] = deliverables([\n  "a": 1,\n])\n'
            "var targets = [1, 2]\nlet x: Int\n= 3\nlet y = 1\nlet z: T = f(\n)\n")
    assert [(d.name, text[d.start:d.end][-2:]) for d in declarations(text)] == [
        ("products", "])"), ("targets", "2]"), ("z", "\n)")]
    assert declarations(text) == reference(text)


def test_a_keyword_used_as_the_name_does_not_hide_the_declaration_after_it():
    # Found by the property below: `let let x = y(` declares x for the old pattern too.
    assert declarations("let let x = y(") == reference("let let x = y(") == [
        Declaration("x", 4, 14)]


PIECES = st.sampled_from(["let ", "var ", "a", "b1", ":", " ", "=", "==", "\n", "(", ")", "[",
                          "]", "{", "}", '"', "//", "/*", "*/", "[String: Int]", "x = y"])


@settings(max_examples=500, deadline=None)
@given(text=st.lists(PIECES, max_size=40).map("".join))
def test_the_scanner_agrees_with_the_old_pattern(text):
    assert declarations(text) == reference(text)
