"""The bash array a script assigns, read without running it: one narrow shape, or a refusal.

Scope. What it reads: one step's bash script (bytes) and the name of one variable; what it
gives back: that variable's words, or one `Rejected` naming why and where. tree-sitter-bash
parses the script (in the caller's bounded child). A script is accepted only when the list
bash builds is, by construction, the literal one we read; everything else is refused:

- `VAR` is assigned once, as a statement of the script itself (not in an `if`, a function, a
  list, a pipeline, a declaration, a background job), as `VAR=( … )` whose words are plain
  names `[A-Za-z0-9_]+`, bare, 'quoted' or "quoted", separated by spaces, tabs or line breaks,
  on lines that hold no backslash (a continuation would join or split words).
- Elsewhere `VAR` appears only in plain reads (`$VAR`, `${VAR[@]}`, `${#VAR[@]}`, `${VAR[0]}`,
  `${!VAR[@]}`, with a non-assigning default) and in text (comments, quoted strings). Any
  other occurrence (`VAR+=`, `VAR[i]=`, `declare`/`readonly`/`export`/`local VAR`, `unset`,
  `for VAR in`, `${VAR:=x}`, arithmetic, `{VAR}>`) is refused.
- Nothing makes a name or code out of text at run time, nor runs code between bash's start
  and the array's use: `eval`, `source`/`.`, `trap` (any), `alias`, `let`, `read`,
  `mapfile`, `printf -v`, `getopts`, `wait -p`, `compgen`, `coproc`, `enable`, namerefs and
  integer variables, indirect expansion `${!x}`, `${x@P}`, the prompt variables, declarations
  with computed names, arithmetic that assigns (`(( i++ ))`, `$(( x = 1 ))`), arithmetic over
  a variable the script sets to text, and a command name taken from a variable the script
  sets. A variable the script never sets (the runner's `CONDA_RUN`) is the environment's.
- tree-sitter-bash agrees with bash where text ends: here-documents are refused (tree-sitter
  ends some bodies where bash does not), comments start where bash starts them, text holds no
  `$` or backtick tree-sitter left unparsed, and no carriage return, vertical tab or form
  feed sits outside text. A script tree-sitter cannot parse without errors is refused.
- A GitHub expression `${{ … }}` is rendered before bash runs, so it could be any code. One
  is accepted only when it is one of the contexts whose values cannot close a quote
  (`github.sha`, `runner.os`, … `bash_syntax.SAFE_EXPRESSIONS`), or one the user vouches
  renders as one plain word (`plain-expressions`), and it sits inside a quoted string
  outside the array.

Every refusal is a `Rejected` at a byte offset; the parse and every check are linear.
The tables and the readings of single nodes live in `bash_syntax`; the verdicts live here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, NoReturn

from swiftpm_guard.core.option_names import option
from swiftpm_guard.sources import bash_syntax as syntax


@dataclass(frozen=True, slots=True)
class Element:
    word: str
    offset: int  # byte offset in the script


@dataclass(frozen=True, slots=True)
class Rejected:
    """Why the array cannot be read, at a byte offset of the script."""

    message: str
    offset: int


class _Refusal(Exception):
    """Raised inside the reader only; `read_array` turns it into a `Rejected` value."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


def _refuse(message: str, node_or_offset: Any) -> NoReturn:
    offset = node_or_offset if isinstance(node_or_offset, int) else node_or_offset.start_byte
    # Messages quote the script (`${FRAMEWORKS# … }` may span lines): always one line.
    raise _Refusal(" ".join(message.split()), offset)


@cache
def _parser() -> Callable[[bytes], Any]:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language())).parse


def prepare() -> None:
    """Load the grammar now (in the parent), so a forked child never imports it."""
    _parser()


def read_arrays(scripts: list[bytes], var: str, plain: frozenset[str] = frozenset()
                ) -> list[list[Element] | Rejected | None]:
    """`read_array` for each script (one child process reads them all)."""
    return [read_array(script, var, plain) for script in scripts]


def read_array(script: bytes, var: str, plain: frozenset[str] = frozenset()
               ) -> list[Element] | Rejected | None:
    """The literal elements of the one top-level `var=( … )` bash runs; None if the script
    never names `var`; a rejection when bash could build any other list.

    Pure data in and out (it runs in a child process): bytes, then elements or a rejection.
    """
    if _occurrences(script, var.encode()) == []:
        return None
    try:
        return _Reader(script, var, plain).read()
    except _Refusal as refusal:
        return Rejected(refusal.message, refusal.offset)


