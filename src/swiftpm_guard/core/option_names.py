"""An option named in a message, by its key (the configuration file's and the action's name:
`verify-urls`); each front end spells it where it prints or writes: the CLI `--verify-urls`,
the action `input verify-urls`.

The key travels inside ordinary message text between two Unicode noncharacters (reserved for a
program's internal use, never in our words), so a front end spells exactly the options a
message names and leaves untrusted text in it (a file called `--allow-overwrite`) as it is.
Text from elsewhere that holds those noncharacters around a key is spelled too: the worst it
can do is print `input update`, never run or hide anything (printing neutralises as before).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_OPEN, _CLOSE = "\ufdd0", "\ufdd1"
_NAMED = re.compile(f"{_OPEN}([a-z][a-z0-9-]*){_CLOSE}")
_STRAY = re.compile(f"[{_OPEN}{_CLOSE}]")


def option(key: str) -> str:
    """`key` as an option a message names (spelled later by the front end)."""
    if _NAMED.fullmatch(f"{_OPEN}{key}{_CLOSE}") is None:
        raise ValueError(f"not an option key: {key!r}")
    return f"{_OPEN}{key}{_CLOSE}"


def spell(text: str, spelling: Callable[[str], str]) -> str:
    """`text` with every option it names spelled by `spelling(key)`; a marker left alone
    (cut in half by a length limit) is dropped, never printed."""
    return _STRAY.sub("", _NAMED.sub(lambda match: spelling(match.group(1)), text))


def spell_bytes(data: bytes, spelling: Callable[[str], str]) -> bytes:
    """A UTF-8 file's text spelled (a report); other bytes as they are."""
    marker = _OPEN.encode()[:2]  # both markers start with these two bytes
    if marker not in data:
        return data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data
    return spell(text, spelling).encode("utf-8")
