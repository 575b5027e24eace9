"""What tree-sitter-bash's nodes mean to bash: the tables `bash_array`'s reader checks
against, and the small readings of one node it needs (a literal word, an expansion's parts,
where a statement sits, continuations). Data and pure functions over the tree; no verdicts.
"""

from __future__ import annotations

import bisect
import re
from typing import Any

#: GitHub contexts whose values are drawn from [A-Za-z0-9_.\-/[\]]: no quote, `$`, backtick
#: or backslash can come out of them, so inside a quoted string they stay one quoted word.
SAFE_EXPRESSIONS = frozenset({
    "github.sha", "github.run_id", "github.run_number", "github.run_attempt", "github.job",
    "github.repository", "github.repository_id", "github.repository_owner",
    "github.repository_owner_id", "github.actor", "github.actor_id", "github.triggering_actor",
    "github.event_name", "runner.os", "runner.arch", "strategy.job-index",
    "strategy.job-total", "job.status",
})
#: Commands that make names or code out of text at run time, or set variables named by their
#: arguments: their mere presence means the list is not the literal one.
RUNTIME_BUILDERS = frozenset({
    "eval", "source", ".", "trap", "alias", "let", "read", "mapfile", "readarray", "getopts",
    "enable", "fc", "compgen", "complete", "coproc", "bind", "declare", "typeset", "local",
    "export", "readonly", "unset",
})
#: Commands that prefix another command and run it as a builtin.
PREFIXES = frozenset({"builtin", "command"})
#: Variables whose values bash expands as code (`PS4` before each command under `set -x`).
CODE_VARIABLES = frozenset({"PS0", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND",
                            "BASH_ALIASES", "BASH_CMDS"})
#: Expansion operators that read without assigning; `=`/`:=` assign, `@P` runs code.
READ_OPERATORS = frozenset({"-", ":-", "+", ":+", "?", ":?"})
#: Arithmetic operators that assign (bash manual, 6.5 "Shell Arithmetic").
ASSIGNING = frozenset({"=", "*=", "/=", "%=", "+=", "-=", "<<=", ">>=", "&=", "^=", "|=",
                       "++", "--"})
ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
NAME_TESTS = frozenset({"-v", "-R"})
#: Special parameters that always expand to a number.
NUMERIC_SPECIALS = frozenset({"#", "?", "$", "!"})
#: Node types whose structure carries no meaning of its own beyond their children.
STRUCTURE = frozenset({
    "program", "list", "pipeline", "negated_command", "redirected_statement", "file_redirect",
    "herestring_redirect", "if_statement", "elif_clause", "else_clause", "while_statement",
    "do_group", "case_statement", "case_item", "concatenation", "string", "command_name",
    "function_definition", "subshell", "process_substitution", "array", "file_descriptor",
    "test_operator", "translated_string", "brace_expression", "variable_assignments",
    "number", "special_variable_name", "variable_name",
    "unary_expression", "binary_expression", "ternary_expression", "postfix_expression",
    "parenthesized_expression",
})
COMMENT_BEFORE = frozenset(b" \t\n;&|()<>")
#: Bytes tree-sitter-bash skips as white space where bash keeps them in the word (bash's
#: blanks are space and tab): `( a\fb )` is one element to bash, two to the grammar.
NOT_BLANK_TO_BASH = re.compile(rb"[\r\v\f]")
IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
#: The one array shape read: plain names, bare, 'quoted' or "quoted", between blanks.
ARRAY_WORD = re.compile(rb"([A-Za-z0-9_]+)|'([A-Za-z0-9_]+)'|\"([A-Za-z0-9_]+)\"")
PLAIN_ARRAY = re.compile(rb"\([ \t\n]*(?:(?:" + ARRAY_WORD.pattern + rb")(?:[ \t\n]+|(?=\))))*\)")
#: A newline no backslash escapes (`\\<newline>` is a continuation, not a word character).
UNESCAPED_NEWLINE = re.compile(rb"\\.|(\n)", re.DOTALL)
INTEGER = re.compile(rb"[0-9]+")
ARITHMETIC_NUMBER = re.compile(rb"[0-9][0-9A-Za-z#@_]*")
#: `$` that bash expands (a name, a special parameter, `{`, `(`, `[`, a quote) or a backtick.
EXPANDS = re.compile(rb"\\.|(\$[A-Za-z0-9_{(\[@*#?$!'\"-]|`)", re.DOTALL)
STRING_ESCAPE = re.compile(r'\\([$`"\\\n])')
WORD_ESCAPE = re.compile(r"\\\n|\\(.)", re.DOTALL)
#: What a command name bash computes may be made of: literal pieces and plain variables.
NAME_PARTS = frozenset({"command_name", "concatenation", "word", "string", "string_content",
                        "raw_string", "number"})
LITERAL_PARTS = frozenset({"word", "raw_string", "string", "concatenation", "string_content",
                           "number"})


