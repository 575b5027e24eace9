"""Text that may reach a runner's log, made unable to form a workflow command (pure).

The runner splits a step's output at LF, CR and CRLF and runs `::name …::data` at a line's
start and the legacy `##[name …]data` anywhere in it. File names, member names and template
text are someone else's, so `neutralise` makes every such line one line in which line breaks
are spaces, characters .NET's culture-sensitive `StartsWith("::")` would skip (controls, format
characters, Default_Ignorable code points, lone surrogates) are `?`, `::` is `: :` and `##[` is
`## [`. A block that must be shown as is goes between `::stop-commands::<random token>` and
`::<token>::` on one stream (`stop_commands_block`). Beside the layers: errors applies it to
every message.
"""

from __future__ import annotations

import re
import unicodedata

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
_LINE_BREAKS = re.compile(r"\r\n|[\r\n\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
_DOUBLE_COLON = re.compile(r":(?=:)")
_LEGACY_OPEN = re.compile(r"(?<=##)\[")


def _weightless(char: str) -> bool:
    # Cs too: a lone surrogate (a file name's undecodable byte, kept by surrogateescape) cannot
    # be written to a UTF-8 log at all; `?` shows where it was instead of crashing the print.
    if unicodedata.category(char) in ("Cc", "Cf", "Cs"):
        return True
    code = ord(char)
    return any(low <= code <= high for low, high in _DEFAULT_IGNORABLE)


def neutralise(text: str) -> str:
    """`text` as one log line that no runner can read a workflow command from."""
    flat = _LINE_BREAKS.sub(" ", text).replace("\t", " ")
    if any(_weightless(c) for c in flat if not c.isascii() or not c.isprintable()):
        flat = "".join("?" if _weightless(c) else c for c in flat)
    flat = _DOUBLE_COLON.sub(": ", flat)
    return _LEGACY_OPEN.sub(" [", flat)


def stop_commands_block(text: str, token: str) -> list[str]:
    """`text`'s lines between `::stop-commands::token` and `::token::`: shown, never run.

    `token` must be random and fresh (say `secrets.token_hex(16)`): text that knew it could
    resume command processing. A token found in `text` is refused.
    """
    if len(token) < 16 or not token.isalnum():
        raise ValueError("the stop-commands token must be 16 or more letters and digits")
    if token.lower() in text.lower():
        raise ValueError("the text holds the stop-commands token")
    return [f"::stop-commands::{token}", *text.splitlines(), f"::{token}::"]
