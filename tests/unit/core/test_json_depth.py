"""The JSON depth pre-check agrees with a character-by-character reading of JSON strings and
brackets, across the windows it reads the text in, in linear time and memory."""

from __future__ import annotations

import json
import resource
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from swiftpm_guard.core.json_depth import depth_exceeds

_WINDOW = 1 << 20


def _deepest(data: bytes) -> int:
    """The deepest `[`/`{` nesting outside strings, read one character at a time."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in data:
        char = chr(byte)
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet='[]{}"\\ax', max_size=60), st.integers(min_value=0, max_value=6))
def test_agrees_with_a_character_reading_inside_strings(text: str, cap: int) -> None:
    # Escapes only inside strings: a backslash outside one stops the decoder before it.
    data = f"[{json.dumps(text)}{'[' * cap}{']' * cap}]".encode()
    assert depth_exceeds(data, cap) is (_deepest(data) > cap)
    assert not depth_exceeds(data, cap + 1)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(['"a"', '"\\\\"', '"\\"["', "[", "]", "{", "}", ","]),
                max_size=80), st.integers(min_value=0, max_value=8))
def test_agrees_on_any_mix_of_strings_and_brackets(tokens: list[str], cap: int) -> None:
    data = "".join(tokens).encode()
    assert depth_exceeds(data, cap) is (_deepest(data) > cap)


def test_a_string_across_a_window_boundary_hides_its_brackets() -> None:
    for pad in (_WINDOW - 3, _WINDOW - 2, _WINDOW - 1, _WINDOW, _WINDOW + 1):
        inside = b'["' + b"[" * pad + b'"]'
        assert not depth_exceeds(inside, 1), pad
        outside = b'["' + b"a" * pad + b'"' + b"[" * 3 + b"]" * 3 + b"]"
        assert depth_exceeds(outside, 3) and not depth_exceeds(outside, 4), pad
        quoted = b'["' + b'\\"' * (pad // 2) + b'", [[]]]'
        assert depth_exceeds(quoted, 2) and not depth_exceeds(quoted, 3), pad


def test_a_30_mb_string_is_checked_in_linear_time_and_little_memory() -> None:
    data = b'{"head_commit": {"message": "' + b"x" * 30_000_000 + b'"}}'
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    assert not depth_exceeds(data, 64)
    assert time.monotonic() - started < 5
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 200 * 1024  # the backtracking expression grew 3.4 GB here
