"""A Mermaid `timeline` block, which GitHub renders as a picture in Markdown (pure).

Mermaid's timeline grammar reads a period's text up to a `:` (which starts an event) or the
line's end, `#…;` as an entity, `%%` as a comment and `;` in places as a statement's end; so
every text is cut down to letters, digits, spaces and a few harmless marks before it goes in.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

#: What a text may keep; anything else becomes a space (then runs of spaces one).
_UNSAFE = re.compile(r"[^A-Za-z0-9 ._,+/()'*?\u2026-]")
_SPACES = re.compile(r" {2,}")
#: Words the grammar reads as a statement when a line starts with them.
_KEYWORDS = ("title", "section", "acctitle", "accdescr", "timeline")
TEXT_MAX = 80


def safe(text: str) -> str:
    """`text` as a timeline may hold it: no separator, entity, comment or keyword start."""
    cleaned = _SPACES.sub(" ", _UNSAFE.sub(" ", text.replace(":", " -"))).strip(" -")
    cleaned = cleaned.replace("--", "-")
    if cleaned.lower().startswith(_KEYWORDS):
        cleaned = "- " + cleaned
    if len(cleaned) > TEXT_MAX:
        cleaned = cleaned[:TEXT_MAX - 1].rstrip() + "\u2026"
    return cleaned or "-"


@dataclass(frozen=True, slots=True)
class Period:
    text: str
    events: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Section:
    """Periods Mermaid draws in one colour under one heading."""

    name: str
    periods: tuple[Period, ...]


def timeline(title: str, sections: Sequence[Section]) -> str:
    """A fenced ```mermaid block: the title, then each section's periods and their events."""
    lines = ["```mermaid", "timeline", f"    title {safe(title)}"]
    for section in sections:
        lines.append(f"    section {safe(section.name)}")
        for period in section.periods:
            events = "".join(f" : {safe(event)}" for event in period.events)
            lines.append(f"        {safe(period.text)}{events}")
    lines.append("```")
    return "\n".join(lines) + "\n"
