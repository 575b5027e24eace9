"""The CLI documents itself: every subcommand and option has help text (the generated
docs/reference/cli.md is made from it, and tests/hygiene/test_docs.py keeps that page current),
every finding code has a guide entry, every report key a description, and the README's exit
codes are the help's."""

import argparse
from pathlib import Path

import pytest

from swiftpm_guard.cli.main import EXIT_CODES, SCHEMAS, build_parser, schema

ROOT = Path(__file__).resolve().parents[3]


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _help_of(command: str) -> str | None:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return next((c.help for c in action._choices_actions if c.dest == command), None)


@pytest.mark.parametrize("command", sorted(_subcommands()))
def test_every_subcommand_and_option_has_help_and_is_in_the_reference(command):
    reference = (ROOT / "docs" / "reference" / "cli.md").read_text()
    assert _help_of(command), command
    assert f"## `swiftpm-guard {command}`" in reference
    for action in _subcommands()[command]._actions:
        if action.option_strings and action.dest != "help":
            assert action.help and action.help is not argparse.SUPPRESS, (command, action.dest)
            assert f"`{action.option_strings[0]}" in reference, (command, action.dest)


@pytest.mark.parametrize("kind", SCHEMAS)
def test_every_report_key_has_a_description(kind):
    for key, spec in schema(kind)["properties"].items():
        assert spec.get("description") or "$ref" in spec or key in ("schema_version", "kind"), \
            (kind, key)


def test_exit_codes_in_the_readme_match_the_help():
    readme = (ROOT / "README.md").read_text()
    for code, meaning in (("0", "consistent"), ("1", "error findings"), ("2", "bad usage"),
                          ("3", "broken infrastructure")):
        assert f"{code} {meaning}" in readme and f"  {code}  " in EXIT_CODES
