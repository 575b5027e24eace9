"""The fuzz targets, shared by the atheris runners and the crash-replay test.

Each target takes raw bytes and may only fail with our one-line InputError; anything else
(an IndexError, a hang, a wrong substitution) is a bug.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from swiftpm_guard.core.liveness import live_code_findings
from swiftpm_guard.core.manifest_shape import ManifestShape
from swiftpm_guard.core.model import CODES, NAME_RE, Rendered, Template
from swiftpm_guard.core.render import render, scan, substitute
from swiftpm_guard.core.swift_lexer import (
    Compilers,
    Kind,
    Problem,
    Verdict,
    condition_verdict,
    decide,
    kleene,
    lex,
    parse_condition,
)
from swiftpm_guard.core.zip_rules import content_findings
from swiftpm_guard.errors import InputError
from swiftpm_guard.infra.bounded import Ended
from swiftpm_guard.sources import workflow as workflow_reader
from swiftpm_guard.sources.artifacts import parse_checksums, parse_name_list
from swiftpm_guard.sources.bash_array import Rejected, read_array
from swiftpm_guard.sources.workflow import frameworks_in_workflow
from swiftpm_guard.sources.zip_archive import FullCheck, ZipProblem, read_zip_contents


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def checksums(data: bytes) -> None:
    text = _text(data)
    for parse in (parse_checksums, parse_name_list):
        try:
            parse(text, file="fuzz")
        except InputError as error:
            assert "\n" not in str(error), repr(error)


def template(data: bytes) -> None:
    text = _text(data)
    # Substituting nothing must give back every byte: no partial or phantom replacements.
    assert substitute(text, "__VERSION__", {}) == text
    tokens = list(scan(text))
    names = {t.name: "0" * 64 for t in tokens if t.kind == "checksum"}
    filled = substitute(text, "1.0.0", names)
    assert not [t for t in scan(filled) if t.kind == "checksum"], "a placeholder survived"
    shape = ManifestShape(text)
    for token in tokens:
        shape.role_at(token.start)
    rendered = render(Template(path="fuzz", text=text, flavour="placeholder"), "1.0.0", {})
    # The lexer's spans cover the text exactly, in order; liveness never raises.
    lexed = lex(text)
    position = 0
    for span in lexed.spans:
        assert span.start == position < span.end, (span, position)
        position = span.end
    assert position == len(text)
    live_code_findings(rendered, {p.name: f"__SHA256_{p.name}__" for p in rendered.placeholders})
    assert isinstance(rendered, Rendered)


@contextlib.contextmanager
def _bash_in_this_process() -> Iterator[None]:
    """The workflow reader parses bash in a forked child, whose coverage the fuzzer cannot
    see: for the length of one input, run the same function here instead."""
    bounded = workflow_reader.run_bounded
    workflow_reader.run_bounded = lambda function, *args, **_caps: Ended("ok", function(*args))
    try:
        yield
    finally:
        workflow_reader.run_bounded = bounded


def workflow(data: bytes) -> None:
    text = _text(data)
    try:
        with _bash_in_this_process():
            names = frameworks_in_workflow(text, "build", "FRAMEWORKS", file="fuzz")
    except InputError as error:
        assert "\n" not in str(error), repr(error)
        return
    lines = text.count("\n") + 1
    for declared in names:
        line = declared.origin.line
        assert line is not None and 1 <= line <= lines, (declared, lines)


def bash_array(data: bytes) -> None:
    """The bash-array reader on any script: literal names in order, or one-line reasons."""
    script = _text(data).encode("utf-8")
    result = read_array(script, "FRAMEWORKS")
    if result is None:
        return
    if isinstance(result, Rejected):
        assert "\n" not in result.message, result
        assert 0 <= result.offset <= len(script), result
        return
    previous = -1
    for element in result:
        assert NAME_RE.fullmatch(element.word), element
        assert previous < element.offset < len(script), (element, previous)
        previous = element.offset


def zip_reader(data: bytes) -> None:
    """The zip reader on any bytes (`read_zip_contents`, the full check included) and the zip
    rules: contents and findings, or a one-line ZipProblem, never a zlib, struct or zipfile
    error; nothing decompressed past an entry's declared size."""
    fd = os.memfd_create("fuzz.zip")
    try:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
        with os.fdopen(os.dup(fd), "rb") as stream:
            try:
                contents = read_zip_contents(stream, full=FullCheck(max_bytes=1 << 24,
                                                                    seconds=5))
            except ZipProblem as error:
                assert "\n" not in str(error), repr(error)
                return
    finally:
        os.close(fd)
    assert len(contents.entries) <= len(data) // 46 + 1
    for value in contents.metadata.values():
        assert len(value) <= 1 << 20
    for damage in contents.damaged:
        assert "\n" not in damage.why, damage
    for finding in content_findings(contents, "fuzz.zip", "fuzz"):
        assert finding.code in CODES, finding


def swift_condition(data: bytes) -> None:
    """The `#if` evaluator on any condition text: a Verdict or a Problem inside the text, the
    same every time; what three-valued logic decides, the exact search agrees with."""
    text = _text(data)
    lexed = lex(text)
    parsed = parse_condition(lexed, 0)
    for tools in (None, (5, 9), (6,)):
        verdict = condition_verdict(text, tools)
        assert isinstance(verdict, (Verdict, Problem)), verdict
        if isinstance(verdict, Problem):
            assert 0 <= verdict.start <= len(text), verdict
            assert "\n" not in verdict.detail, verdict
        if isinstance(parsed, Problem):
            continue
        compilers = Compilers.for_tools(tools)
        quick = kleene(parsed[0], compilers)
        assert not quick.decided or quick is decide(parsed[0], compilers), (text, tools)
        assert parsed[1] <= len(text)


def swift_strings(data: bytes) -> None:
    """The lexer on any text: spans cover it exactly; a whole one-line literal's value is its
    text between the delimiters; `#if` branches nest inside the text; nothing raises."""
    text = _text(data)
    lexed = lex(text)
    position = 0
    for span in lexed.spans:
        assert span.start == position < span.end, (span, position)
        position = span.end
        value = lexed.literal_at(span.start) if span.kind is Kind.STRING else None
        if value is not None:
            assert value in text[span.start:span.end]
    assert position == len(text)
    for problem in lexed.problems:
        assert 0 <= problem.start <= len(text) and "\n" not in problem.detail, problem
    for chain in lexed.inactive.chains:
        for branch in chain.branches:
            assert chain.start <= branch.directive <= branch.body_start <= branch.body_end
            assert branch.body_end <= len(text)


TARGETS = {"checksums": checksums, "template": template, "workflow": workflow,
           "bash_array": bash_array, "zip_reader": zip_reader,
           "swift_condition": swift_condition, "swift_strings": swift_strings}
