"""`swiftpm-guard schema check|audit`: print the JSON Schema of a report (shipped as package
data in `report/schemas/`, the same files the test suite validates every report against)."""

from __future__ import annotations

import argparse
import json
from importlib import resources
from typing import Any

from swiftpm_guard.errors import InputError

KINDS = ("check", "audit")


def add_parsers(commands: argparse._SubParsersAction[Any]) -> None:
    parser = commands.add_parser(
        "schema", help="print the JSON Schema of the check or the audit report",
        description="Print the JSON Schema (draft 2020-12) that every --json report of that "
                    "kind validates against.")
    parser.add_argument("kind", choices=KINDS,
                        help="check: the report of check, render and publish; audit: of audit")


def schema_text(kind: str) -> str:
    """The schema as shipped (UTF-8 JSON text)."""
    resource = resources.files("swiftpm_guard.report").joinpath("schemas", f"{kind}.json")
    try:
        return resource.read_text(encoding="utf-8")
    except OSError as error:  # an installation without its package data
        raise InputError(f"the {kind} schema is not installed: {error}") from None


def schema(kind: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(schema_text(kind))
    return loaded


def run(args: argparse.Namespace) -> int:
    print(schema_text(args.kind), end="")
    return 0
