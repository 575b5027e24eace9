"""The shipped JSON Schemas: valid schemas, met by every report shape, and able to fail."""

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support.report_schemas import validate
from swiftpm_guard.core.audit import AuditReport, BranchAudit
from swiftpm_guard.core.model import (
    Artifact,
    Finding,
    HostedStats,
    Location,
    Report,
    Severity,
    SwiftStatus,
    TemplateSummary,
)
from swiftpm_guard.report import audit as audit_report
from swiftpm_guard.report import check as check_report

NAMES = st.text(alphabet="abc_XYZ019", min_size=1, max_size=12)


@st.composite
def check_reports(draw):
    names = draw(st.lists(NAMES, max_size=8, unique=True))
    artifacts = []
    for name in names:
        kind = draw(st.sampled_from(["zip", "checksums", "declared", "workflow"]))
        sha = None if kind in ("declared", "workflow") else draw(st.sampled_from(["a" * 64, "BAD"]))
        line = None if kind == "zip" else draw(st.integers(1, 500))
        artifacts.append(Artifact(name, sha, Location(f"src/{name}", line),
                                  f"{name}-1.0.0.zip" if kind == "zip" else None,
                                  source="workflow" if kind == "workflow" else None))
    findings = tuple(
        Finding(draw(st.sampled_from(["unfilled-placeholder", "url-error"])),
                draw(st.sampled_from(list(Severity))), n, f"'{n}' <x>",
                draw(st.none() | st.just("T.template")), draw(st.none() | st.integers(1, 9)))
        for n in draw(st.lists(NAMES, max_size=4))
    )
    return Report(
        version=draw(st.sampled_from(["1.2.3", ""])),
        templates=(TemplateSummary("T.template", tuple(names), draw(st.none() | st.integers(0, 9)),
                                   len(names)),),
        placeholders=tuple(sorted(names)), built=tuple(sorted(names)), unfilled=(), unclaimed=(),
        products=None, binary_targets=len(names),
        counts_source=draw(st.sampled_from(["static", "swiftpm", None])),
        findings=findings,
        swiftpm=draw(st.none() | st.just(SwiftStatus(True, "evaluated", 1.5, False))),
        artifacts=tuple(sorted(artifacts, key=lambda a: a.name)),
        hosted=draw(st.none() | st.just(HostedStats(3, 2, 1000, 0.5))),
    )


@settings(max_examples=50, deadline=None)
@given(check_reports())
def test_every_check_report_shape_validates(report):
    validate(check_report.to_dict(report))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(NAMES, st.none() | st.just("1.0.0")), max_size=5))
def test_every_audit_report_shape_validates(branches):
    finding = Finding("placeholder-left", Severity.ERROR, "x", "m", "Package.swift", 3)
    report = AuditReport("repo", "swiftpm-*", tuple(
        BranchAudit(f"swiftpm-{n}", v, (finding,) if v else ()) for n, v in branches),
        hosted=HostedStats(1, 1, 10, 0.1))
    document = audit_report.to_dict(report)
    validate(document)
    # The issue-14 reader adds each branch's tip: optional, and accepted when present.
    for branch in document["branches"]:
        branch["tip"] = {"commit": "0" * 40, "author": "A <a@b>", "date": "2025-01-01T00:00:00Z"}
    validate(document)


def _sound_check():
    return check_report.to_dict(Report("1.0.0", (), ("a",), ("a",), (), (), None, 1, "static",
                                       artifacts=(Artifact("a", "a" * 64, Location("c.txt", 1)),)))


@pytest.mark.parametrize(("change", "complaint"), [
    (lambda d: d.pop("schema_version"), "'schema_version' is a required property"),
    (lambda d: d.update(schema_version="2.0"), "does not match"),
    (lambda d: d["origins"]["a"].update(kind="ftp"), "is not one of"),
    (lambda d: d.update(findings=[{"code": "x", "severity": "fatal", "subject": "a",
                                   "file": None, "line": None, "message": ""}]), "is not one of"),
    (lambda d: d["tool"].update(name="other"), "was expected"),
    (lambda d: d.update(verify_urls={"urls": -1, "verified": 0, "bytes": 0, "seconds": 0}),
     "less than the minimum"),
])
def test_the_schema_rejects_what_it_must(change, complaint):
    document = copy.deepcopy(_sound_check())
    validate(copy.deepcopy(document))
    change(document)
    with pytest.raises(AssertionError, match=complaint):
        validate(document)


def test_additional_keys_are_accepted():
    """Additive changes keep the major schema_version: old validators accept new keys."""
    document = _sound_check()
    document["a_key_from_the_future"] = {"anything": [1]}
    validate(document)


def test_the_schemas_ship_as_package_data():
    """`pip install` carries them (a wheel built here lists both under report/schemas/)."""
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    data = tomllib.loads((root / "pyproject.toml").read_text())
    patterns = data["tool"]["setuptools"]["package-data"]["swiftpm_guard"]
    assert "report/schemas/*.json" in patterns
    shipped = {p.name for p in (root / "src/swiftpm_guard").glob("report/schemas/*.json")}
    assert shipped == {"check.json", "audit.json"}
