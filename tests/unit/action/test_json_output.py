"""The action's `json` output: the report inline on one line, bounded below GitHub's 1 MB."""

import json

from support.report_schemas import validate
from swiftpm_guard.action.delivery import JSON_OUTPUT_MAX_BYTES, json_output
from swiftpm_guard.core.model import Finding, Report, Severity
from swiftpm_guard.report.check import to_dict


def _report(findings: int) -> dict:
    found = tuple(Finding("unfilled-placeholder", Severity.ERROR, f"n{i}", "m" * 200, "T", i + 1)
                  for i in range(findings))
    return to_dict(Report("1.2.3", (), (), (), (), (), None, None, None, found))


def test_a_report_fits_on_one_line_and_is_the_report():
    document = _report(3)
    text = json_output(document, ".swiftpm-guard/report.json")
    assert "\n" not in text and json.loads(text) == document
    validate(json.loads(text), "json output")


def test_past_the_bound_a_stand_in_names_the_file():
    document = _report(5000)  # about 1.3 MB
    assert len(json.dumps(document).encode()) > JSON_OUTPUT_MAX_BYTES
    text = json_output(document, ".swiftpm-guard/report.json")
    assert len(text.encode()) < 1000
    stand_in = json.loads(text)
    assert stand_in["truncated"] is True and stand_in["report"] == ".swiftpm-guard/report.json"
    assert stand_in["consistent"] is False and stand_in["bytes"] > JSON_OUTPUT_MAX_BYTES
    assert stand_in["kind"] == "check" and stand_in["schema_version"] == document["schema_version"]
