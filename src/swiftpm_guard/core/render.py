"""Turn a template plus the built set into manifest text (pure: text in, text out).

`__VERSION__` and `__SHA256_<name>__` are found as whole tokens (a maximal run of identifier
characters, so `__SHA256_a__` never matches inside `__SHA256_a__b__`), near-misses with them.
Both flavours report which names the template asked for, with the line that asked, so the
checks treat a Jinja template exactly like a placeholder one. A placeholder asks wherever it
stands, a comment included: whether it is live code is SwiftPM's to say (core.static_gate)."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from swiftpm_guard.core.lines import LineIndex
from swiftpm_guard.core.model import (
    Artifact,
    Finding,
    Location,
    Placeholder,
    Rendered,
    Severity,
    Template,
)
from swiftpm_guard.errors import InputError

if TYPE_CHECKING:
    from jinja2 import Template as JinjaTemplate


VERSION_TOKEN = "__VERSION__"
#: A placeholder left in the text that would be published.
LEFT = "placeholder-left"
_WORD = re.compile(r"[A-Za-z0-9_]+")
_CHECKSUM = re.compile(r"__SHA256_([A-Za-z0-9_]+)__")
#: A placeholder anywhere in a word: what must never reach a published manifest.
_LEFT = re.compile(r"__(?:VERSION|SHA256_([A-Za-z0-9_]+?))__")
# Words that look like they were meant to be a placeholder: they mention SHA256 or VERSION
# in any case and carry the underscores of the placeholder syntax at either end.
_SUSPECT = re.compile(r"(?i)sha256|version")


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "version", "checksum" or "malformed"
    text: str
    start: int
    end: int
    name: str = ""  # the binary target name for "checksum"


def scan(text: str) -> Iterator[Token]:
    """Yield every placeholder token and every near-miss, in text order."""
    for word in _WORD.finditer(text):
        value = word.group()
        if "_" not in value or not _SUSPECT.search(value):
            continue
        if value == VERSION_TOKEN:
            yield Token("version", value, word.start(), word.end())
            continue
        checksum = _CHECKSUM.fullmatch(value)
        if checksum:
            yield Token("checksum", value, word.start(), word.end(), checksum.group(1))
        elif value.startswith("_") or value.endswith("_"):
            yield Token("malformed", value, word.start(), word.end())


def substitute(text: str, version: str, checksums: dict[str, str]) -> str:
    """Replace whole placeholder tokens; unknown names stay as they are (byte-exact elsewhere)."""

    def replace(word: re.Match[str]) -> str:
        value = word.group()
        if value == VERSION_TOKEN:
            return version
        checksum = _CHECKSUM.fullmatch(value)
        if checksum and checksum.group(1) in checksums:
            return checksums[checksum.group(1)]
        return value

    return _WORD.sub(replace, text)


def manifest_line(rendered: Rendered, line: int | None) -> tuple[int | None, str]:
    """A rendered-manifest line as a template line, or a note when they differ (Jinja)."""
    if line is None:
        return None, ""
    if rendered.template.flavour == "placeholder":
        return line, ""  # whole-token substitution never adds or removes a line
    return None, f" (line {line} of the rendered manifest)"

def render(template: Template, version: str, built: Mapping[str, Artifact]) -> Rendered:
    """Render `template` for `version` with the checksums in `built`; never raises on gaps.
    Whatever placeholder is left in the text is a finding (`leftover_findings`)."""
    if template.flavour == "jinja":
        rendered = _render_jinja(template, version, built)
    else:
        rendered = _render_placeholders(template, version, built)
    left = leftover_findings(rendered, built)
    return replace(rendered, findings=rendered.findings + tuple(left)) if left else rendered


def leftover_findings(rendered: Rendered, built: Mapping[str, Artifact]) -> list[Finding]:
    """`placeholder-left`, once per word of the rendered text holding a placeholder, unless
    another finding already names it: a name asked but not built (`unfilled-placeholder`), a
    name declared without a checksum (kept on purpose), a word the render flagged."""
    asked = {p.name for p in rendered.placeholders}
    flagged = {f.subject for f in rendered.findings}
    lines = LineIndex(rendered.text)
    findings: list[Finding] = []
    for word in _WORD.finditer(rendered.text):
        text = word.group()
        inner = _LEFT.search(text) if "__" in text else None
        if inner is None or text in flagged:
            continue
        whole = _CHECKSUM.fullmatch(text)
        name = whole.group(1) if whole else inner.group(1)
        artifact = built.get(name) if name else None
        if name and ((artifact is None and name in asked) or
                     (artifact is not None and artifact.sha256 is None)):
            continue
        flagged.add(text)
        line, note = manifest_line(rendered, lines.line_of(word.start()))
        findings.append(Finding(
            code=LEFT, severity=Severity.ERROR, subject=text, file=rendered.template.path,
            line=line,
            message=f"'{text}' is left in the rendered manifest{note} and would be published "
            "as it is" + (" (a Jinja template fills {{ version }} and {{ checksums['<name>'] }}, "
                          "not the placeholder text)" if rendered.template.flavour == "jinja"
                          else ""),
        ))
    return findings


def _render_placeholders(template: Template, version: str,
                         built: Mapping[str, Artifact]) -> Rendered:
    text = template.text
    lines = LineIndex(text)
    placeholders: list[Placeholder] = []
    findings: list[Finding] = []
    version_used = False
    for token in scan(text):
        where = Location(template.path, lines.line_of(token.start))
        if token.kind == "version":
            version_used = True
        elif token.kind == "checksum":
            placeholders.append(Placeholder(token.name, where))
        else:
            findings.append(_malformed(token.text, where))
    checksums = {name: a.sha256 for name, a in built.items() if a.sha256 is not None}
    return Rendered(template=template, text=substitute(text, version, checksums),
                    placeholders=tuple(placeholders), version_used=version_used,
                    findings=tuple(findings))


def _malformed(word: str, where: Location) -> Finding:
    return Finding(
        code="malformed-placeholder",
        severity=Severity.ERROR,
        subject=word,
        message=(
            f"'{word}' looks like a placeholder but is neither __VERSION__ nor "
            "__SHA256_<name>__; it would be left in the manifest as is"
        ),
        file=where.file,
        line=where.line,
    )


class _Recorder(Mapping[str, Any]):
    """A read-only mapping that remembers which keys a template read, and from which line.

    Iterating (`items()`, `keys()`, a `for` loop) reads every key. A missing key is recorded
    too and yields the placeholder text, so the draft shows exactly what is unfilled.
    """

    def __init__(self, values: Mapping[str, Any], missing: Callable[[str], Any],
                 on_read: Callable[[str], None]) -> None:
        self._values = values
        self._missing = missing
        self._on_read = on_read

    def __getitem__(self, key: str) -> Any:
        self._on_read(key)
        if key in self._values:
            return self._values[key]
        return self._missing(str(key))

    def __iter__(self) -> Iterator[str]:
        for key in self._values:
            self._on_read(key)
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key: object) -> bool:
        return key in self._values


def _template_line(compiled: JinjaTemplate | None) -> int | None:
    """The template line being rendered, found from the compiled template's frame."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename == "<template>" and compiled is not None:
            return compiled.get_corresponding_lineno(frame.f_lineno)
        frame = frame.f_back  # type: ignore[assignment]
    return None


