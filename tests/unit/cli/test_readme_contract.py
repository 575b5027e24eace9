"""README's CLI, report and finding-code sections agree with the code, as action.yml's inputs
and outputs do (tests/unit/action/test_action_contract.py): every subcommand and every option
has help text and is documented, every finding code is in a README table and every README
code exists, and every key of the JSON reports (their shipped schemas) is documented."""

import argparse
import re
from pathlib import Path

import pytest

from swiftpm_guard.cli.main import SCHEMAS, build_parser, schema
from swiftpm_guard.core.model import CODES

README = (Path(__file__).resolve().parents[3] / "README.md").read_text()


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.option_strings and a.dest != "help"]


def _section(title: str) -> str:
    """The README text from a `## `/`### ` heading to the next heading of that level or above."""
    match = re.search(rf"^(#+) {re.escape(title)}.*?$", README, re.M)
    assert match, f"README has no section {title!r}"
    level = len(match.group(1))
    rest = README[match.end():]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.M)
    return rest[: end.start()] if end else rest


def test_every_subcommand_is_in_the_cli_synopsis():
    cli = _section("CLI")
    for name in _subcommands():
        assert re.search(rf"^swiftpm-guard {name}\b", cli, re.M), name


@pytest.mark.parametrize("command", sorted(_subcommands()))
def test_every_option_has_help_and_is_documented(command):
    parser = _subcommands()[command]
    assert parser.description or command in {"codes"} or _help_of(command)
    for action in _options(parser):
        assert action.help and action.help is not argparse.SUPPRESS, (command, action.dest)
        documented = [o for o in action.option_strings if o.startswith("--") and o in README]
        assert documented, f"README does not document {command} {action.option_strings[0]}"


def _help_of(command: str) -> str | None:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return next((c.help for c in action._choices_actions if c.dest == command), None)


def test_every_subcommand_has_a_one_line_help():
    for command in _subcommands():
        assert _help_of(command), command


def _readme_codes() -> set[str]:
    """First-column codes of the `| code | …` tables in the finding-code sections."""
    found: set[str] = set()
    for title in ("Finding codes", "Auditing published branches", "`--verify-urls`"):
        for table in re.findall(r"^\| code \|.*?\n((?:\|.*\n)+)", _section(title), re.M):
            for first in re.findall(r"^\| ([^|]+) \|", table, re.M):
                found |= set(re.findall(r"`([a-z][a-z0-9-]+)`", first))
    return found


def test_every_finding_code_is_in_a_readme_table_and_no_other():
    listed = _readme_codes()
    assert set(CODES) - listed == set(), "codes missing from README's finding-code tables"
    assert listed - set(CODES) == set(), "README lists codes the code does not know"


@pytest.mark.parametrize("kind", SCHEMAS)
def test_every_report_key_is_documented(kind):
    section = _section("JSON report" if kind == "check" else "Auditing published branches")
    properties = schema(kind)["properties"]
    for key in properties:
        assert f'"{key}"' in section or f"`{key}`" in section, (kind, key)


def test_exit_codes_in_the_readme_match_the_help():
    from swiftpm_guard.cli.main import EXIT_CODES

    cli = _section("CLI")
    for code in ("0", "1", "2", "3"):
        assert f"`{code}`" in cli and f"  {code}  " in EXIT_CODES
