"""The framework list a workflow declares: `VAR=( … )` in a job's bash script, with lines.

We walk PyYAML's node graph (`compose`, never `load`): nodes carry their file positions, keys
like `on` stay strings, and aliases are not expanded, so an alias bomb costs nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
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
    lines = _FileLines(text)
    root = _compose(text, file, lines)
    jobs = _get(root, "jobs")
    if not isinstance(jobs, yaml.MappingNode):
        raise InputError("workflow has no 'jobs' mapping", file=file)
    job_node = _get(jobs, job)
    if not isinstance(job_node, yaml.MappingNode):
        known = ", ".join(str(k.value) for k, _ in jobs.value[:20])
        raise InputError(f"workflow has no job '{job}' (jobs: {known})", file=file)
    names: list[DeclaredName] | None = None
    for script in _scripts(job_node):

        def line_at(offset: int, word: str = "", script: _Script = script) -> int:
            return lines.line_in_scalar(script.node, script.text, offset, word)

        for op, words in _arrays(script.text, var, file, line_at):
            found = [DeclaredName(w, Location(file, line_at(off, w))) for w, off in words]
            names = found if op == "=" or names is None else names + found
    if names is None:
        raise InputError(f"job '{job}' has no bash array {var}=( … ) in its run: steps or "
                         "with.script", file=file)
    if not names:
        raise InputError(f"{var}=( ) in job '{job}' is empty", file=file)
    return names


#: What YAML counts as a line break (PyYAML's reader), versus what an editor, git and GitHub's
#: annotations count: "\n" only. Marks are in YAML lines; reports are in "\n" lines.
_YAML_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_VALUE_BREAK = re.compile("[\n\u2028\u2029]")  # what a block scalar's value keeps of them


class _FileLines:
    """Converts YAML positions (marks, YAML line numbers) to 1-based "\\n" file lines."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._yaml_starts = [0] + [m.end() for m in _YAML_BREAK.finditer(text)]

    def at_offset(self, offset: int) -> int:
        return self._text.count("\n", 0, offset) + 1

    def _yaml_line(self, index: int) -> tuple[int, int]:
        """Character span of YAML line `index` (0-based), clamped to the file."""
        index = max(0, min(index, len(self._yaml_starts) - 1))
        start = self._yaml_starts[index]
        end = (self._yaml_starts[index + 1] if index + 1 < len(self._yaml_starts)
               else len(self._text))
        return start, end

    def line_in_scalar(self, node: yaml.ScalarNode, value: str, offset: int, word: str) -> int:
        """File line of `word` at `offset` in a scalar's value.

        A literal block (`|`) keeps lines one to one, starting the YAML line after its
        indicator. Other styles fold lines, so the word is looked for in the node's own lines.
        """
        value_line = len(_VALUE_BREAK.findall(value, 0, offset))
        first = node.start_mark.line
        if node.style == "|":
            return self.at_offset(self._yaml_line(first + 1 + value_line)[0])
        last = max(first, node.end_mark.line)
        for index in range(min(first + value_line, last), last + 1):
            start, end = self._yaml_line(index)
            if word and word in self._text[start:end]:
                return self.at_offset(start)
        return self.at_offset(node.start_mark.index)


def _compose(text: str, file: str, lines: _FileLines) -> yaml.Node:
    # The pure-Python loader: its marks are character offsets into `text`, which the line
    # mapping relies on (workflow files are small, so its speed does not matter).
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        line = lines.at_offset(mark.index) if mark is not None else None
        raise InputError(f"invalid YAML: {error.problem}", file=file, line=line) from None
    except yaml.reader.ReaderError as error:
        line = lines.at_offset(error.position)
        raise InputError(f"invalid YAML: character {error.character!r} is not allowed",
                         file=file, line=line) from None
    except yaml.YAMLError as error:
        raise InputError(f"invalid YAML: {error}", file=file) from None
    except RecursionError:
        # PyYAML's composer recurses once per nesting level: `[[[[…` exhausts the stack.
        raise InputError("invalid YAML: nested too deeply to read", file=file) from None
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


def _arrays(script: str, var: str, file: str,
            line_at: Callable[[int], int]) -> Iterator[tuple[str, list[tuple[str, int]]]]:
    """Each `var=( … )` (op "=") or `var+=( … )` (op "+=") with its words and offsets."""
    pattern = re.compile(rf"(?<![A-Za-z0-9_$]){re.escape(var)}(\+?=)\(")
    for match in pattern.finditer(script):
        words = _array_words(script, match.end(), file, line_at)
        yield match.group(1), words


def _array_words(script: str, start: int, file: str,
                 line_at: Callable[[int], int]) -> list[tuple[str, int]]:
    """Bash words up to the unquoted `)`: quotes concatenate, `#` comments, `\\` escapes."""
    words: list[tuple[str, int]] = []
    current: list[str] = []
    word_start = -1
    i = start

    def fail(message: str, at: int) -> InputError:
        return InputError(message, file=file, line=line_at(at))

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
