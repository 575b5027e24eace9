"""Property tests over the parsers: generated inputs round-trip, garbage never crashes."""

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from swiftpm_guard.core.manifest_shape import ManifestShape
from swiftpm_guard.core.render import scan, substitute
from swiftpm_guard.errors import InputError
from swiftpm_guard.sources.artifacts import parse_checksums
from swiftpm_guard.sources.workflow import frameworks_in_workflow

NAME = st.text(alphabet=string.ascii_letters + string.digits + "_", min_size=1, max_size=12)
HEX = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)


def bash_quote(name: str, style: int) -> str:
    """The same word, written the ways the reader accepts (issue 31: bare or quoted whole)."""
    return [name, f'"{name}"', f"'{name}'"][style]


@settings(max_examples=150, deadline=None)
@given(
    words=st.lists(
        st.tuples(
            NAME, st.integers(0, 2), st.sampled_from([" ", "\n  ", "\t", "\n\n  "])
        ),
        min_size=1,
        max_size=8,
    )
)
def test_bash_array_round_trips_with_lines(words):
    body = "".join(bash_quote(name, style) + sep for name, style, sep in words)
    script = f"set -e\nFRAMEWORKS=(\n  {body}\n)\necho done\n"
    indented = "\n".join("          " + line if line else "" for line in script.splitlines())
    text = f"jobs:\n  build:\n    steps:\n      - run: |\n{indented}\n"
    found = frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")
    assert [d.name for d in found] == [name for name, _style, _sep in words]
    rows = text.splitlines()
    for declared in found:
        assert declared.name[: max(1, len(declared.name) // 2)] in rows[declared.origin.line - 1]


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(st.tuples(NAME, HEX, st.booleans()), min_size=1, max_size=10),
    newline=st.sampled_from(["\n", "\r\n"]),
)
def test_checksum_lines_round_trip(rows, newline):
    lines = [f"{h}  {n}-1.0.0.zip" if sha256sum else f"{n} {h}" for n, h, sha256sum in rows]
    parsed = parse_checksums(newline.join(lines) + newline, file="c")
    assert [(a.name, a.sha256) for a in parsed] == [(n, h) for n, h, _ in rows]


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=400))
def test_workflow_garbage_is_input_error_or_result(text):
    try:
        frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")
    except InputError as error:
        assert "\n" not in str(error)


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(
        alphabet=st.sampled_from(list('_SHA256VERSIONab"[]()/*\\n letproducts=')), max_size=200
    )
)
def test_scanner_and_shape_never_crash_and_substitute_is_identity_on_nothing(text):
    tokens = list(scan(text))
    assert substitute(text, "__VERSION__", {}) == text
    shape = ManifestShape(text)
    for token in tokens:
        shape.role_at(token.start)
    assert all(text[t.start : t.end] == t.text for t in tokens)