def _occurrences(script: bytes, name: bytes) -> list[int]:
    """Byte offsets of `name` as a whole identifier (not inside a longer one)."""
    pattern = re.compile(rb"(?<![A-Za-z0-9_])" + re.escape(name) + rb"(?![A-Za-z0-9_])")
    return [m.start() for m in pattern.finditer(script)]


def _rendered(script: bytes, plain: frozenset[str] = frozenset()
              ) -> tuple[bytes, list[tuple[int, int]]]:
    """The script with each accepted `${{ … }}` replaced by as many `0`s, and their spans.

    A scanner, not a regular expression: an unclosed `${{` costs one search, not one per
    start."""
    spans: list[tuple[int, int]] = []
    parts: list[bytes] = []
    position = 0
    while (start := script.find(b"${{", position)) >= 0:
        end = script.find(b"}}", start + 3)
        if end < 0:
            _refuse("a GitHub expression ${{ is not closed with }}", start)
        inner = script[start + 3:end].strip().decode("utf-8", "replace")
        if inner not in syntax.SAFE_EXPRESSIONS and inner not in plain:
            _refuse(f"GitHub expression ${{{{ {inner[:40]} }}}} is rendered into the script "
                    "before bash runs and could be any code; pass it through the step's "
                    "env: and read \"$NAME\", or, when its value is one plain word (letters, "
                    f"digits, ._-/) such as a version, name it in {option('plain-expressions')}",
                    start)
        parts += [script[position:start], b"0" * (end + 2 - start)]
        spans.append((start, end + 2))
        position = end + 2
    parts.append(script[position:])
    return b"".join(parts), spans