class ExpansionParts:
    """`${ [#|!] name[index] operator operands }` as tree-sitter-bash lays it out."""

    def __init__(self, node: Any) -> None:
        self.prefix: str | None = None
        self.target: Any = None
        self.subscript: Any = None
        self.operator: str | None = None
        self.operands: list[Any] = []
        for child in node.children[1:]:
            if child.type == "}":
                break
            if self.target is None and child.type in ("#", "!") and self.prefix is None:
                self.prefix = child.type
            elif self.target is None and child.type in ("variable_name",
                                                        "special_variable_name", "subscript"):
                self.target = child
                self.subscript = child if child.type == "subscript" else None
            elif self.target is not None and not child.is_named and self.operator is None:
                self.operator = child.type
            elif self.target is not None:
                self.operands.append(child)

    @property
    def name(self) -> str:
        node = self.subscript.child_by_field_name("name") if self.subscript else self.target
        return str(node.text.decode("utf-8", "replace"))

    def target_name_offset(self) -> int:
        node = self.subscript.child_by_field_name("name") if self.subscript else self.target
        return int(node.start_byte)

    def index_text(self) -> bytes | None:
        index = self.subscript.child_by_field_name("index") if self.subscript else None
        return None if index is None else bytes(index.text)

    def lists_names(self) -> bool:
        """`${!a[@]}` (keys) and `${!prefix*}` (names) list; every other `${!…}` is indirect."""
        if self.subscript is not None:
            return self.index_text() in (b"@", b"*") and self.operator is None
        return self.operator in ("*", "@") and not self.operands


def inside(ranges: list[tuple[int, int]], start: int, end: int) -> bool:
    """Is [start, end) within one of `ranges` (sorted, disjoint)?"""
    index = bisect.bisect_right(ranges, (start, 1 << 62)) - 1
    return index >= 0 and ranges[index][0] <= start and end <= ranges[index][1]


def first_error(script: bytes, root: Any) -> Any | None:
    """The first ERROR or MISSING node, but a `;` tree-sitter-bash misses after a `)` (bash
    reads `do ( … ) done` as it is: `)` is an operator, no separator is needed)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or (node.is_missing and not benign_missing(script, node)):
            return node
        stack.extend(reversed([c for c in node.children if c.has_error or c.is_missing]))
    return None


def benign_missing(script: bytes, node: Any) -> bool:
    before = script[max(0, node.start_byte - 256):node.start_byte].rstrip()  # bounded
    return node.type == ";" and before.endswith(b")")


def plain_variable(node: Any) -> str | None:
    """`$X` or `${X}` (no operator, no subscript): X; else None."""
    named = [c for c in node.children if c.is_named]
    if len(named) == 1 and named[0].type == "variable_name":
        unnamed = [c.type for c in node.children if not c.is_named]
        if unnamed in (["$"], ["${", "}"]):
            return str(named[0].text.decode("utf-8", "replace"))
    return None


def assigned_name(node: Any) -> str | None:
    name = node.child_by_field_name("name")
    if name is None or name.type != "variable_name":
        return None
    return str(name.text.decode("utf-8", "replace"))


def assignment_operator(script: bytes, node: Any) -> bytes:
    name = node.child_by_field_name("name")
    value = node.child_by_field_name("value")
    end = value.start_byte if value is not None else node.end_byte
    return script[name.end_byte:end].strip()


_CONTEXTS = {"if_statement": "an if", "function_definition": "a function",
             "subshell": "a subshell", "list": "a && or || list", "pipeline": "a pipeline",
             "command": "a command's environment", "declaration_command": "a declaration",
             "variable_assignments": "a line of several assignments"}


def enclosing(node: Any) -> str | None:
    """None when `node` is a statement of the script itself, else where it sits."""
    parent = node.parent
    if parent is None or parent.type == "program":
        return None
    return _CONTEXTS.get(parent.type, f"a {parent.type}")


def backgrounded(node: Any) -> bool:
    """`VAR=( … ) &` runs the assignment in a subshell: the script's own list stays unset."""
    statement = node
    while statement.parent is not None and statement.parent.type != "program":
        statement = statement.parent
    following = statement.next_sibling
    return following is not None and following.type == "&"


def literal(script: bytes, node: Any) -> str | None:
    """The word bash makes of a literal word, or None if the shell would compute it."""
    if node.type == "command_name" and node.children:
        node = node.children[0]
    if node.type not in LITERAL_PARTS or node.has_error:
        return None
    raw = script[node.start_byte:node.end_byte].decode("utf-8", "replace")
    if node.type == "raw_string":
        return raw[1:-1]
    if node.type == "string":
        if any(c.type not in ('"', "string_content") for c in node.children):
            return None
        return STRING_ESCAPE.sub(r"\1", raw[1:-1])
    if node.type == "concatenation":
        parts = [literal(script, child) for child in node.children]
        return None if any(p is None for p in parts) else "".join(p or "" for p in parts)
    return WORD_ESCAPE.sub(lambda m: m.group(1) or "", raw)


# ---------------------------------------------------------------------------------------------
# Continuations.


def odd_backslashes_before(script: bytes, end: int) -> bool:
    """Does an odd run of backslashes end at `end` (so the last one escapes what follows)?"""
    index = end
    while index > 0 and script[index - 1] == 0x5C:  # backslash
        index -= 1
    return (end - index) % 2 == 1


def before_continuations(script: bytes, index: int) -> int:
    """Where `index` sits once bash has removed the `\\<newline>` pairs before it: a `#`
    right after a continuation continues the word before it and starts no comment."""
    while index >= 2 and script[index - 1] == 0x0A and odd_backslashes_before(script,
                                                                                  index - 1):
        index -= 2
    return index