def _render_jinja(template: Template, version: str, built: Mapping[str, Artifact]) -> Rendered:
    from jinja2 import StrictUndefined, TemplateError
    from jinja2.sandbox import SandboxedEnvironment

    env = SandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=True,
                               autoescape=False)
    try:
        compiled = env.from_string(template.text)
    except TemplateError as error:
        raise InputError(f"invalid Jinja2 template: {error}", file=template.path,
                         line=getattr(error, "lineno", None)) from None
    reads: dict[str, int | None] = {}

    def on_read(key: str) -> None:
        reads.setdefault(str(key), _template_line(compiled))

    def token(name: str) -> str:
        return f"__SHA256_{name}__"

    def entry(name: str, checksum: str, file_name: str | None = None) -> dict[str, str]:
        return {"name": name, "checksum": checksum, "sha256": checksum,
                "file": file_name or f"{name}-{version}.zip"}

    checksums = {n: a.sha256 if a.sha256 is not None else token(n) for n, a in built.items()}
    artifacts = {n: entry(n, c, built[n].file_name) for n, c in checksums.items()}
    context = {
        "version": version,
        "checksums": _Recorder(checksums, token, on_read),
        "artifacts": _Recorder(artifacts, lambda n: entry(n, token(n)), on_read),
    }
    try:
        text = _bounded_render(compiled, context, template.path)
    except (InputError, MemoryError):
        raise
    except Exception as error:
        # Whatever a template's code raises is the template's fault, not ours: filters and
        # globals raise what they like (`truncate(0)` an AssertionError, `cycler()` a
        # RuntimeError). Name it and the template line; never let it escape as a crash.
        raise InputError(f"Jinja2 template failed: {_describe(error)}",
                         file=template.path, line=_error_line(error)) from None
    placeholders = tuple(Placeholder(name, Location(template.path, line))
                         for name, line in reads.items())
    return Rendered(template=template, text=text, placeholders=placeholders,
                    version_used="version" in template.text)


#: A manifest is a few kilobytes; a template that renders megabytes is broken or hostile.
MAX_RENDERED_CHARS = 16 * 1024 * 1024


def _bounded_render(compiled: JinjaTemplate, context: dict[str, Any], path: str) -> str:
    """Render chunk by chunk so a runaway loop stops at the size cap, not at memory."""
    chunks: list[str] = []
    size = 0
    for chunk in compiled.generate(context):
        size += len(chunk)
        if size > MAX_RENDERED_CHARS:
            raise InputError(f"rendered text exceeds {MAX_RENDERED_CHARS} characters; stopped",
                             file=path)
        chunks.append(chunk)
    return "".join(chunks)


def _describe(error: BaseException) -> str:
    text = str(error).strip()
    name = type(error).__name__
    return f"{name}: {text}" if text else name


def _error_line(error: BaseException) -> int | None:
    import traceback  # only for a failing Jinja template; it imports linecache and textwrap

    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == "<template>"]
    return frames[-1].lineno if frames else None
