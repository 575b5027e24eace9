"""The framework list a workflow declares: `VAR=( … )` in a job's bash script, with lines.

We walk PyYAML's node graph (`compose`, never `load`): nodes carry their file positions, keys
like `on` stay strings, and aliases are not expanded, so an alias bomb costs nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

from swiftpm_guard.errors import InputError
from swiftpm_guard.limits import WORKFLOW_MAX_BYTES
from swiftpm_guard.model import NAME_RE, Location
from swiftpm_guard.sources.artifacts import DeclaredName
from swiftpm_guard.sources.files import read_text

_VAR_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_JOB_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


@dataclass(frozen=True, slots=True)
class WorkflowSpec:
    path: str
    job: str
    var: str

    @classmethod
    def parse(cls, spec: str) -> WorkflowSpec:
        """`WORKFLOW.yml:JOB:VAR` (the path may itself hold colons)."""
        parts = spec.rsplit(":", 2)
        if len(parts) != 3 or not all(parts):
            raise InputError(f"--frameworks-from expects WORKFLOW.yml:JOB:VAR, got {spec!r}")
        path, job, var = parts
        if not _JOB_RE.fullmatch(job):
            raise InputError(f"job id {job!r} is not a valid workflow job id")
        if not _VAR_RE.fullmatch(var):
            raise InputError(f"{var!r} is not a bash variable name")
        return cls(path, job, var)


@dataclass(frozen=True, slots=True)
class _Script:
    """A script scalar, its text and how to map its offsets back to file lines."""

    text: str
    node: yaml.ScalarNode


def read_workflow_frameworks(spec: WorkflowSpec, *, root: Path | None = None,
                             display: str | None = None) -> list[DeclaredName]:
    shown = display or spec.path
    path = (root / spec.path) if root is not None else Path(spec.path)
    text = read_text(path, display=shown, max_bytes=WORKFLOW_MAX_BYTES, what="workflow")
    return frameworks_in_workflow(text, spec.job, spec.var, file=shown)


def frameworks_in_workflow(text: str, job: str, var: str, *, file: str) -> list[DeclaredName]:
    """Pure: the entries of bash array `var` in job `job`'s scripts, each with its file line."""
    root = _compose(text, file)
    jobs = _get(root, "jobs")
    if not isinstance(jobs, yaml.MappingNode):
        raise InputError("workflow has no 'jobs' mapping", file=file)
    job_node = _get(jobs, job)
    if not isinstance(job_node, yaml.MappingNode):
        known = ", ".join(str(k.value) for k, _ in jobs.value[:20])
        raise InputError(f"workflow has no job '{job}' (jobs: {known})", file=file)
    file_lines = text.splitlines()
    names: list[DeclaredName] | None = None
    for script in _scripts(job_node):
        for op, words in _arrays(script.text, var, file, _first_line(script.node)):
            found = [DeclaredName(w, Location(file, _line(script, off, w, file_lines)))
                     for w, off in words]
            names = found if op == "=" or names is None else names + found
    if names is None:
        raise InputError(f"job '{job}' has no bash array {var}=( … ) in its run: steps or "
                         "with.script", file=file)
    if not names:
        raise InputError(f"{var}=( ) in job '{job}' is empty", file=file)
    return names


