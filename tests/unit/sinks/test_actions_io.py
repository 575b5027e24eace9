from __future__ import annotations

import itertools

from support.actions_env import parse_outputs
from swiftpm_guard.core.model import Annotation
from swiftpm_guard.sinks import actions_io
from swiftpm_guard.workflow_commands import neutralise


def _annotation(i: int, level: str = "failure", path: str = "Package.swift.template"):
    return Annotation(
        path=path, line=i + 1, level=level, title=f"code: name_{i}", message=f"message {i}"
    )


def test_data_and_properties_are_escaped_as_the_runner_unescapes_them():
    assert actions_io.escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert actions_io.escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    line = actions_io.command(
        "error", "two\nlines", {"file": "dir,x/a:b.swift", "line": 3, "title": "t: x"}
    )
    assert line == "::error file=dir%2Cx/a%3Ab.swift,line=3,title=t%3A x::two%0Alines"
    assert actions_io.command("notice", "plain") == "::notice::plain"


def test_a_message_cannot_smuggle_a_second_command():
    line = actions_io.command("error", "x\n::add-mask::oops\n::set-output name=a::b")
    # One line: the runner only reads commands at the start of a line.
    assert "\n" not in line and "\r" not in line
    assert line == "::error::x%0A::add-mask::oops%0A::set-output name=a::b"


def test_up_to_ten_per_level_are_shown_one_by_one():
    lines = actions_io.annotation_commands([_annotation(i) for i in range(10)])
    assert len(lines) == 10 and all(line.startswith("::error file=") for line in lines)


def test_past_ten_per_level_the_rest_are_aggregated_into_one():
    annotations = [_annotation(i) for i in range(25)] + [
        _annotation(i, "warning") for i in range(12)
    ]
    lines = actions_io.annotation_commands(annotations)
    errors = [line for line in lines if line.startswith("::error")]
    warnings = [line for line in lines if line.startswith("::warning")]
    assert len(errors) == 10 and len(warnings) == 10
    assert errors[-1].startswith("::error title=swiftpm-guard%3A 16 more errors")
    assert "Package.swift.template:25: code: name_24: message 24" in errors[-1].replace(
        "%0A", "\n"
    ).replace("%3A", ":")
    assert warnings[-1].startswith("::warning title=swiftpm-guard%3A 3 more warnings")


def test_single_line_outputs_are_name_value_and_multi_line_use_a_heredoc():
    delimiters = iter(["ghadelimiter_1", "ghadelimiter_2"])
    text = actions_io.format_outputs(
        {"a": "1", "b": "x\ny", "c": ""}, delimiter=lambda: next(delimiters)
    )
    assert text == "a=1\nb<<ghadelimiter_1\nx\ny\nghadelimiter_1\nc=\n"
    assert parse_outputs(text) == {"a": "1", "b": "x\ny", "c": ""}


def test_a_value_holding_the_delimiter_gets_another_one():
    delimiters = iter(["EOF", "EOF", "ghadelimiter_9"])
    text = actions_io.format_outputs(
        {"report": "line\nEOF\nconsistent=true"}, delimiter=lambda: next(delimiters)
    )
    assert parse_outputs(text) == {"report": "line\nEOF\nconsistent=true"}


def test_real_delimiters_are_random():
    made = [actions_io.format_outputs({"x": "a\nb"}).split("\n")[0] for _ in range(3)]
    assert len(set(made)) == 3 and all(m.startswith("x<<ghadelimiter_") for m in made)


def test_outputs_append_to_the_runners_file(tmp_path):
    path = tmp_path / "output"
    path.write_text("earlier=1\n")
    actions_io.write_outputs(path, {"consistent": "true"})
    assert parse_outputs(path.read_text()) == {"earlier": "1", "consistent": "true"}


def test_the_summary_stays_below_one_mebibyte(tmp_path):
    path = tmp_path / "summary"
    path.write_text("x" * 1000 + "\n")
    big = "".join(f"| row {i} | {'y' * 90} |\n" for i in range(20_000))
    assert actions_io.append_summary(path, big) is True
    data = path.read_bytes()
    assert len(data) < 1024 * 1024
    assert data.startswith(b"x" * 1000)
    assert "cut: the job summary must stay below 1 MiB" in data.decode()
    assert data.decode().count("| row ") < 20_000


def test_a_small_summary_is_appended_whole(tmp_path):
    path = tmp_path / "summary"
    assert actions_io.append_summary(path, "### ok\n") is False
    assert path.read_text() == "### ok\n"


def test_every_line_of_a_secret_is_masked():
    assert actions_io.mask("ghs_abc") == ["::add-mask::ghs_abc"]
    assert actions_io.mask("line1\nline2\n") == ["::add-mask::line1", "::add-mask::line2"]


def test_plain_log_lines_cannot_become_commands():
    lines = [neutralise(t) for t in ["a.swift:1: error: x", "evil\n::error::fake", "::warning::x"]]
    assert lines[0] == "a.swift:1: error: x"
    assert all("\n" not in line and not line.startswith("::") for line in lines)


def test_levels_map_to_the_runners_words():
    lines = actions_io.annotation_commands(
        list(itertools.chain([_annotation(0, "failure")], [_annotation(1, "warning")]))
    )
    assert lines[0].startswith("::error ") and lines[1].startswith("::warning ")
