"""The framework list a workflow declares: `VAR=( … )` in a job's bash script, with lines.

We walk PyYAML's node graph (`compose`, never `load`): nodes carry their file positions, keys
like `on` stay strings, and aliases are not expanded, so an alias bomb costs nothing.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import yaml

from swiftpm_guard.core.model import Location
from swiftpm_guard.core.names import WorkflowSpec
from swiftpm_guard.errors import InputError
from swiftpm_guard.infra.bounded import run_bounded
from swiftpm_guard.infra.fs import read_text
from swiftpm_guard.limits import BASH_PARSE_SECONDS, WORKFLOW_MAX_BYTES
from swiftpm_guard.sources.artifacts import DeclaredName
from swiftpm_guard.sources.bash_array import Element, Rejected, prepare, read_arrays


class _Script(NamedTuple):
    """A script scalar, its text and how to map its offsets back to file lines."""

    text: str
    node: yaml.ScalarNode


def read_workflow_frameworks(spec: WorkflowSpec, *, root: Path | None = None,
                             display: str | None = None) -> list[DeclaredName]:
    """`frameworks_in_workflow` of the spec's file."""
    shown = display or spec.path
    path = (root / spec.path) if root is not None else Path(spec.path)
    text = read_text(path, display=shown, max_bytes=WORKFLOW_MAX_BYTES, what="workflow")
    return frameworks_in_workflow(text, spec.job, spec.var, file=shown)


def frameworks_in_workflow(text: str, job: str, var: str, *, file: str,
                           bounded: bool = True) -> list[DeclaredName]:
    """The entries of the bash array `var` that job `job`'s script assigns, with file lines.

    `bounded=False` parses in this process (the fuzz targets: coverage is only seen here).
    """
    lines = _FileLines(text)
    root = _compose(text, file, lines)
    jobs = _get(root, "jobs")
    if not isinstance(jobs, yaml.MappingNode):
        raise InputError("workflow has no 'jobs' mapping", file=file)
    job_node = _get(jobs, job)
    if not isinstance(job_node, yaml.MappingNode):
        known = ", ".join(str(k.value) for k, _ in jobs.value[:20])
        raise InputError(f"workflow has no job '{job}' (jobs: {known})", file=file)
    scripts = list(_scripts(job_node, _shell(root)))
    results = _read_bounded([script.text.encode("utf-8") for script in scripts], var, file,
                            bounded)
    names: list[DeclaredName] | None = None
    first: int | None = None
    for script, result in zip(scripts, results, strict=True):
        if result is None:
            continue
        offsets = _CharOffsets(script.text)
        if isinstance(result, Rejected):
            raise InputError(result.message, file=file,
                             line=lines.line_in_scalar(script, offsets.of(result.offset), ""))
        here = lines.line_in_scalar(script, offsets.of(result[0].offset), result[0].word) \
            if result else lines.at_offset(script.node.start_mark.index)
        if first is not None:
            # Each step is its own bash process: two steps with the array cannot both be it.
            raise InputError(f"{var}=( … ) is assigned in two steps (lines {first} and "
                             f"{here}); assign it once", file=file, line=here)
        first = here
        names = [DeclaredName(e.word, Location(
            file, lines.line_in_scalar(script, offsets.of(e.offset), e.word))) for e in result]
    if names is None:
        raise InputError(f"job '{job}' has no bash array {var}=( … ) in its run: steps or "
                         "with.script", file=file)
    if not names:
        raise InputError(f"{var}=( ) in job '{job}' is empty", file=file, line=first)
    return names


def _read_bounded(scripts: list[bytes], var: str, file: str,
                  bounded: bool) -> list[list[Element] | Rejected | None]:
    """tree-sitter-bash in a child process: a crash or a stall is bad input, not ours."""
    if not bounded:
        return read_arrays(scripts, var)
    prepare()  # import the grammar here: a child forked mid-import could wait on its lock
    ended = run_bounded(read_arrays, scripts, var, seconds=BASH_PARSE_SECONDS)
    if ended.kind != "ok" or ended.value is None:
        raise InputError(f"could not read the job's scripts as bash: tree-sitter-bash "
                         f"{ended.failure(BASH_PARSE_SECONDS)}", file=file)
    return ended.value


