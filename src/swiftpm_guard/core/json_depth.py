"""JSON from someone else, parsed with a nesting cap (pure).

`json.loads` recurses once per `[` or `{`: deep enough text is a RecursionError (an event
payload, SwiftPM's JSON), which no caller expects. The depth is measured first, linearly in
time and memory, with C loops only: escape pairs are dropped (`\\\\`, then `\\"`), so every `"` left
opens or closes a string; the text is kept down to `"` and brackets, and read a window at a time,
split at its quotes: the pieces outside strings become +1/-1 steps whose running sum may not pass
the cap. Only text within the cap reaches the decoder. (A backtracking regular expression did
this before and held about 120 bytes per character of a long string: 3.5 GB for a 30 MB one.)
"""

from __future__ import annotations

import json
from array import array
from itertools import accumulate
from typing import Any

from swiftpm_guard.errors import TooDeep

#: Real payloads nest a dozen levels; GitHub's event payloads under twenty.
MAX_DEPTH = 64
#: `[`/`{` to +1 and `]`/`}` to -1 (as signed bytes); everything else is deleted.
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_OTHERS = bytes(b for b in range(256) if b not in b"[]{}")
#: Everything but quotes and brackets, deleted before the windows are split.
_NOT_KEPT = bytes(b for b in range(256) if b not in b'"[]{}')
#: The text is split at its quotes a window at a time: at most a window's pieces are held.
_WINDOW = 1 << 20


def depth_exceeds(data: bytes, max_depth: int) -> bool:
    """Whether `data` nests `[`/`{` deeper than `max_depth` outside its strings (unclosed ones
    count: the decoder recurses into them before it sees the text end).

    Outside strings a backslash is no JSON: the decoder stops there, so what the escape pass
    does to the text after it does not matter."""
    kept = data.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_KEPT)
    depth = 0
    in_string = False
    for start in range(0, len(kept), _WINDOW):
        pieces = kept[start:start + _WINDOW].split(b'"')
        outside = b"".join(pieces[1 if in_string else 0::2])
        in_string ^= len(pieces) % 2 == 0  # an odd number of quotes in the window
        steps = array("b", outside.translate(_STEPS, _OTHERS))
        if steps and max(accumulate(steps, initial=depth)) > max_depth:
            return True
        depth += sum(steps)
    return False


def loads(data: bytes | str, *, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads(data)` when it nests at most `max_depth` levels; TooDeep (a ValueError)
    otherwise, like any other text that is not the JSON we read."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if depth_exceeds(raw, max_depth):
        raise TooDeep(f"nested deeper than {max_depth} levels")
    return json.loads(raw)
