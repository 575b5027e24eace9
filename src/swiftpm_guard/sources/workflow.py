"""The framework list a workflow declares: the bash array `VAR=( … )` of one job, with lines.

The reader never runs the script. It accepts one narrow shape and refuses anything else with
one line naming the workflow line and the way out: declare the names (input `frameworks`,
`--frameworks`) or check the built zips (`artifacts`, `--artifacts`), which are exact.

The accepted shape:

- The script is a step's `run:` or a reusable-workflow job's `with.script`, written as a
  literal block (`run: |`, whose lines are the file's) or on one line.
- A `run:` step runs under the runner's own bash command line (`bash -e {0}`, or
  `bash --noprofile --norc -eo pipefail {0}` for `shell: bash`): the step's `shell:` and the
  job's and the workflow's `defaults.run.shell` are absent or exactly `bash`.
- No `env:` of the workflow, the job or the step sets a variable bash's manual gives a meaning
  to (`_BASH_VARIABLES`: BASH_ENV, ENV, SHELLOPTS, PS4, IFS, … and `BASH_FUNC_*`; bash reads
  them before the script's first line), nor a name that is not a plain identifier; an `env:`
  made by an expression is refused.
- The script is one bash_array.py accepts: `VAR=( plain names )` assigned once, at the top
  level, and nothing that can change it or run code written at run time (see there).

The YAML: PyYAML's node graph (`compose`, never `load`), so nodes carry file positions, keys
like `on` stay strings and aliases are not expanded (an alias bomb costs nothing). GitHub
refuses a workflow with a duplicate mapping key; so do we, naming the line. The array's
script is parsed by tree-sitter-bash in a bounded child: a crash or a stall is bad input.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

from swiftpm_guard.core.model import Location
from swiftpm_guard.core.names import WorkflowSpec
from swiftpm_guard.core.option_names import option
from swiftpm_guard.errors import InputError, Missing
from swiftpm_guard.infra.bounded import run_bounded
from swiftpm_guard.infra.fs import read_text
from swiftpm_guard.limits import BASH_PARSE_SECONDS, WORKFLOW_MAX_BYTES
from swiftpm_guard.sources.artifacts import DeclaredName
from swiftpm_guard.sources.bash_array import Element, Rejected, prepare, read_arrays


@dataclass(frozen=True, slots=True)
class _Script:
    """A script scalar, the step that runs it (None: a reusable workflow's `with.script`) and
    the mappings whose `env:` and `defaults.run.shell` reach it."""

    text: str
    node: yaml.ScalarNode
    step: yaml.Node | None
    levels: tuple[yaml.Node, ...]  # the workflow, the job


# ---------------------------------------------------------------------------------------------
# The workflow: YAML to scripts to names with lines.


def read_workflow_frameworks(spec: WorkflowSpec, *, root: Path | None = None,
                             display: str | None = None) -> list[DeclaredName]:
    """`frameworks_in_workflow` of the spec's file."""
    shown = display or spec.path
    path = (root / spec.path) if root is not None else Path(spec.path)
    text = read_text(path, display=shown, max_bytes=WORKFLOW_MAX_BYTES, what="workflow")
    return frameworks_in_workflow(text, spec.job, spec.var, file=shown, plain=spec.plain)


def frameworks_in_workflow(text: str, job: str, var: str, *, file: str,
                           plain: frozenset[str] = frozenset()) -> list[DeclaredName]:
    """The entries of the bash array `var` that job `job`'s script assigns, with file lines.
    `plain`: expressions the user vouches render as one plain word (input plain-expressions)."""
    lines = _FileLines(text)
    root = _compose(text, file, lines)
    _refuse_duplicate_keys(root, file, lines)
    scripts = list(_scripts(root, _job(root, job, file, lines)))
    results = _read_bounded([script.text.encode("utf-8") for script in scripts], var, file,
                            plain)
    names: list[DeclaredName] | None = None
    first: int | None = None
    for script, result in zip(scripts, results, strict=True):
        if result is None:
            continue
        _runs_as_the_runner_runs(script, var, file, lines)
        _one_to_one(script, var, file, lines)
        offsets = _CharOffsets(script.text)
        if isinstance(result, Rejected):
            raise InputError(result.message + _WAY_OUT, file=file,
                             line=lines.line_in_scalar(script, offsets.of(result.offset)))
        here = lines.line_in_scalar(script, offsets.of(result[0].offset)) if result \
            else lines.at_offset(script.node.start_mark.index)
        if first is not None:
            # Each step is its own bash process: two steps with the array cannot both be it.
            raise InputError(f"{var}=( … ) is assigned in two steps (lines {first} and "
                             f"{here}); assign it once", file=file, line=here)
        first = here
        names = [DeclaredName(e.word, Location(
            file, lines.line_in_scalar(script, offsets.of(e.offset)))) for e in result]
    if names is None:
        raise Missing(f"job '{job}' has no bash array {var}=( … ) in its run: steps or "
                         "with.script", file=file)
    if not names:
        raise InputError(f"{var}=( ) in job '{job}' is empty", file=file, line=first)
    return names


#: Every refusal of the shape ends with the ways that need no reading of bash (options by key).
_WAY_OUT = (f"; declare the names ({option('frameworks')}) or check the built zips "
            f"({option('artifacts')}), which are exact")


def _read_bounded(scripts: list[bytes], var: str, file: str,
                  plain: frozenset[str]) -> list[list[Element] | Rejected | None]:
    """tree-sitter-bash in a child process: a crash or a stall is bad input, not ours."""
    prepare()  # load the grammar here: a child forked mid-import could wait on its lock
    ended = run_bounded(read_arrays, scripts, var, plain, seconds=BASH_PARSE_SECONDS)
    if ended.kind != "ok" or ended.value is None:
        raise InputError(f"could not read the job's scripts as bash: tree-sitter-bash "
                         f"{ended.failure(BASH_PARSE_SECONDS)}", file=file)
    return ended.value


def _compose(text: str, file: str, lines: _FileLines) -> yaml.MappingNode:
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


def _refuse_duplicate_keys(root: yaml.Node, file: str, lines: _FileLines) -> None:
    """GitHub refuses a workflow with a key twice in one mapping; PyYAML keeps the first.

    Iterative, and each node once: aliases share nodes (and may form a cycle)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[str, int] = {}
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    line = lines.at_offset(key.start_mark.index)
                    if key.value in first:
                        raise InputError(f"duplicate key {key.value!r} (first on line "
                                         f"{first[key.value]}): GitHub refuses the workflow",
                                         file=file, line=line)
                    first[key.value] = line
                stack.extend((key, value))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)


def _get(node: yaml.Node | None, key: str) -> yaml.Node | None:
    item = _item(node, key)
    return None if item is None else item[1]


def _item(node: yaml.Node | None, key: str) -> tuple[yaml.ScalarNode, yaml.Node] | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    for key_node, value in node.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            return key_node, value
    return None


def _job(root: yaml.MappingNode, job: str, file: str, lines: _FileLines) -> yaml.MappingNode:
    jobs = _get(root, "jobs")
    if not isinstance(jobs, yaml.MappingNode):
        raise InputError("workflow has no 'jobs' mapping", file=file)
    item = _item(jobs, job)
    if item is None:
        known = ", ".join(str(k.value) for k, _ in jobs.value[:20])
        raise Missing(f"workflow has no job '{job}' (jobs: {known})", file=file)
    key, node = item
    if not isinstance(node, yaml.MappingNode):
        kind = "a sequence" if isinstance(node, yaml.SequenceNode) else "a scalar"
        tag = str(node.tag).replace("tag:yaml.org,2002:", "!!")
        tagged = "" if tag in ("!!seq", "!!str", "!!int", "!!float", "!!bool", "!!null") \
            else f" tagged {tag}"
        raise InputError(f"job '{job}' is not a mapping: it is {kind}{tagged}",
                         file=file, line=lines.at_offset(key.start_mark.index))
    return node


#: The variables bash's manual gives a meaning to (GNU Bash Reference Manual, 5.1 "Bourne Shell
#: Variables" and 5.2 "Bash Variables", bash 5.3), plus exported functions (`BASH_FUNC_*`,
#: 3.7.4 "Environment"): set in an `env:`, bash may read them before the script's first line.
_BASH_VARIABLES = frozenset({
    "CDPATH", "HOME", "IFS", "MAIL", "MAILPATH", "OPTARG", "OPTIND", "PATH", "PS1", "PS2", "_",
    "BASH", "BASHOPTS", "BASHPID", "BASH_ALIASES", "BASH_ARGC", "BASH_ARGV", "BASH_ARGV0",
    "BASH_CMDS", "BASH_COMMAND", "BASH_COMPAT", "BASH_ENV", "BASH_EXECUTION_STRING",
    "BASH_LINENO", "BASH_LOADABLES_PATH", "BASH_MONOSECONDS", "BASH_REMATCH", "BASH_SOURCE",
    "BASH_SUBSHELL", "BASH_TRAPSIG", "BASH_VERSINFO", "BASH_VERSION", "BASH_XTRACEFD",
    "CHILD_MAX", "COLUMNS", "COMP_CWORD", "COMP_LINE", "COMP_POINT", "COMP_TYPE", "COMP_KEY",
    "COMP_WORDBREAKS", "COMP_WORDS", "COMPREPLY", "COPROC", "DIRSTACK", "EMACS", "ENV",
    "EPOCHREALTIME", "EPOCHSECONDS", "EUID", "EXECIGNORE", "FCEDIT", "FIGNORE", "FUNCNAME",
    "FUNCNEST", "GLOBIGNORE", "GLOBSORT", "GROUPS", "histchars", "HISTCMD", "HISTCONTROL",
    "HISTFILE", "HISTFILESIZE", "HISTIGNORE", "HISTSIZE", "HISTTIMEFORMAT", "HOSTFILE",
    "HOSTNAME", "HOSTTYPE", "IGNOREEOF", "INPUTRC", "INSIDE_EMACS", "LANG", "LC_ALL",
    "LC_COLLATE", "LC_CTYPE", "LC_MESSAGES", "LC_NUMERIC", "LC_TIME", "LINENO", "LINES",
    "MACHTYPE", "MAILCHECK", "MAPFILE", "OLDPWD", "OPTERR", "OSTYPE", "PIPESTATUS",
    "POSIXLY_CORRECT", "PPID", "PROMPT_COMMAND", "PROMPT_DIRTRIM", "PS0", "PS3", "PS4", "PWD",
    "RANDOM", "READLINE_ARGUMENT", "READLINE_LINE", "READLINE_MARK", "READLINE_POINT", "REPLY",
    "SECONDS", "SHELL", "SHELLOPTS", "SHLVL", "SRANDOM", "TIMEFORMAT", "TMOUT", "TMPDIR", "UID",
})
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _runs_as_the_runner_runs(script: _Script, var: str, file: str, lines: _FileLines) -> None:
    """The script holding the array runs as the runner runs a `run:` step: no `env:` that
    bash reads (at the workflow, the job or the step) and the runner's own bash command
    line (`shell:` and `defaults.run.shell` absent or exactly `bash`)."""
    for level in (*script.levels, script.step):
        env = _item(level, "env")
        if env is not None:
            _plain_env(env, file, lines)
    if script.step is None:
        return  # a reusable workflow's `with.script`: that workflow runs it
    for shell in (_get(script.step, "shell"), *(_default_shell(n) for n in script.levels)):
        if shell is not None and not (isinstance(shell, yaml.ScalarNode)
                                      and shell.value == "bash"):
            shown = str(shell.value)[:60] if isinstance(shell, yaml.ScalarNode) else "…"
            raise InputError(f"the step holding {var}=( … ) runs under shell {shown!r}; only "
                             "the runner's own bash (`shell: bash` or none) is read"
                             + _WAY_OUT, file=file, line=lines.at_offset(
                                 shell.start_mark.index))


def _plain_env(env: tuple[yaml.ScalarNode, yaml.Node], file: str, lines: _FileLines) -> None:
    """Every name is a plain variable bash gives no meaning to (an `env:` made by an
    expression could hold any name)."""
    key, node = env
    if not isinstance(node, yaml.MappingNode):
        raise InputError("env: is not a mapping of names (an expression could set any "
                         "variable bash reads)" + _WAY_OUT, file=file,
                         line=lines.at_offset(key.start_mark.index))
    for name, _value in node.value:
        text = str(name.value) if isinstance(name, yaml.ScalarNode) else ""
        if text in _BASH_VARIABLES or text.startswith("BASH_FUNC_"):
            why = "a variable bash gives a meaning to (it can run code before the script)"
        elif not _ENV_NAME.fullmatch(text):
            why = "not a plain variable name"
        else:
            continue
        raise InputError(f"env: sets {text[:40]!r}, {why}" + _WAY_OUT, file=file,
                         line=lines.at_offset(name.start_mark.index))


def _default_shell(node: yaml.Node) -> yaml.Node | None:
    """`defaults.run.shell` of a job or workflow, None if unset."""
    return _get(_get(_get(node, "defaults"), "run"), "shell")


def _scripts(root: yaml.MappingNode, job: yaml.MappingNode) -> Iterator[_Script]:
    """`with.script` of a reusable-workflow job, then every step's `run`."""
    levels = (root, job)
    script = _get(_get(job, "with"), "script")
    if isinstance(script, yaml.ScalarNode) and isinstance(script.value, str):
        yield _Script(script.value, script, None, levels)
    steps = _get(job, "steps")
    for step in steps.value if isinstance(steps, yaml.SequenceNode) else []:
        run = _get(step, "run")
        if isinstance(run, yaml.ScalarNode) and isinstance(run.value, str):
            yield _Script(run.value, run, step, levels)


# ---------------------------------------------------------------------------------------------
# Lines: script offsets to file lines, in linear time.


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
_VALUE_BREAK = re.compile("[\n\u2028\u2029]")  # what a literal block's value keeps of them


class _FileLines:
    """Converts YAML positions and script offsets to 1-based "\\n" file lines. A script is a
    literal block (`run: |`), whose lines are the file's one to one, or one source line."""

    def __init__(self, text: str) -> None:
        self._yaml_starts = [0] + [m.end() for m in _YAML_BREAK.finditer(text)]
        self._newlines = [m.start() for m in re.finditer("\n", text)]
        self._value_breaks: dict[int, list[int]] = {}

    def at_offset(self, offset: int) -> int:
        return bisect.bisect_left(self._newlines, offset) + 1

    def line_in_scalar(self, script: _Script, offset: int) -> int:
        """File line of the value's character at `offset`."""
        if script.node.style != "|":
            return self.at_offset(script.node.start_mark.index)
        breaks = self._value_breaks.get(id(script))
        if breaks is None:  # once per script, so each offset costs a bisection
            breaks = self._value_breaks[id(script)] = [
                m.start() for m in _VALUE_BREAK.finditer(script.text)]
        index = script.node.start_mark.line + 1 + bisect.bisect_left(breaks, offset)
        index = max(0, min(index, len(self._yaml_starts) - 1))
        return self.at_offset(self._yaml_starts[index])


def _one_to_one(script: _Script, var: str, file: str, lines: _FileLines) -> None:
    """A folded or quoted script over several lines would need YAML's folding and escapes
    replayed to name a line: refuse it instead."""
    node = script.node
    if node.style != "|" and node.start_mark.line != node.end_mark.line:
        raise InputError(f"the script holding {var}=( … ) is a folded, quoted or plain YAML "
                         "scalar over several lines; write it as a literal block (`run: |`)",
                         file=file, line=lines.at_offset(node.start_mark.index))
