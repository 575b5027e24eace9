"""report.markdown: code spans, escaped text and table cells render to exactly the value.

Rendered with markdown-it-py (CommonMark + GFM tables, as GitHub renders check runs, job
summaries and files), and read back as text: the assertions are on what a person sees.
"""

from hypothesis import example, given
from hypothesis import strategies as st

from support.markdown import inline, rendered_text, table_rows
from swiftpm_guard.report.markdown import cell, code, fence, html, message, text

#: One-line values: printable ASCII (every markup character) and some letters beyond it.
VALUES = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E) | st.sampled_from("éß✓…"),
    min_size=1,
    max_size=40,
)
HOSTILE = ["__SHA256_kernels_torchao__", "<name>", "*bold*", "a`b", "``", "`x`", "a|b",
           "\\|", "x\\", "&amp;", "[l](u)", "~~s~~", "$x$", "@user", " lead", "trail ",
           "  both  ", "#", "<details>", "1. item", "- item", "> q"]


@given(VALUES)
@example("__SHA256_kernels_torchao__")
@example("`")
@example(" ` ")
@example("  ")
def test_code_span_renders_the_value(value):
    assert inline(f"x {code(value)} y") == f"x {value} y"


@given(VALUES)
@example("__SHA256_kernels_torchao__")
@example("<name>")
@example("a\\")
def test_escaped_text_renders_the_value(value):
    assert inline(f"x {text(value)} y") == f"x {value} y"


@given(VALUES, VALUES)
@example("a|b", "\\|")
@example("`|`", "x\\")
def test_cells_keep_pipes_and_backticks_inside_one_cell(first, second):
    markdown = "\n".join([
        "| a | b | c |", "|---|---|---|",
        f"| {cell(code(first))} | {cell(text(second))} | {cell(message(repr(first)))} |",
    ])
    rows = table_rows(markdown)
    # GFM trims a cell's text; a code span keeps its value's spaces.
    assert rows[1] == [first, second.strip(" "), repr(first)]


def test_every_hostile_value_survives_each_function():
    for value in HOSTILE:
        assert inline(f"x {code(value)} y") == f"x {value} y", value
        assert inline(f"x {text(value)} y") == f"x {value} y", value
        assert table_rows(f"| h |\n|---|\n| {cell(code(value))} |")[1] == [value], value


def test_message_quotes_names_as_code_and_keeps_every_character():
    raw = ("the template asks for '__SHA256_kernels_torchao__' but the template's "
           "<name> is *not* `here` | 'a_b'")
    markdown = message(raw)
    assert "`__SHA256_kernels_torchao__`" in markdown and "`a_b`" in markdown
    assert inline(f"x {markdown} y") == f"x {raw} y"


@given(VALUES)
def test_message_renders_any_value_literally(value):
    raw = f"'{value}' and 'x_y' in it's place"
    assert inline(f"x {message(raw)} y") == f"x {raw} y"


def test_fence_cannot_be_closed_by_the_body():
    body = "let a = 1\n```\nnot the end\n````"
    rendered = rendered_text("\n".join(["before", *fence(body, "swift"), "after"]))
    assert "let a = 1\n```\nnot the end\n````" in rendered and rendered.rstrip().endswith("after")


def test_html_escapes_for_summary_lines():
    assert rendered_text(f"<details><summary>{html('<b>x</b> & y')}</summary>\n\nz\n\n"
                         "</details>\n").startswith("\n<b>x</b> & y")