class _Reader:
    """One script, one variable: a single pass over tree-sitter's tree, then the verdicts that
    need the whole script (which variables it sets, as text or as numbers)."""

    def __init__(self, script: bytes, var: str, plain: frozenset[str] = frozenset()) -> None:
        self.script, self.spans = _rendered(script, plain)
        self.var = var
        self.text: list[tuple[int, int]] = []  # byte ranges bash keeps as text, in order
        self.quoted: list[tuple[int, int]] = []  # of them, the quoted strings
        self.associative: set[str] = set()
        self.reads: set[int] = set()  # offsets of `var` in an assignment or a plain read
        self.assignments: list[Any] = []  # `var=…` nodes
        self.set_as_text: dict[str, int] = {}  # variable → first offset it is set to text
        self.set_at_all: set[str] = set()
        self.arrays: set[str] = set()
        self.arithmetic: list[tuple[str, int]] = []  # variables arithmetic evaluates
        self.command_variables: list[tuple[str, int]] = []  # variables naming a command
        self.computed_declarations: list[tuple[str, int]] = []

    def read(self) -> list[Element] | None:
        tree = _parser()(self.script)
        if tree.root_node.has_error:
            error = syntax.first_error(self.script, tree.root_node)
            if error is not None:
                self._refuse_error(error)
        self._walk(tree.root_node)
        self._check_whole_script()
        if not self.assignments:
            return None
        return self._elements(self._the_assignment())

    # The walk: each node once, in document order, iteratively (deep scripts do not recurse).

    def _walk(self, root: Any) -> None:
        stack: list[tuple[Any, str]] = [(root, "")]
        while stack:
            node, context = stack.pop()
            children = self._visit(node, context)
            stack.extend((child, child_context) for child, child_context in reversed(children))

    def _visit(self, node: Any, context: str) -> list[tuple[Any, str]]:
        """Check one node; return the children to walk, each with its context: "" (code),
        "arithmetic", "test"."""
        if not node.is_named:
            return []
        kind = node.type
        if context == "arithmetic":
            return self._arithmetic(node)
        handler = _HANDLERS.get(kind)
        if handler is not None:
            return handler(self, node, context)
        if kind in syntax.STRUCTURE:
            child_context = "test" if context == "test" else ""
            return [(child, child_context) for child in node.children]
        _refuse(f"tree-sitter-bash reads a {kind} here, a construct the reader does not know "
                f"bash's meaning of; only {self.var}=( literal names ) can be checked", node)

    def _raw(self, node: Any) -> bytes:
        return bytes(self.script[node.start_byte:node.end_byte])

    def _add_text(self, node: Any) -> None:
        self.text.append((node.start_byte, node.end_byte))

    def _unparsed_expansion(self, node: Any) -> None:
        """Text tree-sitter left unparsed must hold nothing bash would expand."""
        self._unparsed_expansion_in(node.start_byte, node.end_byte)

    def _unparsed_expansion_in(self, start: int, end: int) -> None:
        if self.script.find(b"$", start, end) < 0 and self.script.find(b"`", start, end) < 0:
            return  # the common case, at C speed
        for match in syntax.EXPANDS.finditer(self.script, start, end):
            if match.group(1) is not None:
                _refuse(f"bash expands {match.group(1).decode('utf-8', 'replace')!r} here, "
                        "where tree-sitter-bash reads plain text", match.start(1))

    # Text.

    def _comment(self, node: Any, _context: str) -> list[tuple[Any, str]]:
        start = syntax.before_continuations(self.script, node.start_byte)
        if start > 0 and self.script[start - 1] not in syntax.COMMENT_BEFORE:
            _refuse("tree-sitter-bash reads a comment where bash reads a word ('#' inside a "
                    "word)", node)
        self._add_text(node)
        return []

    def _plain_text(self, node: Any, _context: str) -> list[tuple[Any, str]]:
        self._add_text(node)  # single quotes and $'…': bash expands nothing inside
        self.quoted.append((node.start_byte, node.end_byte))
        return []

    def _string_content(self, node: Any, _context: str) -> list[tuple[Any, str]]:
        self._unparsed_expansion(node)
        self._add_text(node)
        if node.parent is not None and node.parent.type == "string":
            self.quoted.append((node.start_byte, node.end_byte))
        return []

    def _word(self, node: Any, _context: str) -> list[tuple[Any, str]]:
        self._unparsed_expansion(node)
        if self.script.find(b"\n", node.start_byte, node.end_byte) < 0:
            return []
        for match in syntax.UNESCAPED_NEWLINE.finditer(self.script, node.start_byte, node.end_byte):
            if match.group(1) is not None:
                _refuse("tree-sitter-bash reads one word across this line break, where bash "
                        "ends the command", match.start(1))
        return []

    def _heredoc_redirect(self, node: Any, _context: str) -> list[tuple[Any, str]]:
        # tree-sitter-bash ends some bodies where bash does not (`EOF ` is no terminator to
        # bash): what one reads as text the other runs.
        _refuse("a here-document: bash and tree-sitter-bash can end it on different lines; "
                "use a file or a quoted string", node)

    # Commands.

    def _command(self, node: Any, _context: str) -> list[tuple[Any, str]]:
        name = node.child_by_field_name("name")
        if name is not None:
            arguments = node.children_by_field_name("argument")
            self._command_name(name, arguments)
        return [(child, "") for child in node.children]

    def _command_name(self, name: Any, arguments: list[Any]) -> None:
        value = syntax.literal(self.script, name.children[0] if name.children else name)
        rest = list(arguments)
        while value in syntax.PREFIXES and rest:  # `builtin eval …` is eval
            word = rest.pop(0)
            value = syntax.literal(self.script, word)
            if value is not None and value.startswith("-"):
                continue
            if value is None:
                self._dynamic_command(word)
                return
        if value is None:
            self._dynamic_command(name)
        elif value in syntax.RUNTIME_BUILDERS:
            _refuse(f"`{value}` here can set variables named, or run code written, at run "
                    f"time; only {self.var}=( literal names ) can be checked", name)
        elif value == "printf":
            self._printf(rest)
        elif value == "wait":
            self._wait(rest)
        elif value in ("test", "["):
            self._test_arguments(rest)

    def _dynamic_command(self, word: Any) -> None:
        """A command name bash computes: fine when it is a path in one quoted word
        (`"$DIR/build.sh"`: never a builtin); else every expansion in it must be a variable
        the script never sets (the environment's, like PATH)."""
        if self._quoted_path(word):
            return
        stack = [word]
        while stack:
            part = stack.pop()
            target = syntax.plain_variable(part) if part.type in ("simple_expansion",
                                                            "expansion") else None
            if target is not None:
                self.command_variables.append((target, part.start_byte))
                continue
            if part.is_named and part.type not in syntax.NAME_PARTS:  # `$'eval'`, `$(…)`, `${x:-…}`
                _refuse("the command name here is computed by the shell; it could be eval, "
                        "read or declare", part)
            stack.extend(part.children)

    def _quoted_path(self, word: Any) -> bool:
        """A literal `/` in the name, and every expansion inside double quotes (unquoted, its
        value would be split into words, the first of which could be a builtin)."""
        top = word.children[0] if word.type == "command_name" and word.children else word
        parts = top.children if top.type == "concatenation" else [top]
        slash = False
        for part in parts:
            if part.type in ("word", "raw_string"):
                slash = slash or b"/" in self._raw(part)
            elif part.type == "string":
                slash = slash or any(c.type == "string_content" and b"/" in self._raw(c)
                                     for c in part.children)
            else:
                return False
        return slash

    def _printf(self, arguments: list[Any]) -> None:
        for argument in arguments:
            value = syntax.literal(self.script, argument)
            if value is None or (value.startswith("-") and "v" in value and value != "--"):
                _refuse("`printf -v` (or a computed printf option) sets a variable named at "
                        "run time", argument)
            if not value.startswith("-") or value == "--":
                return

    def _wait(self, arguments: list[Any]) -> None:
        for argument in arguments:
            value = syntax.literal(self.script, argument)
            special = argument.type == "simple_expansion" and self._raw(argument) == b"$!"
            if (value is None and not special) or (value or "").startswith("-p"):
                _refuse("`wait -p` (or a computed wait option) sets a variable named by its "
                        "argument", argument)

    def _test_arguments(self, arguments: list[Any]) -> None:
        """`test` takes its operators at run time, and `-v 'a[i=1]'` evaluates a subscript:
        an operator may not be computed, and a `-v` operand must be a literal name."""
        values = [syntax.literal(self.script, a) for a in arguments]
        if values and values[-1] == "]":
            values, arguments = values[:-1], arguments[:-1]
        if values[:1] == ["!"]:
            values, arguments = values[1:], arguments[1:]
        operators = {1: (), 2: (0,), 3: (1,)}.get(len(values), range(len(values) - 1))
        for index in operators:
            if values[index] is None:
                _refuse("`test` with a computed operator can evaluate any subscript",
                        arguments[index])
        for index, value in enumerate(values[:-1]):
            following = values[index + 1]
            if value in syntax.NAME_TESTS and (following is None
                                         or not syntax.IDENTIFIER.fullmatch(following.encode())):
                _refuse(f"`test {value}` evaluates a subscript or a computed name",
                        arguments[index + 1])

    def _declaration(self, node: Any, _context: str) -> list[tuple[Any, str]]:
        keyword = self._raw(node.children[0]).decode()
        flags = ""
        walk: list[tuple[Any, str]] = []
        for child in node.children[1:]:
            if child.type == "variable_assignment":
                walk.append((child, ""))
                self._declared(child, keyword, flags)
            elif child.type == "variable_name":
                self._declared_name(child.text.decode(), child, keyword)
            elif child.is_named:
                value = syntax.literal(self.script, child)
                if value is not None and value[:1] in ("-", "+"):
                    flags += value[1:]
                    self._declaration_flags(keyword, flags, child)
                elif value is not None and syntax.IDENTIFIER.fullmatch(value.encode()):
                    self._declared_name(value, child, keyword)
                else:
                    _refuse(f"`{keyword}` with a quoted or computed argument declares a name "
                            "made at run time", child)
                walk.append((child, ""))
        return walk

    def _declaration_flags(self, keyword: str, flags: str, node: Any) -> None:
        if keyword in ("declare", "typeset", "local") and ("n" in flags or "i" in flags):
            what = "a nameref" if "n" in flags else "an integer variable (its values are " \
                "evaluated as arithmetic)"
            _refuse(f"`{keyword} -{flags}` makes {what}", node)

    def _declared_name(self, name: str, node: Any, keyword: str) -> None:
        if name == self.var:
            _refuse(f"`{keyword} {name}` changes {self.var} outside its one assignment", node)
        self.set_at_all.add(name)

    def _declared(self, assignment: Any, keyword: str, flags: str) -> None:
        """`declare x=$v` re-reads $v as `( … )` when x is an array: keep track."""
        name = syntax.assigned_name(assignment)
        value = assignment.child_by_field_name("value")
        if name is None:
            return
        if "a" in flags or "A" in flags:
            self.arrays.add(name)
        if "A" in flags:
            self.associative.add(name)
        computed = value is not None and syntax.literal(self.script, value) is None
        if computed and value.type != "array":
            if "a" in flags or "A" in flags:
                _refuse(f"`{keyword} -{flags} {name}=…` with a computed value re-reads it as "
                        "( … ) code", assignment)
            self.computed_declarations.append((name, assignment.start_byte))

    def _unset(self, node: Any, _context: str) -> list[tuple[Any, str]]:
        for child in node.children[1:]:
            value = syntax.literal(self.script, child)
            if value is None or "[" in value:
                _refuse("`unset` of a computed name or an element evaluates text at run time",
                        child)
            if value == self.var:
                _refuse(f"`unset {value}` changes {self.var} outside its one assignment", child)
        return [(child, "") for child in node.children]

    def _for(self, node: Any, _context: str) -> list[tuple[Any, str]]:
        variable = node.child_by_field_name("variable")
        if variable is not None:
            self._sets_text(variable.text.decode(), variable.start_byte)
        return [(child, "") for child in node.children]

    def _c_style_for(self, node: Any, _context: str) -> list[tuple[Any, str]]:
        walk: list[tuple[Any, str]] = []
        for child in node.children:
            body = child.type in ("do_group", "compound_statement")
            walk.append((child, "" if body else "arithmetic"))
        return walk

    def _compound(self, node: Any, _context: str) -> list[tuple[Any, str]]:
        inner = "arithmetic" if node.children and node.children[0].type == "((" else ""
        return [(child, inner) for child in node.children]

    def _arithmetic_expansion(self, node: Any, _context: str) -> list[tuple[Any, str]]:
        return [(child, "arithmetic") for child in node.children]

    def _command_substitution(self, node: Any, _context: str) -> list[tuple[Any, str]]:
        if self._raw(node).startswith(b"$(("):
            _refuse("tree-sitter-bash reads $(( … )) here as a command, bash as arithmetic",
                    node)
        return [(child, "") for child in node.children]

    def _test_command(self, node: Any, _context: str) -> list[tuple[Any, str]]:
        walk: list[tuple[Any, str]] = []
        for child in node.children:
            self._test_expression(child)
            walk.append((child, "test"))
        return walk

    def _test_expression(self, node: Any) -> None:
        """`[[ a -eq b ]]` evaluates both sides as arithmetic; `-v a[i]` a subscript."""
        stack = [node]
        while stack:
            part = stack.pop()
            operator = part.child_by_field_name("operator")
            text = self._raw(operator).decode() if operator is not None else ""
            if part.type == "binary_expression" and text in syntax.ARITHMETIC_TESTS:
                for side in (part.child_by_field_name("left"), part.child_by_field_name("right")):
                    if side is not None:
                        self._arithmetic_operand(side)
            elif part.type == "unary_expression" and text in syntax.NAME_TESTS:
                operand = part.children[-1]
                value = syntax.literal(self.script, operand)
                if value is None or not syntax.IDENTIFIER.fullmatch(value.encode()):
                    _refuse(f"`{text}` evaluates a subscript or a computed name", operand)
            stack.extend(c for c in part.children if c.type in (
                "binary_expression", "unary_expression", "parenthesized_expression",
                "negated_expression"))

    def _arithmetic_operand(self, node: Any) -> None:
        """One side of `-eq`: a number, a name, or one expansion of a name."""
        value = syntax.literal(self.script, node)
        if value is not None and syntax.INTEGER.fullmatch(value.encode()):
            return
        if value is not None and syntax.IDENTIFIER.fullmatch(value.encode()):
            self._evaluated(value, node.start_byte)
            return
        parts = [c for c in node.children if c.is_named] if node.type == "string" else [node]
        if len(parts) == 1 and parts[0].type in ("simple_expansion", "expansion"):
            return  # its variable is recorded when the walk reaches the expansion
        _refuse("an arithmetic comparison here evaluates text as an expression", node)

    # Assignments and expansions.

    def _assignment(self, node: Any, context: str) -> list[tuple[Any, str]]:
        target = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        array = target.child_by_field_name("name") if target is not None else None
        if target is not None and target.type == "subscript" and array is not None:
            name = array.text.decode()
            if name == self.var:
                _refuse(f"{self.var}[…]= sets the array element by element; give the whole "
                        f"list in one {self.var}=( … )", node)
            self._subscript_index(target)
        elif target is not None:
            name = target.text.decode()
        else:
            return [(child, "") for child in node.children]
        if name in syntax.CODE_VARIABLES:
            _refuse(f"bash expands the value of {name} as code", node)
        if name == self.var:
            self.assignments.append(node)
            self.reads.add(target.start_byte)
        elif value is not None and value.type == "array":
            self.arrays.add(name)
            self._sets_text(name, node.start_byte)
            if name not in self.associative:
                self._array_keys(value)
        elif value is None or value.type in ("number", "arithmetic_expansion") or (
                syntax.INTEGER.fullmatch(self._raw(value))):
            self.set_at_all.add(name)
        else:
            self._sets_text(name, node.start_byte)
        return [(child, "") for child in node.children]

    def _array_keys(self, array: Any) -> None:
        """`a=([k]=v)`: k is arithmetic for an indexed array; only literal integers."""
        for element in array.children:
            raw = self._raw(element)
            if raw.startswith(b"[") and not re.match(rb"\[[0-9]+\]\+?=", raw):
                _refuse("an array key here is evaluated as arithmetic; use literal integers",
                        element)

    def _sets_text(self, name: str, offset: int) -> None:
        self.set_as_text.setdefault(name, offset)
        self.set_at_all.add(name)

    def _subscript_index(self, subscript: Any) -> None:
        """Subscripts of indexed arrays are arithmetic: a literal, `@`/`*`, or a name the
        script never sets to text."""
        index = subscript.child_by_field_name("index")
        if index is None:
            return
        raw = self._raw(index)
        if syntax.INTEGER.fullmatch(raw) or raw in (b"@", b"*"):
            return
        if syntax.IDENTIFIER.fullmatch(raw):
            self._evaluated(raw.decode(), index.start_byte)
            return
        if index.type in ("simple_expansion", "expansion"):
            return  # recorded as evaluated when the walk reaches it
        _refuse("a subscript here is evaluated as arithmetic over text", index)

    def _evaluated(self, name: str, offset: int) -> None:
        if name == self.var:
            _refuse(f"arithmetic here evaluates {self.var} (and can assign it)", offset)
        self.arithmetic.append((name, offset))

    def _simple_expansion(self, node: Any, context: str) -> list[tuple[Any, str]]:
        target = next((c for c in node.children if c.is_named), None)
        if target is None:
            return []
        name = target.text.decode()
        if name == self.var:
            self.reads.add(target.start_byte)
        if context == "arithmetic" or self._in_arithmetic(node):
            self._evaluated_expansion(name, target, node)
        return []

    def _in_arithmetic(self, node: Any) -> bool:
        """Is this expansion a subscript or an `-eq` operand, where its text is evaluated?"""
        parent = node.parent
        if parent is not None and parent.type == "string":
            parent = parent.parent
        if parent is None:
            return False
        if parent.type == "subscript":
            index = parent.child_by_field_name("index")
            return index is not None and (index == node or index == node.parent)
        operator = parent.child_by_field_name("operator")
        return parent.type == "binary_expression" and operator is not None and \
            self._raw(operator).decode() in syntax.ARITHMETIC_TESTS

    def _evaluated_expansion(self, name: str, target: Any, node: Any) -> None:
        if target.type == "special_variable_name" and name in syntax.NUMERIC_SPECIALS:
            return
        if target.type == "special_variable_name" or name.isdigit():
            _refuse(f"arithmetic here evaluates ${name}, text the caller chose", node)
        self._evaluated(name, node.start_byte)

    def _expansion(self, node: Any, context: str) -> list[tuple[Any, str]]:
        parts = syntax.ExpansionParts(node)
        if parts.target is None:
            return [(child, "") for child in node.children if child.is_named]
        if parts.subscript is not None:
            self._subscript_index(parts.subscript)
        name = parts.name
        if parts.prefix == "!" and not parts.lists_names():
            _refuse(f"indirect expansion ${{!{name}…}} reads a variable named at run time",
                    node)
        if parts.operator in ("=", ":="):
            if name == self.var:
                _refuse(f"${{{self.var}{parts.operator}…}} can assign {self.var}", node)
            self._sets_text(name, node.start_byte)
        if parts.operator == "@" and parts.operands and parts.operands[0].text == b"P":
            _refuse("${x@P} expands a value as a prompt, running code written in it", node)
        if parts.operator == ":":
            for operand in parts.operands:
                if operand.is_named:
                    self._arithmetic_literal_or_name(operand)
        if name == self.var:
            self._plain_read(parts, node)
        evaluated = context == "arithmetic" or self._in_arithmetic(node)
        if evaluated and parts.prefix != "#":
            self._evaluated_expansion(name, parts.target, node)
        walk = [parts.subscript] if parts.subscript is not None else []
        return [(child, "") for child in walk + parts.operands]

    def _plain_read(self, parts: syntax.ExpansionParts, node: Any) -> None:
        index = parts.index_text()
        plain_index = index is None or index in (b"@", b"*") or bool(
            syntax.INTEGER.fullmatch(index))
        plain_operator = parts.operator is None or parts.operator in syntax.READ_OPERATORS
        keys = parts.prefix == "!" and index in (b"@", b"*")
        if not (plain_index and plain_operator and (parts.prefix != "!" or keys)):
            _refuse(f"{self._raw(node).decode('utf-8', 'replace')[:40]} is not a plain read "
                    f"of {self.var} (${{{self.var}[@]}}, ${{#{self.var}[@]}}, "
                    f"${{{self.var}[0]}})", node)
        self.reads.add(parts.target_name_offset())

    def _arithmetic_literal_or_name(self, operand: Any) -> None:
        raw = self._raw(operand).strip()
        if syntax.ARITHMETIC_NUMBER.fullmatch(raw.lstrip(b"-")):
            return
        if syntax.IDENTIFIER.fullmatch(raw):
            self._evaluated(raw.decode(), operand.start_byte)
            return
        if operand.type in ("simple_expansion", "expansion"):
            return
        _refuse("a substring offset here is evaluated as arithmetic over text", operand)

    def _arithmetic(self, node: Any) -> list[tuple[Any, str]]:
        """Inside `(( ))`, `$(( ))` and `for (( ))`: numbers, operators and names only."""
        kind = node.type
        if kind in ("variable_name", "word"):
            raw = self._raw(node)
            if syntax.IDENTIFIER.fullmatch(raw):
                self._evaluated(raw.decode(), node.start_byte)
            elif not syntax.ARITHMETIC_NUMBER.fullmatch(raw):
                _refuse("arithmetic here holds text tree-sitter-bash does not read as a name "
                        "or a number", node)
            return []
        if kind == "simple_expansion":
            return self._simple_expansion(node, "arithmetic")
        if kind == "expansion":
            # Its subscript is checked as one; its operands are spliced in and evaluated.
            return [(c, "" if c.type == "subscript" else "arithmetic")
                    for c, _ in self._expansion(node, "arithmetic")]
        if kind == "subscript":
            return [(c, "arithmetic") for c in node.children]
        if kind == "variable_assignment" or any(
                c.type in syntax.ASSIGNING for c in node.children if not c.is_named):
            _refuse("arithmetic here assigns a variable; the reader accepts arithmetic that "
                    "only reads", node)
        if kind in ("number", "binary_expression", "unary_expression", "postfix_expression",
                    "ternary_expression", "parenthesized_expression", "comment"):
            return [(c, "arithmetic") for c in node.children]
        _refuse(f"arithmetic here holds a {kind}, which bash evaluates as text", node)

    # Whole-script verdicts.

    def _check_whole_script(self) -> None:
        self.text.sort()  # a body's gaps are noted before the expansions between them
        self.quoted.sort()
        for name, offset in self.arithmetic:
            if name in self.set_as_text:
                _refuse(f"arithmetic here evaluates {name}, which the script sets to text: "
                        "bash evaluates that text as an expression, assignments included",
                        offset)
        for name, offset in self.command_variables:
            if name == self.var or name in self.set_at_all:
                _refuse(f"the command name here comes from {name}, which the script sets: "
                        "it could be eval, read or declare", offset)
        for name, offset in self.computed_declarations:
            if name in self.arrays:
                _refuse(f"declaring the array {name} with a computed value re-reads it as "
                        "( … ) code", offset)
        for start, end in self.spans:
            if not syntax.inside(self.quoted, start, end) or self._in_assignment(start):
                _refuse("a GitHub expression must sit inside a quoted string, outside the "
                        "array", start)
        for match in syntax.NOT_BLANK_TO_BASH.finditer(self.script):
            if not syntax.inside(self.text, match.start(), match.end()):
                shown = {b"\r": "carriage return", b"\v": "vertical tab"}.get(
                    match.group(), "form feed")
                _refuse(f"a {shown} here is white space to tree-sitter-bash and part of a word "
                        "to bash", match.start())
        for offset in _occurrences(self.script, self.var.encode()):
            if offset not in self.reads and not syntax.inside(self.text, offset, offset + 1):
                _refuse(f"{self.var} appears here other than in its one literal assignment "
                        "and plain reads; bash could build another list", offset)

    def _in_assignment(self, offset: int) -> bool:
        return any(n.start_byte <= offset < n.end_byte for n in self.assignments)

    def _the_assignment(self) -> Any:
        found = self.assignments
        for node in found:
            if syntax.assignment_operator(self.script, node) == b"+=":
                _refuse(f"{self.var}+=( … ) appends to the array; give the whole list in one "
                        f"{self.var}=( … )", node)
        if len(found) > 1:
            lines = ", ".join(str(self.script.count(b"\n", 0, n.start_byte) + 1)
                              for n in found[:5])
            _refuse(f"{self.var} is assigned {len(found)} times (script lines {lines}); which "
                    "one bash keeps depends on the script: assign it once", found[1])
        return found[0]

    def _refuse_error(self, node: Any) -> NoReturn:
        if node.is_missing and node.type == ")" and node.parent is not None \
                and node.parent.type == "array":
            _refuse("array is not closed with ')'", node.parent)
        raw = self.script[node.start_byte:node.end_byte]
        if re.search(rb"(?<![A-Za-z0-9_$])" + re.escape(self.var.encode()) + rb"\+?=", raw):
            _refuse(f"unterminated quote or parenthesis: {self.var}=( … ) is not valid bash "
                    "here", node)
        _refuse("tree-sitter-bash cannot read this as bash (an unterminated quote, a stray "
                "keyword); a script that may build the array must parse cleanly", node)

    def _elements(self, node: Any) -> list[Element]:
        if syntax.enclosing(node) is not None or syntax.backgrounded(node):
            where = syntax.enclosing(node) or "a background job (`&`: a subshell)"
            _refuse(f"{self.var}=( … ) is inside {where}; cannot tell whether bash runs it: "
                    "assign it once at the top of the script", node)
        value = node.child_by_field_name("value")
        if value is None or value.type != "array":
            _refuse(f"{self.var} is not assigned an array ( … )", node)
        # Its lines hold no backslash: no continuation can split or join a word.
        line_start = self.script.rfind(b"\n", 0, node.start_byte) + 1
        line_end = self.script.find(b"\n", value.end_byte)
        lines = self.script[line_start:len(self.script) if line_end < 0 else line_end]
        if b"\\" in lines or self.script[:line_start].endswith(b"\\\n"):
            _refuse(f"a backslash on the lines of {self.var}=( … ) (a line continuation "
                    "joins or splits words); write one plain name per word", node)
        if not syntax.PLAIN_ARRAY.fullmatch(self.script, value.start_byte, value.end_byte):
            _refuse(f"{self.var}=( … ) holds more than plain names [A-Za-z0-9_], each bare "
                    "or in quotes, separated by spaces or line breaks (an expansion, a "
                    "comment, another character)", value)
        return [Element(m.group(m.lastindex or 0).decode(), m.start(m.lastindex or 0))
                for m in syntax.ARRAY_WORD.finditer(self.script, value.start_byte + 1,
                                              value.end_byte - 1)]


_HANDLERS: dict[str, Callable[[_Reader, Any, str], list[tuple[Any, str]]]] = {
    "comment": _Reader._comment,
    "raw_string": _Reader._plain_text,
    "ansi_c_string": _Reader._plain_text,
    "string_content": _Reader._string_content,
    "word": _Reader._word,
    "regex": _Reader._word,
    "extglob_pattern": _Reader._word,
    "heredoc_redirect": _Reader._heredoc_redirect,
    "command": _Reader._command,
    "declaration_command": _Reader._declaration,
    "unset_command": _Reader._unset,
    "variable_assignment": _Reader._assignment,
    "for_statement": _Reader._for,
    "c_style_for_statement": _Reader._c_style_for,
    "compound_statement": _Reader._compound,
    "arithmetic_expansion": _Reader._arithmetic_expansion,
    "command_substitution": _Reader._command_substitution,
    "test_command": _Reader._test_command,
    "simple_expansion": _Reader._simple_expansion,
    "expansion": _Reader._expansion,
    "subscript": lambda reader, node, context: [
        (child, context) for child in node.children if child.type != "variable_name"],
}
