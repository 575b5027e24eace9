"""Values into Markdown so that they render exactly as written (pure).

Every Markdown report goes through these three functions: GitHub renders check-run summaries,
job summaries and `--markdown` files as CommonMark with GFM tables, where `__SHA256_x__` turns
bold, `<name>` is swallowed as an HTML tag and `|` splits a table cell. So:

- `code(value)`: a code span whose fence is longer than any run of backticks in the value
  (CommonMark 6.1), padded with a space when the value begins or ends with a backtick or with
  spaces on both ends, which the renderer strips again;
- `text(value)`: free text with every character that could start markup backslash-escaped
  (CommonMark allows escaping any ASCII punctuation); `message(value)` the same, with each
  quoted value in a finding's message as a code span;
- `cell(markdown)`: already-escaped Markdown made safe inside a GFM table cell: `|` becomes
  `\\|` (GFM unescapes it before inline parsing, inside code spans too) and line breaks spaces.
"""

from __future__ import annotations

import re

from swiftpm_guard.core.model import Phrase

#: Characters that can begin or end markup in the middle of a line, in CommonMark or on
#: GitHub (`$` math, `@` mentions, `~` strikethrough, `&` entities, `|` table cells). Those
#: that matter only at the start of a line (`#`, `+`, `-`, `>`) or after one of these (`(`
#: after `]`, `!` before `[`) are left alone: the text never starts a line.
_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&$@])")
#: A value quoted in a message: `'x'`, opened after a non-word character (so the apostrophe
#: of "template's" opens nothing) and closed before one.
_QUOTED = re.compile(r"(?<![A-Za-z0-9])'([^'\n]{1,300}?)'(?![A-Za-z0-9])")
_BACKTICKS = re.compile(r"`+")


def _one_line(value: str) -> str:
    return value.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")


def code(value: str) -> str:
    """`value` as an inline code span that renders to exactly `value` (line breaks → spaces)."""
    value = _one_line(value)
    if not value:
        return "` `"  # an all-space code span keeps its space; an empty one does not exist
    longest = max((len(run) for run in _BACKTICKS.findall(value)), default=0)
    fence = "`" * (longest + 1)
    pad = value[0] == "`" or value[-1] == "`" or (value[0] == " " and value[-1] == " "
                                                   and value.strip(" "))
    inner = f" {value} " if pad else value
    return f"{fence}{inner}{fence}"


def text(value: str) -> str:
    """Free text that renders literally: markup characters escaped, line breaks → spaces."""
    return _SPECIAL.sub(r"\\\1", _one_line(value))


def message(value: str) -> str:
    """A finding's message: each quoted value (`'__SHA256_x__'`) as a code span inside its
    quotes, so it shows exactly and reads as a name; the rest as `text`."""
    value = _one_line(value)
    parts: list[str] = []
    last = 0
    for match in _QUOTED.finditer(value):
        parts += [text(value[last:match.start()]), "'", code(match.group(1)), "'"]
        last = match.end()
    parts.append(text(value[last:]))
    return "".join(parts)


def cell(markdown: str) -> str:
    """Markdown (already built with `code`/`text`) safe inside one GFM table cell."""
    return _one_line(markdown).replace("|", "\\|")


def html(value: str) -> str:
    """For the few places that are raw HTML (`<summary>`): entities, no Markdown there."""
    return (_one_line(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def fence(body: str, info: str = "") -> list[str]:
    """A fenced code block around `body` that no line of it can close (CommonMark 4.5)."""
    longest = max((len(run) for run in _BACKTICKS.findall(body)), default=0)
    marker = "`" * max(3, longest + 1)
    return [marker + info, *body.rstrip("\n").split("\n"), marker]


def phrase(value: Phrase) -> str:
    """Our words as text, the values between them as code spans."""
    return "".join(code(part) if index % 2 else text(part)
                   for index, part in enumerate(value.parts))
