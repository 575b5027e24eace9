"""Lines are split at "\\n" only, in every parser (issue 13).

`str.splitlines` also breaks at "\\r", "\\v", "\\f", "\\x1c"-"\\x1e", "\\x85", U+2028 and U+2029:
a form feed inside a checksums comment made the rest of the comment a data line, at the wrong
line number. Each parser is fed text where those characters sit inside comments and data, and
every line number must be the "\\n" line, as git and GitHub's annotations count it.
"""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from swiftpm_guard.core.lines import LineIndex, split_lines
from swiftpm_guard.core.model import Rendered, Template
from swiftpm_guard.core.static_gate import needs_swiftpm
from swiftpm_guard.sources.artifacts import parse_checksums, parse_name_list
from swiftpm_guard.sources.workflow import frameworks_in_workflow

BREAKS = "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
NAME = st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=10)
HEX = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
COMMENT = st.text(alphabet=BREAKS + "ab x", max_size=20)


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.tuples(NAME, HEX, COMMENT), min_size=1, max_size=8))
def test_checksums_comments_with_other_breaks_stay_comments(rows):
    text = "".join(f"# {comment} {name} {sha}\n{name} {sha}\n" for name, sha, comment in rows)
    parsed = parse_checksums(text, file="c")
    assert [(a.name, a.sha256, a.origin.line) for a in parsed] == [
        (name, sha, 2 * i + 2) for i, (name, sha, _c) in enumerate(rows)]


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.tuples(NAME, COMMENT), min_size=1, max_size=8))
def test_name_list_comments_with_other_breaks_stay_comments(rows):
    text = "".join(f"{name}  # {comment} not_a_name\n" for name, comment in rows)
    parsed = parse_name_list(text, file="l")
    assert [(d.name, d.origin.line) for d in parsed] == [
        (name, i + 1) for i, (name, _c) in enumerate(rows)]


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=BREAKS + "\nab", max_size=60), data=st.data())
def test_template_lines_are_newline_lines(text, data):
    offset = data.draw(st.integers(0, len(text)))
    assert LineIndex(text).line_of(offset) == text.count("\n", 0, offset) + 1
    assert split_lines(text) == (text[:-1] if text.endswith("\n") else text).split("\n") \
        if text else split_lines(text) == []


@settings(max_examples=100, deadline=None)
@given(before=st.text(alphabet=BREAKS + "ab \n", max_size=30))
def test_the_static_gate_names_the_newline_line(before):
    text = (f"// {before.replace(chr(10), chr(10) + '// ')}\nlet package = Package(\n"
            '_ = Package(name: "decoy")\n')
    template = Template(path="T", text=text, flavour="placeholder")
    finding = needs_swiftpm(Rendered(template, text, (), True), accept_static=True)
    assert finding.line == text.count("\n", 0, text.index("_ = Package")) + 1


@settings(max_examples=100, deadline=None)
@given(breaks=st.lists(st.sampled_from(["\u2028", "\u2029"]), max_size=3),
       names=st.lists(NAME, min_size=1, max_size=5, unique=True))
def test_workflow_lines_are_newline_lines(breaks, names):
    # YAML forbids the C0 breaks and counts U+2028/U+2029 as its own line breaks; an indented
    # one inside a literal block stays in the script. Reported lines are still "\n" lines.
    comment = "".join(f"a{b}          " for b in breaks)
    body = "\n".join(f"            {n}" for n in names)
    text = ("jobs:\n  build:\n    steps:\n      - run: |\n"
            f"          # {comment} FRAMEWORKS=( decoy )\n          FRAMEWORKS=(\n{body}\n"
            "          )\n")
    found = frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")
    rows = text.split("\n")
    assert [d.name for d in found] == names
    for declared in found:
        assert rows[declared.origin.line - 1].strip() == declared.name
