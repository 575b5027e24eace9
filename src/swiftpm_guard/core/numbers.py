"""Numbers typed by people into inputs: ASCII digits only, bounded (pure).

`str.isdigit()` is true for `٣` (Arabic-Indic three), `²` and `①`; `int()` takes the first and
raises a ValueError on the others, so a check with `isdigit()` then `int()` either accepts a
value GitHub's API never issued or dies with a traceback. Here a number is `[0-9]+`, nothing
else, within a length that fits the API's 64-bit ids.
"""

from __future__ import annotations

import re

from swiftpm_guard.errors import UsageError

_ASCII_DIGITS = re.compile(r"[0-9]{1,19}")


def is_ascii_number(text: str) -> bool:
    """Whether `text` is 1-19 ASCII digits (what `isdigit()` should have meant)."""
    return _ASCII_DIGITS.fullmatch(text) is not None


def parse_id(text: str, *, what: str) -> int:
    """A positive id such as a run id; UsageError naming `what` for anything else."""
    if not is_ascii_number(text) or int(text) == 0:
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise UsageError(f"{what} must be a number, got {shown!r} (ASCII digits 0-9, not 0)")
    return int(text)
