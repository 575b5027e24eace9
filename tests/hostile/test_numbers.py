"""Numbers in inputs are ASCII digits: `٣`, `²` and `①` pass `str.isdigit()`.

`int("²")` raises a ValueError (a traceback, exit 3 "internal error" in the action) and
`int("١٢")` quietly reads 12. `core.numbers.parse_id` takes `[0-9]` only; the action's run-id
goes through it once action_settings calls it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swiftpm_guard.core.names import is_ascii_number, parse_id
from swiftpm_guard.errors import UsageError

NOT_ASCII = [
    "\u00b2",  # superscript two
    "\u0661\u0662",  # Arabic-Indic one two
    "\u0663",
    "\u2460",  # circled one
    "\U0001d7d7",  # mathematical bold nine
    "\uff11\uff12",  # fullwidth one two
    "12\u0663",
    " 12",
    "12 ",
    "+12",
    "-1",
    "0",
    "",
    "1_0",
]


@pytest.mark.parametrize("text", NOT_ASCII)
def test_only_ascii_digits_are_an_id(text: str) -> None:
    with pytest.raises(UsageError) as raised:
        parse_id(text, what="input run-id")
    message = str(raised.value)
    assert message.startswith("input run-id must be a number, got ") and "\n" not in message


@given(st.integers(1, 10**18))
def test_every_ascii_id_parses(number: int) -> None:
    assert parse_id(str(number), what="input run-id") == number


@given(st.text(max_size=12))
def test_nothing_else_parses_and_nothing_raises_but_usage_errors(text: str) -> None:
    if is_ascii_number(text) and int(text) > 0:
        assert parse_id(text, what="x") == int(text)
    else:
        with pytest.raises(UsageError):
            parse_id(text, what="x")


@pytest.mark.parametrize("text", ["\u00b2", "\u0661\u0662"])
def test_the_action_refuses_a_run_id_that_is_not_ascii(tmp_path: Path, text: str) -> None:
    from swiftpm_guard.action.settings import ActionSettings

    event = tmp_path / "event.json"
    event.write_text(json.dumps({}))
    env = {
        "GITHUB_EVENT_NAME": "push",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": "o/r",
        "GITHUB_SHA": "1" * 40,
        "GITHUB_REF": "refs/heads/main",
        "GITHUB_WORKSPACE": str(tmp_path),
        "GITHUB_RUN_ID": "9",
        "INPUT_RUN-ID": text,
        "INPUT_ARTIFACT-NAME": "frameworks",
    }
    with pytest.raises(UsageError) as raised:
        ActionSettings.from_env(env)
    assert "run-id" in str(raised.value)
