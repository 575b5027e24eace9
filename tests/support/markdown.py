"""Render Markdown the way GitHub does (CommonMark + GFM tables) and read back what a person
sees: the text, and the cells of each table. Tests assert on this, never on the raw Markdown."""

from __future__ import annotations

from html.parser import HTMLParser

from markdown_it import MarkdownIt

_RENDERER = MarkdownIt("commonmark").enable("table")


def to_html(markdown: str) -> str:
    return _RENDERER.render(markdown)


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = []
        elif tag in ("p", "li", "tr", "h3", "h4", "br", "summary", "pre"):
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append("".join(self.cell))
            self.parts.append(" | ")
            self.cell = None
        elif tag in ("p", "li", "tr", "h3", "h4", "pre", "summary"):
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)
        if self.cell is not None:
            self.cell.append(data)


def read(markdown: str) -> _Reader:
    reader = _Reader()
    reader.feed(to_html(markdown))
    reader.close()
    return reader


def rendered_text(markdown: str) -> str:
    """What the page shows, as text (entities decoded, tags gone)."""
    return "".join(read(markdown).parts)  # the parser has decoded the entities


def table_rows(markdown: str) -> list[list[str]]:
    """Every table row's cells as rendered text (header rows included)."""
    return read(markdown).rows


def inline(markdown: str) -> str:
    """The rendered text of one paragraph of inline Markdown."""
    return rendered_text(markdown).strip("\n")
