"""Every JSON report the suite produces is validated against the schema the package ships.

`validate(document)` checks one report (its `kind` picks `check` or `audit`) and counts it.
The autouse fixture `validate_written_reports` reads, after each test that used `tmp_path`,
every `*.json` under it that is a swiftpm-guard report (`tool.name` is swiftpm-guard) and
fails that test if one does not validate; reports written by a fresh process, the action's
`.swiftpm-guard/` or a container land there too. At the end of the session every report under
pytest's base temporary folder not yet seen (module and session fixtures) is validated, and the
terminal summary says how many were, of each kind.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from swiftpm_guard.cli.main import schema

_MAX_BYTES = 16 * 1024 * 1024
COUNTS: Counter[str] = Counter()
#: How many of them were files a test wrote (the rest were built in memory by unit tests).
WRITTEN: Counter[str] = Counter()
#: Resolved paths (as strings: module-level Paths must stay inside the repository).
_SEEN: set[str] = set()
_FAILED: list[str] = []


@cache
def _validator(kind: str) -> jsonschema.protocols.Validator:
    document = schema(kind)
    validator_class = jsonschema.validators.validator_for(document)
    validator_class.check_schema(document)
    return validator_class(document)


def validate(document: Any, where: str = "report") -> None:
    """Raise AssertionError naming every violation; count the report."""
    assert isinstance(document, dict), f"{where}: a report is a JSON object"
    kind = document.get("kind")
    assert kind in ("check", "audit"), f"{where}: kind {kind!r} is not check or audit"
    errors = sorted(_validator(kind).iter_errors(document), key=lambda e: list(e.path))
    if errors:
        shown = "; ".join(f"{'/'.join(map(str, e.path)) or '<root>'}: {e.message}"
                          for e in errors[:5])
        raise AssertionError(f"{where} does not match the {kind} schema: {shown}")
    COUNTS[kind] += 1


def _report_in(path: Path) -> Any | None:
    """The parsed report if `path` is a swiftpm-guard report, else None."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_BYTES:
            return None
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if '"schema_version"' not in text and '"consistent"' not in text:
        return None
    try:
        document = json.loads(text)
    except ValueError:
        return None
    if not isinstance(document, dict):
        return None
    if document.get("tool", {}).get("name") == "swiftpm-guard" or "consistent" in document:
        # A report without `tool` (an old shape) is still a report: it must fail validation.
        return document
    return None


def validate_tree(root: Path) -> int:
    """Validate every report under `root` not seen before; the number validated."""
    done = 0
    for path in sorted(root.rglob("*.json")):
        resolved = str(path.resolve())
        if resolved in _SEEN:
            continue
        _SEEN.add(resolved)
        document = _report_in(path)
        if document is not None:
            validate(document, str(path))
            WRITTEN[str(document.get("kind"))] += 1
            done += 1
    return done


@pytest.fixture(autouse=True)
def validate_written_reports(request: pytest.FixtureRequest):
    # Asked for now, so that tmp_path is torn down after this fixture, not before.
    root = request.getfixturevalue("tmp_path") if "tmp_path" in request.fixturenames else None
    yield
    if root is None:
        return
    try:
        validate_tree(root)
    except AssertionError as error:
        pytest.fail(str(error), pytrace=False)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is None:
        return
    try:
        validate_tree(factory.getbasetemp())
    except AssertionError as error:
        _FAILED.append(str(error))
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any) -> None:
    total = sum(COUNTS.values())
    if not total and not _FAILED:
        return
    kinds = ", ".join(f"{kind}: {count}" for kind, count in sorted(COUNTS.items()))
    files = ", ".join(f"{kind}: {count}" for kind, count in sorted(WRITTEN.items()))
    terminalreporter.write_line(
        f"report schemas: {total} reports validated against the shipped JSON Schemas ({kinds}); "
        f"{sum(WRITTEN.values())} of them report files the tests wrote ({files or 'none'})")
    for failure in _FAILED:
        terminalreporter.write_line(f"report schemas: FAILED {failure}", red=True)
