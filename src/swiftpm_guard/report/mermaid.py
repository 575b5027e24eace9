"""A Mermaid `timeline` block, which GitHub renders as a picture in Markdown (pure).

Mermaid's timeline grammar reads a period's text up to a `:` (which starts an event) or the
line's end, `#…;` as an entity, `%%` as a comment and `;` in places as a statement's end; so
every text is cut down to letters, digits, spaces and a few harmless marks before it goes in.
"""

from __future__ import annotations

import json
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
    """Periods Mermaid draws in one colour under one heading. Mermaid gathers the periods of
    sections by name, so two sections must never share one (timeline() refuses that)."""

    name: str
    periods: tuple[Period, ...]
    colour: str | None = None  # "#rrggbb"


#: Mermaid colours a timeline's sections by position from twelve theme variables
#: (cScale0…cScale11), so colours can be set for at most that many sections.
COLOURED_SECTIONS_MAX = 12
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")


def _colours(sections: Sequence[Section]) -> str | None:
    """An init directive giving each section its colour, when every section has one and
    there are few enough; otherwise Mermaid's own cycle."""
    colours = [s.colour for s in sections]
    if not colours or len(colours) > COLOURED_SECTIONS_MAX or None in colours:
        return None
    assert all(_COLOUR.fullmatch(c or "") for c in colours), colours
    variables = {f"cScale{i}": c for i, c in enumerate(colours)}
    variables |= {f"cScaleLabel{i}": "#1f2328" for i in range(len(colours))}
    return "%%{init: " + json.dumps({"theme": "base", "themeVariables": variables}) + "}%%"


def timeline(title: str, sections: Sequence[Section]) -> str:
    """A fenced ```mermaid block: the title, then each section's periods and their events."""
    names = [safe(s.name) for s in sections]
    if len(set(names)) != len(names):
        raise ValueError(f"sections share a name, Mermaid would merge them: {names}")
    directive = _colours(sections)
    lines = ["```mermaid", *([directive] if directive else []), "timeline",
             f"    title {safe(title)}"]
    for section in sections:
        lines.append(f"    section {safe(section.name)}")
        for period in section.periods:
            events = "".join(f" : {safe(event)}" for event in period.events)
            lines.append(f"        {safe(period.text)}{events}")
    lines.append("```")
    return "\n".join(lines) + "\n"
