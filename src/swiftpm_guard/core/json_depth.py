"""JSON from someone else, parsed with a nesting cap (pure).

`json.loads` recurses once per `[` or `{`: deep enough text is a RecursionError (an event
payload, SwiftPM's JSON), which no caller expects. The depth is measured
first, linearly and without recursion: strings are cut out with a regular expression whose
alternatives start on different characters (an unterminated one runs to the end, once), the
brackets left become +1/-1 steps, and their running sum may not pass the cap (C loops: a 32 MiB
payload of brackets is about a second). Only text within the cap reaches the decoder.
"""

from __future__ import annotations

import json
import re
from array import array
from itertools import accumulate
from typing import Any

#: Real payloads nest a dozen levels; GitHub's event payloads under twenty.
MAX_DEPTH = 64
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"?', re.DOTALL)
#: `[`/`{` to +1 and `]`/`}` to -1 (as signed bytes); everything else is deleted.
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_OTHERS = bytes(b for b in range(256) if b not in b"[]{}")


class TooDeep(ValueError):
    """The text nests deeper than the cap (the message says how deep that is)."""


def depth_exceeds(data: bytes, max_depth: int) -> bool:
    """Whether `data` nests `[`/`{` deeper than `max_depth` outside its strings (unclosed ones
    count: the decoder recurses into them before it sees the text end)."""
    steps = array("b", _STRING.sub(b"", data).translate(_STEPS, _OTHERS))
    return any(level > max_depth for level in accumulate(steps))


def loads(data: bytes | str, *, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads(data)` when it nests at most `max_depth` levels; TooDeep (a ValueError)
    otherwise, like any other text that is not the JSON we read."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if depth_exceeds(raw, max_depth):
        raise TooDeep(f"nested deeper than {max_depth} levels")
    return json.loads(raw)
