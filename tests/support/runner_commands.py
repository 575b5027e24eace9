"""A model of how the GitHub Actions runner finds workflow commands in a step's output.

Written from the runner's own rules (actions/runner: `Runner.Common/ActionCommand.cs`,
`Runner.Worker/ActionCommandManager.cs`, `Runner.Worker/Handlers/OutputManager.cs`,
`Runner.Sdk/ProcessInvoker.cs`), so tests can ask what the runner would *do* with a log:

- Output is read line by line with .NET's `StreamReader.ReadLine`: a line ends at `\\r\\n`,
  `\\r` or `\\n` (a lone CR starts a new line too). stdout and stderr are read separately and
  their lines interleave in no guaranteed order; the command state is shared.
- A line is looked at only if it contains `##[` or `::` anywhere.
- `TryParseV2` first: the line, after .NET `TrimStart()` (Unicode white space), must start with
  `::`; the command info runs to the next `::`; the name is up to the first space and must be
  registered (case-insensitive); properties are `k=v` split on `,` (pairs without `=` or with
  an empty side dropped), unescaped `%0D %0A %3A %2C %25`; the data follows the `::`,
  unescaped `%0D %0A %25`.
- Else the legacy `TryParse`: `##[` anywhere in the line; info runs to the next `]`; properties
  split on `;`, everything unescaped `%3B %0D %0A %5D %25`.
- `stop-commands` with data T stops every command until one named T (case-insensitive, via
  either syntax) arrives; T is registered while stopped. Unregistered names are no commands.

Two .NET details matter for hostile text and are modelled conservatively: `StartsWith("::")`,
`IndexOf("::", 2)` and `IndexOf("##[")` are culture-sensitive string comparisons, under which
characters with no collation weight (controls, format characters, the Default_Ignorable code
points) are skipped. So this model ignores those characters when it looks for `::` and `##[`:
it finds at least every command the runner finds.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

#: Commands the runner registers (ActionCommandManager and its extensions), lower case.
REGISTERED = frozenset(
    {
        "stop-commands",
        "set-env",
        "set-output",
        "save-state",
        "add-mask",
        "add-path",
        "add-matcher",
        "remove-matcher",
        "debug",
        "warning",
        "error",
        "notice",
        "group",
        "endgroup",
        "echo",
    }
)

_V2_PROPERTY = [("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")]
_V2_DATA = [("%0D", "\r"), ("%0A", "\n"), ("%25", "%")]
_LEGACY = [("%3B", ";"), ("%0D", "\r"), ("%0A", "\n"), ("%5D", "]"), ("%25", "%")]

#: Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt).
_DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)


def weightless(char: str) -> bool:
    """A character a culture-sensitive .NET comparison may skip (no collation weight)."""
    code = ord(char)
    if unicodedata.category(char) in ("Cc", "Cf") and char not in "\t\n\v\f\r\x85":
        return True
    return any(low <= code <= high for low, high in _DEFAULT_IGNORABLE)


def dotnet_whitespace(char: str) -> bool:
    """.NET `char.IsWhiteSpace`: Zs, Zl, Zp, U+0009-U+000D, U+0085 (not Python's isspace)."""
    return char in "\t\n\v\f\r\x85" or unicodedata.category(char) in ("Zs", "Zl", "Zp")


@dataclass(frozen=True)
class Command:
    name: str  # lower case
    properties: dict[str, str]
    data: str
    line: int  # index of the line it came from
    syntax: str  # "v2" or "legacy"


def split_lines(text: str) -> list[str]:
    """.NET `ReadLine`: lines end at CRLF, CR or LF; no trailing empty line."""
    lines = re.split(r"\r\n|\r|\n", text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _find(line: str, needle: str, start: int) -> tuple[int, int] | None:
    """(start, end) of `needle` in `line` from `start`, skipping weightless characters."""
    for begin in range(start, len(line)):
        if line[begin] != needle[0]:
            continue
        index, matched = begin + 1, 1
        while matched < len(needle) and index < len(line):
            if line[index] == needle[matched]:
                matched += 1
            elif not weightless(line[index]):
                break
            index += 1
        if matched == len(needle):
            return begin, index
    return None


def _unescape(text: str, mapping: list[tuple[str, str]]) -> str:
    for escaped, char in mapping:
        text = text.replace(escaped, char)
    return text


def _name_and_rest(info: str) -> tuple[str, str | None]:
    space = info.find(" ")
    return (info, None) if space < 0 else (info[:space], info[space + 1 :])


def parse_v2(line: str, registered: Iterable[str], index: int = 0) -> Command | None:
    start = 0
    while start < len(line) and (dotnet_whitespace(line[start]) or weightless(line[start])):
        start += 1
    head = _find(line, "::", start)
    if head is None or head[0] != start:
        return None
    separator = _find(line, "::", head[1])
    if separator is None:
        return None
    name, rest = _name_and_rest(line[head[1] : separator[0]])
    if name.lower() not in {r.lower() for r in registered}:
        return None
    properties: dict[str, str] = {}
    for item in (rest or "").strip().split(","):
        key, sep, value = item.partition("=")
        if item and sep and key and value:
            properties[key] = _unescape(value, _V2_PROPERTY)
    data = _unescape(line[separator[1] :], _V2_DATA)
    return Command(name.lower(), properties, data, index, "v2")


def parse_legacy(line: str, registered: Iterable[str], index: int = 0) -> Command | None:
    head = _find(line, "##[", 0)
    if head is None:
        return None
    close = line.find("]", head[1])
    if close < 0:
        return None
    name, rest = _name_and_rest(line[head[1] : close])
    if name.lower() not in {r.lower() for r in registered}:
        return None
    properties: dict[str, str] = {}
    for item in (rest or "").split(";"):
        key, sep, value = item.partition("=")
        if item and sep and key and value:
            properties[key] = _unescape(value, _LEGACY)
    return Command(name.lower(), properties, _unescape(line[close + 1 :], _LEGACY), index, "legacy")


@dataclass
class Runner:
    """The runner's command state for one step: which lines it executes as commands."""

    executed: list[Command] = field(default_factory=list)
    ignored_while_stopped: list[Command] = field(default_factory=list)
    stop_token: str | None = None
    lines: int = 0

    def feed(self, text: str) -> None:
        for line in split_lines(text):
            self.process(line)

    def process(self, line: str) -> None:
        index = self.lines
        self.lines += 1
        if not line or (_find(line, "##[", 0) is None and _find(line, "::", 0) is None):
            return
        registered = set(REGISTERED)
        if self.stop_token is not None:
            registered.add(self.stop_token.lower())
        command = parse_v2(line, registered, index) or parse_legacy(line, registered, index)
        if command is None:
            return
        if self.stop_token is not None:
            if command.name == self.stop_token.lower():
                self.stop_token = None
            else:
                self.ignored_while_stopped.append(command)
            return
        if command.name == "stop-commands":
            self.stop_token = command.data
        self.executed.append(command)


def commands_in(*texts: str) -> Runner:
    """Feed each text (stdout, then stderr: one of the orders the runner may see) in turn."""
    runner = Runner()
    for text in texts:
        runner.feed(text)
    return runner


def iter_commands(text: str) -> Iterator[Command]:
    yield from commands_in(text).executed
