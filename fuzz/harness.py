"""The three fuzz targets, shared by the atheris runners and the crash-replay test.

Each target takes raw bytes and may only fail with our one-line InputError; anything else
(an IndexError, a hang, a wrong substitution) is a bug.
"""

from __future__ import annotations

from swiftpm_guard.core.manifest_shape import ManifestShape
from swiftpm_guard.core.model import Template
from swiftpm_guard.core.placeholders import scan, substitute
from swiftpm_guard.core.render import render
from swiftpm_guard.errors import InputError
from swiftpm_guard.sources.artifacts import parse_checksums, parse_name_list
from swiftpm_guard.sources.workflow import frameworks_in_workflow


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
    render(Template(path="fuzz", text=text, flavour="placeholder"), "1.0.0", {})


def workflow(data: bytes) -> None:
    text = _text(data)
    try:
        names = frameworks_in_workflow(text, "build", "FRAMEWORKS", file="fuzz")
    except InputError as error:
        assert "\n" not in str(error), repr(error)
        return
    lines = text.count("\n") + 1
    for declared in names:
        line = declared.origin.line
        assert line is not None and 1 <= line <= lines, (declared, lines)


TARGETS = {"checksums": checksums, "template": template, "workflow": workflow}