class _CharOffsets:
    """Byte offsets of a script's UTF-8 to character offsets, for offsets given in order."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._ascii = text.isascii()
        self._byte = 0
        self._char = 0

    def of(self, byte_offset: int) -> int:
        if self._ascii:
            return byte_offset
        if byte_offset < self._byte:  # out of order: start again (rare: only for errors)
            self._byte = self._char = 0
        while self._byte < byte_offset and self._char < len(self._text):
            self._byte += len(self._text[self._char].encode("utf-8"))
            self._char += 1
        return self._char


#: What YAML counts as a line break (PyYAML's reader), versus what an editor, git and GitHub's
#: annotations count: "\n" only. Marks are in YAML lines; reports are in "\n" lines.
_YAML_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_VALUE_BREAK = re.compile("[\n\u2028\u2029]")  # what a block scalar's value keeps of them


class _FileLines:
    """Converts YAML positions (marks, YAML line numbers) to 1-based "\\n" file lines."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._yaml_starts = [0] + [m.end() for m in _YAML_BREAK.finditer(text)]
        self._newlines = [m.start() for m in re.finditer("\n", text)]
        self._value_breaks: dict[int, list[int]] = {}

    def at_offset(self, offset: int) -> int:
        return bisect.bisect_left(self._newlines, offset) + 1

    def _yaml_line(self, index: int) -> tuple[int, int]:
        """Character span of YAML line `index` (0-based), clamped to the file."""
        index = max(0, min(index, len(self._yaml_starts) - 1))
        start = self._yaml_starts[index]
        end = (self._yaml_starts[index + 1] if index + 1 < len(self._yaml_starts)
               else len(self._text))
        return start, end

    def line_in_scalar(self, script: _Script, offset: int, word: str) -> int:
        """File line of `word` at `offset` in a scalar's value.

        A literal block (`|`) keeps lines one to one, starting the YAML line after its
        indicator. Other styles fold lines, so the word is looked for in the node's own lines.
        """
        node, value = script.node, script.text
        breaks = self._value_breaks.get(id(script))
        if breaks is None:  # once per script, so each word costs a bisection, not a scan
            breaks = self._value_breaks[id(script)] = [
                m.start() for m in _VALUE_BREAK.finditer(value)]
        value_line = bisect.bisect_left(breaks, offset)
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


def _shell(node: yaml.Node | None) -> str | None:
    """`defaults.run.shell` of a job or workflow (or a step's `shell`), None if unset."""
    value = _get(_get(node, "defaults"), "run") if node is not None else None
    shell = _get(value, "shell")
    return str(shell.value) if isinstance(shell, yaml.ScalarNode) else None


def _is_bash(shell: str | None) -> bool:
    """Unset means bash on GitHub's Linux and macOS runners; `bash …` is bash; `sh` (dash on
    Ubuntu), `pwsh`, `python` and the rest do not run a bash array."""
    if shell is None:
        return True
    words = shell.split()
    return bool(words) and words[0].rsplit("/", 1)[-1] == "bash"


def _scripts(job: yaml.MappingNode, default_shell: str | None = None) -> Iterator[_Script]:
    """`with.script` of a reusable-workflow job, then every bash step's `run` and
    `with.script` (a `run:` under another `shell:` is not bash and is not read)."""
    candidates = [_get(_get(job, "with"), "script")]
    job_shell = _shell(job) or default_shell
    steps = _get(job, "steps")
    if isinstance(steps, yaml.SequenceNode):
        for step in steps.value:
            shell = _get(step, "shell")
            step_shell = str(shell.value) if isinstance(shell, yaml.ScalarNode) else job_shell
            if _is_bash(step_shell):
                candidates.append(_get(step, "run"))
            candidates.append(_get(_get(step, "with"), "script"))
    for candidate in candidates:
        script = _scalar(candidate)
        if script is not None:
            yield script