def _compose(text: str, file: str) -> yaml.Node:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        node = yaml.compose(text, Loader=loader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        line = mark.line + 1 if mark is not None else None
        raise InputError(f"invalid YAML: {error.problem}", file=file, line=line) from None
    except yaml.reader.ReaderError as error:
        line = text.count("\n", 0, error.position) + 1
        raise InputError(f"invalid YAML: character {error.character!r} is not allowed",
                         file=file, line=line) from None
    except yaml.YAMLError as error:
        raise InputError(f"invalid YAML: {error}", file=file) from None
    if not isinstance(node, yaml.MappingNode):
        raise InputError("workflow is not a YAML mapping", file=file)
    return node


def _get(node: yaml.Node | None, key: str) -> yaml.Node | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    for key_node, value in node.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            return value  # type: ignore[no-any-return]
    return None


def _scalar(node: yaml.Node | None) -> _Script | None:
    if isinstance(node, yaml.ScalarNode) and isinstance(node.value, str):
        return _Script(node.value, node)
    return None


def _scripts(job: yaml.MappingNode) -> Iterator[_Script]:
    """`with.script` of a reusable-workflow job, then every step's `run` and `with.script`."""
    candidates = [_get(_get(job, "with"), "script")]
    steps = _get(job, "steps")
    if isinstance(steps, yaml.SequenceNode):
        for step in steps.value:
            candidates += [_get(step, "run"), _get(_get(step, "with"), "script")]
    for candidate in candidates:
        script = _scalar(candidate)
        if script is not None:
            yield script


def _first_line(node: yaml.ScalarNode) -> int:
    """1-based file line of the value's first line (a block starts after its indicator)."""
    return node.start_mark.line + (2 if node.style in ("|", ">") else 1)


def _line(script: _Script, offset: int, word: str, file_lines: list[str]) -> int:
    """File line of the word at `offset` in the script value.

    A literal block (`|`) keeps lines one to one, starting the line after its indicator.
    Other styles fold lines, so we look for the word in the node's own file lines instead.
    """
    node = script.node
    value_line = script.text.count("\n", 0, offset)
    if node.style == "|":
        return _first_line(node) + value_line
    first, last = node.start_mark.line, min(node.end_mark.line, len(file_lines) - 1)
    for index in range(first + min(value_line, last - first), last + 1):
        if word in file_lines[index]:
            return index + 1
    return first + 1


def _arrays(script: str, var: str, file: str,
            base_line: int) -> Iterator[tuple[str, list[tuple[str, int]]]]:
    """Each `var=( … )` (op "=") or `var+=( … )` (op "+=") with its words and offsets."""
    pattern = re.compile(rf"(?<![A-Za-z0-9_$]){re.escape(var)}(\+?=)\(")
    for match in pattern.finditer(script):
        words = _array_words(script, match.end(), file, base_line)
        yield match.group(1), words


def _array_words(script: str, start: int, file: str, base_line: int) -> list[tuple[str, int]]:
    """Bash words up to the unquoted `)`: quotes concatenate, `#` comments, `\\` escapes."""
    words: list[tuple[str, int]] = []
    current: list[str] = []
    word_start = -1
    i = start

    def fail(message: str, at: int) -> InputError:
        return InputError(message, file=file, line=base_line + script.count("\n", 0, at))

    def flush() -> None:
        nonlocal current, word_start
        if word_start >= 0:
            word = "".join(current)
            if not NAME_RE.fullmatch(word):
                raise fail(f"array entry {word!r} is not a framework name [A-Za-z0-9_]+",
                           word_start)
            words.append((word, word_start))
        current, word_start = [], -1

    while i < len(script):
        char = script[i]
        if char == ")":
            flush()
            return words
        if char in " \t\r\n":
            flush()
            i += 1
            continue
        if char == "#" and word_start < 0:
            newline = script.find("\n", i)
            i = len(script) if newline < 0 else newline
            continue
        if word_start < 0:
            word_start = i
        if char == "\\":
            if script.startswith("\n", i + 1):  # line continuation
                if not current:
                    word_start = -1
                i += 2
                continue
            current.append(script[i + 1:i + 2])
            i += 2
        elif char in "'\"":
            close = _closing_quote(script, i)
            if close < 0:
                raise fail("unterminated quote in array", i)
            body = script[i + 1:close]
            current.append(body if char == "'" else re.sub(r'\\([$`"\\\n])', r"\1", body))
            i = close + 1
        elif char in "$`(;&|<>":
            raise fail(f"array entry uses {char!r}; only literal names can be checked", i)
        else:
            current.append(char)
            i += 1
    raise fail("array is not closed with ')'", start)


def _closing_quote(script: str, index: int) -> int:
    quote = script[index]
    i = index + 1
    while i < len(script):
        if script[i] == "\\" and quote == '"':
            i += 2
            continue
        if script[i] == quote:
            return i
        i += 1
    return -1
